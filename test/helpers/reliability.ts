/**
 * Helpers shared by the reliability suite.
 */
import { type Agent, MessageAddedEvent } from '@strands-agents/sdk';

/**
 * Records `status:text` of every tool result added to the agent's conversation. A Graph or Swarm node
 * restores its agent's messages after the run, so `toolResults(agent)` sees nothing there; this does.
 */
export function watchToolResults(agent: Agent): string[] {
  const seen: string[] = [];
  agent.addHook(MessageAddedEvent, (event) => {
    for (const block of event.message.content) {
      if (block.type !== 'toolResultBlock') continue;
      seen.push(`${block.status}:${block.content.map((x) => ('text' in x ? x.text : JSON.stringify(x))).join('|')}`);
    }
  });
  return seen;
}
