/**
 * Bench row `langgraph-tool-call-overhead`: a `langchain` `createAgent` agent whose scripted chat model makes 20
 * tool calls per invoke, gated (allow-all, through `installMultiagent`: the tool node's decision, each tool's
 * execution check, the node guard, the run token) against the same agent bare. Target: CPU ratio ≤ 1.10.
 */
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { allowAll, installMultiagent } from '../dist/index.js';
import { ScriptedChatModel, type Turn } from '../fixtures/support/scripted-chat-model.js';
import { alternate, type Row, row, settle, type Timed, timed } from './stats.js';

const noop = tool(() => 'ok', { name: 'noop', description: 'does nothing', schema: z.object({ i: z.number() }) });

function loopAgent(calls: number): ReturnType<typeof createAgent> {
  const turns: Turn[] = [
    ...Array.from({ length: calls }, (_, i) => ({ calls: [{ name: 'noop', args: { i } }] })),
    { say: 'done' },
  ];
  return createAgent({ model: new ScriptedChatModel(turns), tools: [noop], name: 'bench' });
}

/** Times the invocations of 5 freshly built agents, per tool call (building and gating them is outside the timing). */
async function timeLoop(calls: number, gated: boolean): Promise<Timed> {
  const agents = Array.from({ length: 5 }, () => {
    const agent = loopAgent(calls);
    if (gated) installMultiagent(agent, { gate: allowAll() });
    return agent;
  });
  settle();
  return timed(async () => {
    for (const agent of agents) {
      await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { recursionLimit: 200 });
    }
  }, calls * agents.length);
}

/**
 * Runs the row.
 *
 * @param pairs - how many measured pairs
 */
export async function langGraphOverhead(pairs: number): Promise<Row> {
  const calls = 20;
  const samples = await alternate(
    pairs,
    4,
    () => timeLoop(calls, true),
    () => timeLoop(calls, false),
  );
  return row(
    'langgraph-tool-call-overhead',
    'ms/call',
    samples,
    `${calls} tool calls per invoke of a createAgent agent: gated (allow-all) vs the same agent bare`,
    { max: 1.1 },
  );
}
