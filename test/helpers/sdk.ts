/**
 * Builders for real SDK objects in tests: agents with the scripted model, tools that record each run.
 */
import { Agent, type AgentConfig, tool } from '@strands-agents/sdk';
import { afterEach, beforeEach, vi } from 'vitest';
import { z } from 'zod';
import { type ToolDecision, setDecisionObserver } from '../../src/enforce/observe.js';
import { configureGate, type Gate } from '../../src/index.js';
import { call, say, ScriptedModel, type ScriptedTurn } from '../../fixtures/support/scripted-model.js';

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

/** An agent `id` (`a` unless given) whose model calls `rm` once on `/<id>` (a recording tool), then answers its id. */
export function rmAgent(id = 'a'): Agent & { model: ScriptedModel } {
  return scriptedAgent(id, [call('rm', { path: `/${id}` }), say(id)], { tools: [recordingTool('rm')] });
}

/**
 * A tool that records its run in `ran` as `<name>@<agent>`, then waits until `until` settles: keeps an agent
 * running while something else fails.
 *
 * @param until - released when the failure happened
 * @param started - told when it starts waiting
 * @param name - the tool's name
 */
export function waitTool(until: Promise<void>, started: () => void = () => undefined, name = 'wait') {
  return tool({
    name,
    description: 'waits until released',
    inputSchema: z.object({}),
    callback: async (_input, ctx) => {
      ran.push(`${name}@${ctx?.agent.id ?? '?'}`);
      started();
      await until;
      return 'released';
    },
  });
}

/** A gate that allows every call but `rm`, on which it throws (a gate failure) after calling `onRm`. */
export function throwsOnRm(onRm: () => void = () => undefined): Gate {
  return {
    name: 'throws-on-rm',
    decide: (r) => {
      if (r.toolName === 'rm') {
        onRm();
        throw new Error('gate down');
      }
      return { verdict: 'allow' };
    },
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

/** Runs an orchestrator to the end, collecting its status and the cancel messages of its nodes (nested too). */
export async function runOrchestrator(
  orchestrator: { stream(input: string): AsyncGenerator<unknown, { status: string }> },
  input = 'go',
): Promise<{ status: string; cancelled: Record<string, string> }> {
  const cancelled: Record<string, string> = {};
  const gen = orchestrator.stream(input);
  let next = await gen.next();
  while (!next.done) {
    const event = next.value as { type?: string; nodeId?: string; message?: string; inner?: { event?: unknown } };
    const inner = event.inner?.event as { type?: string; nodeId?: string; message?: string } | undefined;
    for (const e of [event, inner]) {
      if (e?.type === 'nodeCancelEvent' && e.nodeId !== undefined) cancelled[e.nodeId] = e.message ?? '';
    }
    next = await gen.next();
  }
  return { status: next.value.status, cancelled };
}

/** The orchestrator's node map, writable: tests tamper with it the way app code can at run time. */
export function nodesOf(orchestrator: { readonly nodes: ReadonlyMap<string, unknown> }): Map<string, unknown> {
  return orchestrator.nodes as Map<string, unknown>;
}

/** A graph's edge list, writable (it is a plain array at run time). */
export function edgesOf<E>(graph: { readonly edges: readonly E[] }): E[] {
  return graph.edges as E[];
}

/**
 * Registers the usual per-test isolation: `ran` cleared, the gate's stderr log lines silenced, and the
 * process-wide gate unset afterwards.
 */
export function isolateEachTest(): void {
  beforeEach(() => {
    ran.length = 0;
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    configureGate(undefined);
    vi.restoreAllMocks();
  });
}

/** Sets a decision observer that keeps every tool decision it is told of (remove it with setDecisionObserver). */
export function observedDecisions(): ToolDecision[] {
  const seen: ToolDecision[] = [];
  setDecisionObserver({ tool: (d) => void seen.push(d), node: () => undefined });
  return seen;
}
