/**
 * The tamper matrix: every way code that runs after the gate can change a judged call or what a node runs,
 * in every place an agent can sit. In every cell the changed call does not run (or the node is cancelled).
 *
 * The single-agent and top-level-graph cases are pinned in `test/enforce/agent-gate.test.ts` and
 * `test/enforce/node-guard.test.ts`; this matrix crosses them with the executors and nested places.
 */
import { BeforeToolCallEvent, ExecuteToolStage, HookOrder } from '@strands-agents/sdk';
import { AgentNode, Edge, Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { type Gate, GateFailedError, hasNodeGuard, install, installMultiagent, isGated } from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import {
  agentHookRegistry,
  liveCallbackArray,
  liveMiddlewareArray,
} from '../../src/frameworks/strands/sdk-internals.js';
import {
  call,
  edgesOf,
  handoff,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  rmAgent,
  runOrchestrator,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';
import { watchToolResults } from '../helpers/reliability.js';

type Scripted = ReturnType<typeof scriptedAgent>;

/** Tampering stops the run: an agent invoked on its own ends with `GateFailedError`, and nothing else. */
function expectGateFailure(error: unknown): void {
  expect(error).toBeInstanceOf(GateFailedError);
}

isolateEachTest();

/** Allows `ls` anywhere but `/etc`, handoffs and calls to agents as tools; denies everything else. */
const gate: Gate = {
  name: 'ls-only',
  decide: (r) =>
    (r.toolName === 'ls' && (r.input as { path?: string }).path !== '/etc') ||
    r.toolKind === 'structured-output' ||
    r.toolKind === 'agent'
      ? { verdict: 'allow' }
      : { verdict: 'deny', reason: 'only ls outside /etc' },
};

/** Removes the entries gate-audit registered, the way code with access to the private registries can. */
function removeOwn(entries: unknown[] | undefined, own: unknown, key: 'callback' | 'handler'): void {
  const index = entries?.findIndex((e) => (e as Record<string, unknown>)[key] === own) ?? -1;
  if (index >= 0) entries!.splice(index, 1);
}

interface Tamper {
  /** The first call the model makes (judged before the tamper acts). */
  readonly first: ReturnType<typeof call>;
  /** Applied after install. */
  apply(agent: Scripted): void;
}

const tampers: Record<string, Tamper> = {
  'a later hook mutates the input': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addHook(
        BeforeToolCallEvent,
        (e) => {
          (e.toolUse.input as { path: string }).path = '/etc';
        },
        { order: HookOrder.SDK_LAST },
      ),
  },
  'a later hook replaces the input object': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addHook(
        BeforeToolCallEvent,
        (e) => {
          (e.toolUse as { input: unknown }).input = { path: '/etc' };
        },
        { order: Infinity },
      ),
  },
  'a later hook renames the tool': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addHook(
        BeforeToolCallEvent,
        (e) => {
          e.toolUse.name = 'rm';
        },
        { order: HookOrder.SDK_LAST },
      ),
  },
  'a later hook sets selectedTool': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addHook(
        BeforeToolCallEvent,
        (e) => {
          e.selectedTool = a.toolRegistry.get('rm');
        },
        { order: Infinity },
      ),
  },
  'a later hook clears cancel on a denied call': {
    first: call('rm', { path: '/' }),
    apply: (a) =>
      a.addHook(
        BeforeToolCallEvent,
        (e) => {
          e.cancel = false;
        },
        { order: Infinity },
      ),
  },
  'a wrap middleware swaps the tool': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        return yield* next({ ...ctx, tool: a.toolRegistry.get('rm') });
      }),
  },
  'a wrap middleware swaps the input': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        return yield* next({ ...ctx, toolUse: { ...ctx.toolUse, input: { path: '/etc' } } });
      }),
  },
  'an input middleware swaps the input': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) =>
      a.addMiddleware(ExecuteToolStage.Input, (ctx) => ({
        ...ctx,
        toolUse: { ...ctx.toolUse, input: { path: '/etc' } },
      })),
  },
  'the gate hook is removed': {
    first: call('rm', { path: '/' }),
    apply: (a) =>
      removeOwn(
        liveCallbackArray(agentHookRegistry(a), BeforeToolCallEvent),
        agentGateMark(a)?.decisionHook,
        'callback',
      ),
  },
  // An allowed call: a denied one never runs anyway, so only an allowed one shows the check is missed.
  'the execution check is removed': {
    first: call('ls', { path: '/tmp' }),
    apply: (a) => removeOwn(liveMiddlewareArray(a), agentGateMark(a)?.executionCheck, 'handler'),
  },
};

interface Place {
  /** Builds the tree around `agent`, installs the gate, applies `tamper` to the agent, and runs the tree. */
  run(agent: Scripted, tamper: (a: Scripted) => void): Promise<void>;
  /** The script of the agent that makes the call, from its first call. */
  script(first: ReturnType<typeof call>): ReturnType<typeof call>[];
}

