/**
 * The behavioural self-test: gate-audit's own guarantees, run on the loaded SDK with probe agents and a
 * scripted model. Shapes can match while behaviour changed (a new SDK path that skips
 * `BeforeToolCallEvent`), so outside the tested range gate-audit runs this once before it is used.
 *
 * Each check is a small scenario on fresh objects: nothing of the user's is touched, no network is reached.
 * It runs in a child process (`sdk-self-test-main.ts`) so that `install` can stay synchronous and the
 * probes' log lines never reach the user's terminal.
 */
import { AfterToolCallEvent, BeforeModelCallEvent, TextBlock, tool, ToolResultBlock } from '@strands-agents/sdk';
import { MultiAgentHandoffEvent } from '@strands-agents/sdk/multiagent';
import { z } from 'zod';
import { messageOf } from '../../errors.js';
import { ProbeModel, type ProbeTurn } from './probe-model.js';
import {
  Agent,
  AgentNode,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  Graph,
  Swarm,
} from './sdk-internals.js';
import type { Gate, ToolCallRequest } from '../../enforce/gate.js';
import { install, installMultiagent } from '../../enforce/install.js';
import type { SelfTestResult } from './sdk-check.js';

/** The self-test's checks, by the guarantee each one stands for. */
export const SELF_TEST_CHECKS = [
  'hook callbacks run by their order, not by when they were registered',
  "a denied tool's body does not run",
  'a node swapped in after install is cancelled',
  'a gate error stops the run',
  'the Swarm announces a handoff before the next node runs',
  "gate-audit's hooks run outermost, and what they set holds",
] as const;

class CheckFailed extends Error {}

function expectThat(condition: boolean, detail: string): void {
  if (!condition) throw new CheckFailed(detail);
}

const denyAll: Gate = { name: 'self-test-deny', decide: () => ({ verdict: 'deny', reason: 'self-test' }) };

function probeAgent(id: string, turns: readonly ProbeTurn[], tools: unknown[] = []): Agent & { model: ProbeModel } {
  return new Agent({ id, printer: false, model: new ProbeModel(turns), tools: tools as never }) as Agent & {
    model: ProbeModel;
  };
}

function recordingTool(name: string, ran: string[]): unknown {
  return tool({
    name,
    description: 'gate-audit self-test tool',
    inputSchema: z.object({}).passthrough(),
    callback: () => {
      ran.push(name);
      return 'ran';
    },
  });
}

const callTool = (name: string): ProbeTurn => ({ tools: [{ name, input: {} }] });

async function settle(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch {
    // A run that throws has stopped: what matters is what ran before it.
  }
}

