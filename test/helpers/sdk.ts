/**
 * Builders for real SDK objects in tests: agents with the scripted model, tools that record each run.
 */
import { Agent, type AgentConfig, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { ScriptedModel, type ScriptedTurn } from '../../fixtures/support/scripted-model.js';

export { call, handoff, say, ScriptedModel } from '../../fixtures/support/scripted-model.js';

/** Every tool body appends `name(input)@agent` here, so "did it run?" is observed, not assumed. */
export const ran: string[] = [];

/** A real zod tool that records its runs in `ran`. */
export function recordingTool(name: string) {
  return tool({
    name,
    description: `test tool ${name}`,
    inputSchema: z.object({ path: z.string().optional(), command: z.string().optional() }).passthrough(),
    callback: (input, ctx) => {
      ran.push(`${name}(${JSON.stringify(input)})@${ctx?.agent.id ?? '?'}`);
      return `ok ${name}`;
    },
  });
}

/** A real Agent driven by a scripted model. */
export function scriptedAgent(
  id: string,
  turns: ScriptedTurn[],
  config: Partial<AgentConfig> = {},
): Agent & { model: ScriptedModel } {
  return new Agent({ id, name: id, model: new ScriptedModel(turns), printer: false, ...config }) as Agent & {
    model: ScriptedModel;
  };
}

/** `status:text` of every tool result in the agent's history. */
export function toolResults(agent: Agent): string[] {
  return agent.messages.flatMap((m) =>
    m.content
      .filter((c) => c.type === 'toolResultBlock')
      .map((c) => `${c.status}:${c.content.map((x) => ('text' in x ? x.text : JSON.stringify(x))).join('|')}`),
  );
}