const places: Record<string, Place> = {
  'a single agent (sequential)': {
    script: (first) => [first, say('done')],
    async run(agent, tamper) {
      install(agent, { gate });
      tamper(agent);
      await agent.invoke('go').catch(expectGateFailure);
    },
  },
  'a single agent (concurrent)': {
    script: (first) => [first, say('done')],
    async run(agent, tamper) {
      agent.toolExecutor = 'concurrent';
      install(agent, { gate });
      tamper(agent);
      await agent.invoke('go').catch(expectGateFailure);
    },
  },
  'a graph nested in a swarm': {
    script: (first) => [first, say('done')],
    async run(agent, tamper) {
      const inner = new Graph({ id: 'inner', nodes: [agent], edges: [] });
      const lead = scriptedAgent('lead', [handoff('inner', 'over to you'), say('-')]);
      const swarm = new Swarm({ id: 'team', nodes: [lead, { agent: inner } as never], maxSteps: 4 });
      installMultiagent(swarm, { gate });
      tamper(agent);
      await runOrchestrator(swarm);
    },
  },
  'a swarm nested in a graph': {
    script: (first) => [first, handoff(undefined, 'done'), say('-')],
    async run(agent, tamper) {
      const swarm = new Swarm({ id: 'crew', nodes: [agent], maxSteps: 4 });
      const graph = new Graph({ id: 'root', nodes: [swarm], edges: [] });
      installMultiagent(graph, { gate });
      tamper(agent);
      await runOrchestrator(graph);
    },
  },
  'an agent used as a tool': {
    script: (first) => [first, say('done')],
    async run(agent, tamper) {
      const lead = scriptedAgent('lead', [call('worker', { input: 'do it' }), say('done')], { tools: [agent] });
      const root = new Graph({ id: 'root', nodes: [lead], edges: [] });
      installMultiagent(root, { gate });
      tamper(agent);
      await runOrchestrator(root);
    },
  },
};

describe('tampering after the decision', () => {
  for (const [tamperName, tamper] of Object.entries(tampers)) {
    describe(`when ${tamperName}`, () => {
      for (const [placeName, place] of Object.entries(places)) {
        it(`in ${placeName}: the changed call does not run`, async () => {
          const agent = scriptedAgent('worker', place.script(tamper.first), {
            tools: [recordingTool('ls'), recordingTool('rm')],
          });
          const results = watchToolResults(agent);
          await place.run(agent, (a) => tamper.apply(a));
          expect(ran).toEqual([]);
          // The tampered call is answered with a gate refusal. Where the gate hook or the execution check is
          // gone in a tree, the node or the agent-as-tool call is refused before the agent runs: no result.
          if (results.length > 0) expect(results[0]).toMatch(/^error:\[gate\] (BLOCKED|ERROR): /);
          else expect(tamperName).toMatch(/^the (gate hook|execution check) is removed$/);
        });
      }
    });
  }
});

const allowAllGate: Gate = { name: 'allow-all', decide: () => ({ verdict: 'allow' }) };

/** A three-level tree: graph › swarm › graph(c → d). Tampering happens at the innermost graph. */
function nestedTree(): { root: Graph; inner: Graph } {
  const inner = new Graph({ id: 'inner', nodes: [rmAgent('c'), rmAgent('d')], edges: [['c', 'd']], maxSteps: 5 });
  const lead = scriptedAgent('lead', [handoff('inner', 'go'), say('-')]);
  const swarm = new Swarm({ id: 'mid', nodes: [lead, { agent: inner } as never], maxSteps: 4 });
  const root = new Graph({ id: 'root', nodes: [swarm], edges: [] });
  installMultiagent(root, { gate: allowAllGate });
  return { root, inner };
}

const nodeTampers: Record<string, (inner: Graph) => void> = {
  'a node swapped in the map': (inner) => void nodesOf(inner).set('d', new AgentNode({ agent: rmAgent('d') })),
  'a shadow node behind an edge': (inner) => {
    const shadow = new AgentNode({ agent: rmAgent('d') });
    edgesOf(inner).splice(0, 1, new Edge({ source: inner.nodes.get('c')!, target: shadow }));
  },
  'the gated agent lost its gate hook': (inner) => {
    const agent = (inner.nodes.get('d') as unknown as { _agent: Scripted })._agent;
    removeOwn(
      liveCallbackArray(agentHookRegistry(agent), BeforeToolCallEvent),
      agentGateMark(agent)?.decisionHook,
      'callback',
    );
  },
};

describe('tampering with a nested node after install', () => {
  describe('when a nested node is tampered with', () => {
    for (const [what, tamper] of Object.entries(nodeTampers)) {
      it(`${what}: the node is cancelled and its tool never runs`, async () => {
        const { root, inner } = nestedTree();
        expect(hasNodeGuard(inner)).toBe(true);
        tamper(inner);
        const { cancelled } = await runOrchestrator(root);
        expect(cancelled.d).toMatch(/^\[gate\] UNGATED NODE: node "d" in "root › mid › inner"/);
        expect(ran).toEqual(['rm({"path":"/c"})@c']);
      });
    }
  });
  describe('when the nested tree is untampered', () => {
    it('an untampered nested tree runs both nodes (the cells above can fail)', async () => {
      const { root } = nestedTree();
      const { cancelled } = await runOrchestrator(root);
      expect(cancelled).toEqual({});
      expect(ran).toEqual(['rm({"path":"/c"})@c', 'rm({"path":"/d"})@d']);
    });
  });
});

describe('the matrix has teeth', () => {
  describe('when no call is tampered with', () => {
    it('an untampered call runs in every place', async () => {
      for (const [name, place] of Object.entries(places)) {
        ran.length = 0;
        const agent = scriptedAgent('worker', place.script(call('ls', { path: '/tmp' })), {
          tools: [recordingTool('ls'), recordingTool('rm')],
        });
        await place.run(agent, () => undefined);
        expect({ name, ran }).toEqual({ name, ran: ['ls({"path":"/tmp"})@worker'] });
        expect(isGated(agent)).toBe(true);
      }
    });
  });
});