async function hookOrder(): Promise<void> {
  const seen: string[] = [];
  const agent = probeAgent(
    'self-test-order',
    [callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', [])],
  );
  agent.addHook(BeforeToolCallEvent, () => void seen.push('default'));
  agent.addHook(BeforeToolCallEvent, () => void seen.push('last'), { order: Number.POSITIVE_INFINITY });
  agent.addHook(BeforeToolCallEvent, () => void seen.push('first'), { order: Number.NEGATIVE_INFINITY });
  await settle(() => agent.invoke('go'));
  expectThat(seen.join(',') === 'first,default,last', `agent hooks ran as ${seen.join(',') || 'nothing'}`);
  // Orchestrators take no order in addHook: gate-audit orders its node guard through their hook registry.
  const nodes: string[] = [];
  const graph = new Graph({
    id: 'self-test-order-graph',
    nodes: [probeAgent('self-test-o', [])],
    edges: [],
    maxSteps: 4,
  });
  const registry = (graph as unknown as { _hookRegistry: { addCallback: (...args: unknown[]) => unknown } })
    ._hookRegistry;
  graph.addHook(BeforeNodeCallEvent, () => void nodes.push('default'));
  registry.addCallback(BeforeNodeCallEvent, () => void nodes.push('last'), { order: Number.POSITIVE_INFINITY });
  registry.addCallback(BeforeNodeCallEvent, () => void nodes.push('first'), { order: Number.NEGATIVE_INFINITY });
  await settle(() => graph.invoke('go'));
  expectThat(nodes.join(',') === 'first,default,last', `orchestrator hooks ran as ${nodes.join(',') || 'nothing'}`);
}

async function deniedToolDoesNotRun(): Promise<void> {
  const ran: string[] = [];
  const lone = probeAgent(
    'self-test-lone',
    [callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', ran)],
  );
  install(lone, { gate: denyAll });
  await settle(() => lone.invoke('go'));
  const member = probeAgent(
    'self-test-member',
    [callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', ran)],
  );
  const graph = new Graph({ id: 'self-test-graph', nodes: [member], edges: [], maxSteps: 4 });
  installMultiagent(graph, { gate: denyAll });
  await settle(() => graph.invoke('go'));
  expectThat(ran.length === 0, `the denied tool ran ${ran.length} time(s)`);
  expectThat(lone.model.calls > 0 && member.model.calls > 0, 'the probe agents never ran');
}

async function swappedNodeIsCancelled(): Promise<void> {
  const ran: string[] = [];
  const gated = probeAgent('self-test-node', [{ text: 'done' }]);
  const graph = new Graph({ id: 'self-test-swap', nodes: [gated], edges: [], maxSteps: 4 });
  installMultiagent(graph, { gate: { name: 'self-test-allow', decide: () => ({ verdict: 'allow' }) } });
  const intruder = probeAgent(
    'self-test-node',
    [callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', ran)],
  );
  (graph.nodes as Map<string, unknown>).set('self-test-node', new AgentNode({ agent: intruder }));
  await settle(() => graph.invoke('go'));
  expectThat(ran.length === 0 && intruder.model.calls === 0, 'the ungated node swapped in after install ran');
}

async function gateErrorStopsRun(): Promise<void> {
  const ran: string[] = [];
  const broken: Gate = {
    name: 'self-test-broken',
    decide: () => {
      throw new Error('self-test gate failure');
    },
  };
  const agent = probeAgent(
    'self-test-error',
    [callTool('probe_tool'), callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', ran)],
  );
  install(agent, { gate: broken });
  await settle(() => agent.invoke('go'));
  expectThat(ran.length === 0, `the tool ran ${ran.length} time(s) after the gate failed`);
  expectThat(agent.model.calls <= 1, `the model was called ${agent.model.calls} times: the run went on`);
}

async function handoffBeforeNextNode(): Promise<void> {
  const seen: string[] = [];
  const kinds: ToolCallRequest['toolKind'][] = [];
  const handoff: ProbeTurn = {
    tools: [{ name: 'strands_structured_output', input: { agentId: 'self-test-b', message: 'over to b' } }],
  };
  const a = probeAgent('self-test-a', [handoff]);
  const b = probeAgent('self-test-b', [{ tools: [{ name: 'strands_structured_output', input: { message: 'done' } }] }]);
  const swarm = new Swarm({ id: 'self-test-swarm', nodes: [a, b], maxSteps: 4 });
  swarm.addHook(MultiAgentHandoffEvent, (event) => void seen.push(`handoff:${event.targets.join('+')}`));
  swarm.addHook(BeforeNodeCallEvent, (event) => void seen.push(`node:${event.nodeId}`));
  installMultiagent(swarm, {
    gate: {
      name: 'self-test-kinds',
      decide: (request) => {
        kinds.push(request.toolKind);
        return { verdict: 'allow' };
      },
    },
  });
  await settle(() => swarm.invoke('go'));
  const order = seen.join(',');
  expectThat(
    order.startsWith('node:self-test-a,handoff:self-test-b,node:self-test-b'),
    `the Swarm emitted ${order || 'nothing'}`,
  );
  expectThat(
    kinds.length > 0 && kinds.every((k) => k === 'structured-output'),
    `the handoff tool was judged as ${kinds.join(',') || 'nothing'}, not as the SDK's structured-output tool`,
  );
}

/**
 * The dispatch check (`dispatch-check.ts`) has the SDK's own `invokeCallbacks` run the list it verified, through
 * `getCallbacksFor` alone: a hook of the app tied at `-Infinity` with the after-call audit, registered after it
 * (the SDK alone would run it first), must see a result answered around the gate already withheld; one tied at
 * `+Infinity` with the model-call stop must not clear it.
 */
async function ownHooksOutermost(): Promise<void> {
  const ran: string[] = [];
  const seen: string[] = [];
  const allowed = probeAgent(
    'self-test-outermost',
    [callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', ran)],
  );
  install(allowed, { gate: { name: 'self-test-allow', decide: () => ({ verdict: 'allow' }) } });
  // eslint-disable-next-line @typescript-eslint/require-await
  allowed.addMiddleware(ExecuteToolStage, async function* (context) {
    yield* [];
    const { toolUseId } = context.toolUse;
    return { result: new ToolResultBlock({ toolUseId, status: 'success', content: [new TextBlock('around')] }) };
  });
  allowed.addHook(AfterToolCallEvent, (event) => void seen.push(event.result.status), {
    order: Number.NEGATIVE_INFINITY,
  });
  await settle(() => allowed.invoke('go'));
  expectThat(
    seen.length === 1 && seen[0] === 'error',
    `a hook tied with the after-call audit ran before it (it saw ${seen.join(',') || 'nothing'})`,
  );
  const broken: Gate = {
    name: 'self-test-broken',
    decide: () => {
      throw new Error('self-test gate failure');
    },
  };
  const stopped = probeAgent(
    'self-test-held',
    [callTool('probe_tool'), callTool('probe_tool'), { text: 'done' }],
    [recordingTool('probe_tool', ran)],
  );
  install(stopped, { gate: broken });
  stopped.addHook(BeforeModelCallEvent, (event) => void (event.cancel = false), { order: Number.POSITIVE_INFINITY });
  await settle(() => stopped.invoke('go'));
  expectThat(ran.length === 0, `the tool ran ${ran.length} time(s)`);
  expectThat(stopped.model.calls <= 1, `a hook cleared the stop: the model was called ${stopped.model.calls} times`);
}

const RUNS: readonly (() => Promise<void>)[] = [
  hookOrder,
  deniedToolDoesNotRun,
  swappedNodeIsCancelled,
  gateErrorStopsRun,
  handoffBeforeNextNode,
  ownHooksOutermost,
];

/**
 * Runs every check on the loaded SDK, in this process. Stops at the first that fails.
 *
 * @returns `{ ok: true }`, or the check that failed and what was seen
 */
export async function runSelfTest(): Promise<SelfTestResult> {
  for (const [i, run] of RUNS.entries()) {
    const check = SELF_TEST_CHECKS[i] ?? `check ${i + 1}`;
    try {
      await run();
    } catch (error) {
      return { ok: false, check, detail: messageOf(error) };
    }
  }
  return { ok: true, checks: SELF_TEST_CHECKS };
}
