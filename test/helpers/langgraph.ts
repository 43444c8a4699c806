/**
 * Real LangGraph.js parts for tests: a scripted chat model (a `BaseChatModel` subclass, the one double) and
 * tools that record what ran. No network.
 */
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { z } from 'zod';
import type { PolicyInput } from '../../src/policy/schema.js';
import { callsOnce } from '../../fixtures/support/scripted-chat-model.js';

export { callsOnce, ScriptedChatModel, type Turn } from '../../fixtures/support/scripted-chat-model.js';

/** A tool that records each run as `name(args)` into `ran`. */
export function recordingTool(name: string, ran: string[]): StructuredToolInterface {
  return tool(
    (args: Record<string, unknown>) => {
      ran.push(`${name}(${JSON.stringify(args)})`);
      return Promise.resolve(`${name} ok`);
    },
    { name, description: `${name} tool`, schema: z.object({ path: z.string().optional(), q: z.string().optional() }) },
  );
}

/** Text of every message of a result. */
export function messagesOf(result: { messages: BaseMessage[] }): string[] {
  return result.messages.map(
    (m) => `${m.getType()}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
  );
}

/** A graph whose one node is a prebuilt tool node with these tools (`START → tools → END`). */
export function toolNodeGraph(name: string, tools: StructuredToolInterface[], options?: Record<string, unknown>) {
  return new StateGraph(MessagesAnnotation)
    .addNode('tools', new ToolNode(tools), options as never)
    .addEdge(START, 'tools')
    .addEdge('tools', END)
    .compile({ name });
}

/** Graph input whose last message asks for these tool calls (a tool node runs them in parallel). */
export function askingFor(...calls: { name: string; path: string }[]): { messages: AIMessage[] } {
  return {
    messages: [
      new AIMessage({
        content: '',
        tool_calls: calls.map((c, i) => ({
          name: c.name,
          args: { path: c.path },
          id: `c${i}-${c.path}`,
          type: 'tool_call' as const,
        })),
      }),
    ],
  };
}

/** A policy that denies `shell` at `desk/worker/tools` only (for a node that runs there and elsewhere). */
export const NOT_IN_DESK: PolicyInput = {
  version: 1,
  default: 'deny',
  rules: [
    { id: 'no-shell-in-desk', tools: ['shell'], paths: ['desk/worker/tools'], verdict: 'deny', reason: 'not here' },
    { id: 'shell-elsewhere', tools: ['shell'], verdict: 'allow' },
  ],
};

/**
 * A `createAgent` agent `worker` whose model runs `shell` once (recorded into `ran`), and a graph `desk` whose one
 * node is the worker's graph: the worker's tool node runs at `worker/tools` and at `desk/worker/tools`.
 */
export function workerInDesk(ran: string[]) {
  const worker = createAgent({
    model: callsOnce('shell', { command: 'rm -rf /srv' }),
    tools: [recordingTool('shell', ran)],
    name: 'worker',
  });
  const desk = new StateGraph(MessagesAnnotation)
    .addNode('worker', worker.graph)
    .addEdge(START, 'worker')
    .addEdge('worker', END)
    .compile({ name: 'desk' });
  return { worker, desk };
}
