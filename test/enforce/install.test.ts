/**
 * `installMultiagent` and `install` (`src/enforce/install.ts`): preflight before any change, refusals, conflicts,
 * idempotence, rollback of a failure midway, and the fields locked once everything is installed. Each test of the
 * block "installMultiagent and install (install.ts, line by line)" (and of the line-by-line blocks of install.accept.test.ts and install.sdk-mismatch.test.ts)
 * fails when the line it names is changed.
 *
 * Surviving mutants of install.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - `accept.length === 0` (→ `false`) in `acceptedEntries`: an empty list runs the loop zero times.
 * - `!ACCEPTABLE.has(kind) || (entry.kind !== 'remote' && entry.kind !== 'custom')` (→ `&&`, or the kind test →
 *   `false`): the walker gives the acceptable problem kinds only to `remote` and `custom` entries.
 * - `parent === undefined` (→ `false`) in `acceptedEntries`: only the root has no parent, and it is a graph or swarm.
 * - `acceptedByOrchestrator`'s `orchestrator === undefined` and `typeof nodes === 'string'`: an accepted entry's
 *   parent is in the inventory, and a node map that cannot be read was refused by the preflight.
 * - `acceptedByOrchestrator`'s `via === 'agent-node' || …` (→ `true`) and `node === entry.target` (→ `false`): for
 *   a node that is no AgentNode or MultiAgentNode the object is the node itself, so each half matches on its own.
 * - `existingHandle`'s `mark?.path ?? […]` and `mark?.gateName ?? 'unknown'`: only reached for a gated agent, whose
 *   mark is set, and GatePlugin's mark path is the same.
 * - the pending-plugin gate source computed for an agent already gated: `installAgentGate` skips that agent.
 * - `lockTree`'s `readAgentTool(tool).kind === 'agent-tool'` (→ `true`): freezing `_agent` on a tool that has none
 *   changes nothing; its `typeof nodes !== 'string'` (→ `true`): the preflight refused such a node map.
 * - `guards.reverse()` / `installed.reverse()` in the rollback (→ no reverse): each cleanup removes only its own
 *   hooks, by identity.
 *
 * Surviving mutant of gate-source.ts, equivalent: `typeof ms !== 'number'` (→ `false`): `Number.isFinite` does not
 * coerce, so it refuses every non-number anyway.
 */
import {
  Agent,
  BeforeInvocationEvent,
  BeforeToolCallEvent,
  ConcurrentToolExecutor,
  SequentialToolExecutor,
} from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { Edge, Graph, MultiAgentNode, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  configureGate,
  denyAll,
  type GateAuditError,
  GatePlugin,
  type Gate,
  GateConflictError,
  hasNodeGuard,
  install,
  installMultiagent,
  isGated,
  NoGateError,
  UngateableError,
} from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
import { liveMiddlewareArray, nodeCallHooks, toolCallHooks } from '../../src/frameworks/strands/sdk-internals.js';
import { buildResearchGraph } from '../../fixtures/graphs/research-graph.js';
import { buildSupportSwarm } from '../../fixtures/graphs/support-swarm.js';
import {
  call,
  handoff,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
} from '../helpers/sdk.js';

const denyRm: Gate = {
  name: 'deny-rm',
  decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
};

/** A gate that allows after 150 ms: within the default timeout, past a GatePlugin's 20 ms. */
function slowGate(): Gate {
  return {
    name: 'slow',
    decide: async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { verdict: 'allow' };
    },
  };
}

function hookCount(graph: Graph | Swarm): number {
  let n = nodeCallHooks(graph)?.length ?? 0;
  for (const node of graph.nodes.values()) {
    const agent = (node as { _agent?: unknown })._agent;
    if (agent instanceof Agent) n += toolCallHooks(agent)?.length ?? 0;
    const nested = (node as { orchestrator?: unknown }).orchestrator;
    if (nested instanceof Graph || nested instanceof Swarm) n += hookCount(nested);
  }
  return n;
}

isolateEachTest();

describe('installMultiagent', () => {
  describe('when a graph nests a swarm', () => {
    it("gates the swarm's agents and guards both orchestrators", () => {
      const graph = buildResearchGraph();
      const handles = installMultiagent(graph, { gate: allowAll() });
      expect(handles.map((h) => h.path.join('/'))).toEqual([
        'research/planner',
        'research/research-team/searcher',
        'research/research-team/summarizer',
        'research/writer',
      ]);
      expect(handles.every((h) => isGated(h.agent) && h.gateName === 'allow-all')).toBe(true);
      const team = (graph.nodes.get('research-team') as unknown as { orchestrator: Swarm }).orchestrator;
      expect(hasNodeGuard(graph)).toBe(true);
      expect(hasNodeGuard(team)).toBe(true);
    });

    it('runs the whole tree under the gate: inner swarm tools are judged with their full path', async () => {
      const s1 = scriptedAgent('s1', [call('rm', { path: '/s1' }), handoff('s2', 'go'), say('-')], {
        tools: [recordingTool('rm')],
      });
      const s2 = scriptedAgent('s2', [call('ls', { path: '/s2' }), handoff(undefined, 'done'), say('-')], {
        tools: [recordingTool('ls')],
      });
      const inner = new Swarm({ id: 'team', nodes: [s1, s2], maxSteps: 5 });
      const first = scriptedAgent('first', [call('rm', { path: '/first' }), say('ok')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({ id: 'outer', nodes: [first, inner], edges: [['first', 'team']], maxSteps: 5 });
      const paths: string[] = [];
      installMultiagent(graph, {
        gate: {
          name: 'spy',
          decide: (r) => {
            paths.push(`${r.path.join('/')}:${r.toolName}:${r.toolKind}`);
            return denyRm.decide(r);
          },
        },
      });
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('COMPLETED');
      expect(ran).toEqual(['ls({"path":"/s2"})@s2']);
      expect(paths).toEqual([
        'outer/first:rm:function',
        'outer/team/s1:rm:function',
        'outer/team/s1:strands_structured_output:structured-output',
        'outer/team/s2:ls:function',
        'outer/team/s2:strands_structured_output:structured-output',
      ]);
    });
  });

  describe('when agents are used as tools', () => {
    it('gates the inner agent so its own tools are judged', async () => {
      const helper = scriptedAgent('helper', [call('rm', { path: '/inner' }), say('helped')], {
        tools: [recordingTool('rm')],
      });
      const outer = scriptedAgent('outer', [call('helper', { input: 'do it' }), say('done')], { tools: [helper] });
      const graph = new Graph({ id: 'g', nodes: [outer], edges: [] });
      const handles = installMultiagent(graph, { gate: denyRm });
      expect(handles.map((h) => h.path.join('/'))).toEqual(['g/outer', 'g/outer/helper']);
      await graph.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(helper)[0]).toMatch(/^error:\[gate\] BLOCKED: no rm/);
    });

    it('judges a delegate agent-as-tool once, by the inner gate', async () => {
      const helper = scriptedAgent('helper', [call('rm', { path: '/inner' }), say('helped')], {
        tools: [recordingTool('rm')],
      });
      const outer = scriptedAgent('outer', [call('helper', { input: 'x' }), say('done')], {
        tools: [helper.asTool({ delegate: true })],
      });
      const seen: string[] = [];
      installMultiagent(new Graph({ id: 'g', nodes: [outer], edges: [] }), {
        gate: {
          name: 'spy',
          decide: (r) => {
            seen.push(`${r.agentId}:${r.toolName}`);
            return denyRm.decide(r);
          },
        },
      });
      await outer.invoke('go');
      expect(ran).toEqual([]);
      expect(seen).toEqual(['outer:helper', 'helper:rm']);
    });

    it('refuses an inner call re-yielded to the outer gate when the inner agent lost its gate mid-run', async () => {
      const helper = scriptedAgent('helper', [call('rm', { path: '/inner' }), say('helped')], {
        tools: [recordingTool('rm')],
      });
      const outer = scriptedAgent('outer', [call('helper', { input: 'x' }), say('done')], {
        tools: [helper.asTool({ delegate: true })],
      });
      const handles = installMultiagent(new Graph({ id: 'g', nodes: [outer], edges: [] }), { gate: allowAll() });
      helper.addHook(BeforeInvocationEvent, () => handles.find((h) => h.agent === helper)!.uninstall());
      await outer.invoke('go');
      expect(ran).toEqual([]);
    });

    it('refuses a call to an agent-as-tool added after install, whose agent carries no gate', async () => {
      const outer = scriptedAgent('outer', [call('late', { input: 'x' }), say('done')]);
      installMultiagent(new Graph({ id: 'g', nodes: [outer], edges: [] }), { gate: allowAll() });
      const late = scriptedAgent('late', [call('rm', { path: '/late' }), say('x')], { tools: [recordingTool('rm')] });
      outer.toolRegistry.add(late.asTool());
      await outer.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(outer)[0]).toMatch(/^error:\[gate\] BLOCKED: tool "late" runs an agent that carries no gate/);
    });
  });

  describe('when it checks the tree before changing anything (refusing before mutating)', () => {
    it('lists every ungateable part in one UngateableError and adds no hook anywhere', () => {
      class ScriptNode extends Node {
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        async *handle(): AsyncGenerator<never, never> {
          throw new Error('never run');
        }
      }
      class SneakyAgent extends Agent {
        // eslint-disable-next-line require-yield, @typescript-eslint/require-await
        override async *stream(): ReturnType<Agent['stream']> {
          throw new Error('never runs');
        }
      }
      const patched = scriptedAgent('patched', [say('x')]);
      patched.invoke = patched.invoke.bind(patched);
      const customExecutor = scriptedAgent('executor', [say('x')]);
      class FastExecutor extends SequentialToolExecutor {}
      customExecutor.toolExecutor = new FastExecutor();
      const good = scriptedAgent('good', [say('x')], { tools: [recordingTool('ls')] });
      const inner = new Swarm({
        id: 'inner',
        nodes: [scriptedAgent('in1', [say('x')]), new A2AAgent({ id: 'deep-remote', url: 'http://127.0.0.1:9/x' })],
      });
      const graph = new Graph({
        id: 'g',
        nodes: [
          good,
          new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' }),
          new ScriptNode('script', {}),
          { orchestrator: { id: 'cma', invoke: () => undefined, stream: () => undefined } } as never,
          { id: 'plain', invoke: () => undefined, stream: () => undefined } as never,
          new SneakyAgent({ id: 'sneaky', model: good.model, printer: false }),
          patched,
          customExecutor,
          inner,
        ],
        edges: [],
      });
      const hooksBefore = hookCount(graph);
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UngateableError);
      const ungateable = error as UngateableError;
      expect(ungateable.code).toBe('UNGATEABLE');
      expect(ungateable.findings.map((f) => `${f.path.join('/')}:${f.kind}`)).toEqual([
        'g/remote:remote',
        'g/script:custom-node',
        'g/cma:foreign-executor',
        'g/plain:foreign-executor',
        'g/sneaky:agent-override',
        'g/patched:agent-override',
        'g/executor:tool-executor',
        'g/inner/deep-remote:remote',
      ]);
      expect(ungateable.message).toContain('"g › remote" is an A2AAgent');
      expect(hookCount(graph)).toBe(hooksBefore);
      expect(isGated(good)).toBe(false);
      expect(hasNodeGuard(graph)).toBe(false);
    });

    it('accepts both SDK executors', () => {
      const seq = scriptedAgent('seq', [say('x')], { toolExecutor: 'sequential' });
      const conc = scriptedAgent('conc', [say('x')], { toolExecutor: new ConcurrentToolExecutor() });
      expect(
        installMultiagent(new Graph({ id: 'g', nodes: [seq, conc], edges: [] }), { gate: allowAll() }),
      ).toHaveLength(2);
    });

    it('refuses an orchestrator nested in itself', () => {
      const inner = new Swarm({ id: 'loop', nodes: [scriptedAgent('a', [say('x')])] });
      const outer = new Graph({ id: 'outer', nodes: [inner], edges: [] });
      nodesOf(inner).set('back', new MultiAgentNode({ orchestrator: outer }));
      let error: unknown;
      try {
        installMultiagent(outer, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect((error as UngateableError).findings).toContainEqual(
        expect.objectContaining({ path: ['outer', 'loop', 'back'], kind: 'cycle' }),
      );
    });

    it('refuses a graph whose edges already hold a shadow node', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('c', [say('x')]), scriptedAgent('d', [say('x')])],
        edges: [['c', 'd']],
      });
      const shadow = new Graph({ id: 'tmp', nodes: [scriptedAgent('d', [say('x')])], edges: [] }).nodes.get('d')!;
      (graph.edges[0] as { target: unknown }).target = shadow;
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(
        /edge target node "d" is not the object in nodes/,
      );
    });

    it('rolls back everything it added when a step fails midway', () => {
      const graph = buildResearchGraph();
      const writer = (graph.nodes.get('writer') as unknown as { agent: Agent }).agent;
      // A mark key held by something else, fixed in place: the walk sees no gate there, and marking the
      // writer (the last agent) fails after three agents were gated.
      Object.defineProperty(writer, Symbol.for('gate-audit.agent-gate.v1'), { value: undefined });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect((error as GateAuditError).code).toBe('INSTALL_FAILED');
      expect(hasNodeGuard(graph)).toBe(false);
      for (const node of ['planner', 'writer']) {
        expect(isGated((graph.nodes.get(node) as unknown as { agent: Agent }).agent)).toBe(false);
      }
      expect(toolCallHooks((graph.nodes.get('planner') as unknown as { agent: Agent }).agent)).toHaveLength(0);
    });

    it('rejects a root that is not a Graph or Swarm', () => {
      expect(() => installMultiagent(scriptedAgent('a', [say('x')]) as never, { gate: allowAll() })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    });
  });

  describe('when it is called again or agents already carry a gate (idempotence)', () => {
    it('returns [] on a second call with the same gate and adds no hook', () => {
      const graph = buildResearchGraph();
      const gate = allowAll();
      expect(installMultiagent(graph, { gate })).toHaveLength(4);
      const hooks = hookCount(graph);
      expect(installMultiagent(graph, { gate })).toEqual([]);
      expect(hookCount(graph)).toBe(hooks);
    });

    it('does not gate twice an agent gated by install() or by GatePlugin with the same gate', async () => {
      const gate = {
        name: 'counting',
        calls: 0,
        decide(): { verdict: 'allow' } {
          this.calls += 1;
          return { verdict: 'allow' };
        },
      };
      const byInstall = scriptedAgent('by-install', [call('ls'), say('x')], { tools: [recordingTool('ls')] });
      const byPlugin = scriptedAgent('by-plugin', [call('ls'), say('x')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate })],
      });
      install(byInstall, { gate });
      const graph = new Graph({ id: 'g', nodes: [byInstall, byPlugin], edges: [] });
      // The agent waiting on its GatePlugin gets the plugin's gate now; the plugin then finds it gated.
      expect(installMultiagent(graph, { gate }).map((h) => h.agent)).toEqual([byPlugin]);
      expect(hasNodeGuard(graph)).toBe(true);
      await graph.invoke('go');
      expect(gate.calls).toBe(2);
      expect(ran).toEqual(['ls({})@by-install', 'ls({})@by-plugin']);
    });

    it('refuses, before changing anything, agents that already carry another gate (GateConflictError)', async () => {
      const byInstall = scriptedAgent('by-install', [call('ls'), say('x')], { tools: [recordingTool('ls')] });
      const byPlugin = scriptedAgent('by-plugin', [call('ls'), say('x')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate: allowAll() })],
      });
      const gate = {
        name: 'counting',
        calls: 0,
        decide(): { verdict: 'allow' } {
          this.calls += 1;
          return { verdict: 'allow' };
        },
      };
      install(byInstall, { gate });
      const graph = new Graph({ id: 'g', nodes: [byInstall, byPlugin], edges: [] });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: denyAll() });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GateConflictError);
      expect((error as GateConflictError).code).toBe('GATE_CONFLICT');
      expect((error as GateConflictError).conflicts).toEqual([
        { path: ['g', 'by-install'], existing: 'counting', requested: 'deny-all' },
        { path: ['g', 'by-plugin'], existing: 'allow-all', requested: 'deny-all' },
      ]);
      expect(hasNodeGuard(graph)).toBe(false);
      await graph.invoke('go');
      expect(gate.calls).toBe(1);
    });

    it('re-installs a gate whose hook was removed', () => {
      const graph = buildResearchGraph();
      const gate = allowAll();
      const [first] = installMultiagent(graph, { gate });
      first!.uninstall();
      expect(installMultiagent(graph, { gate }).map((h) => h.agent.id)).toEqual(['planner']);
    });

    it('agrees with the marks a second copy of gate-audit leaves (Symbol.for keys)', () => {
      const agent = scriptedAgent('a', [say('x')]);
      install(agent, { gate: allowAll() });
      const keys = Object.getOwnPropertySymbols(agent).map((s) => Symbol.keyFor(s));
      expect(keys).toContain('gate-audit.agent-gate.v1');
    });
  });

  describe('when no gate is given', () => {
    it('throws NoGateError at once and changes nothing', () => {
      const graph = buildSupportSwarm();
      expect(() => installMultiagent(graph)).toThrow(NoGateError);
      expect(() => install(scriptedAgent('a', [say('x')]))).toThrow(expect.objectContaining({ code: 'NO_GATE' }));
      expect(hasNodeGuard(graph)).toBe(false);
    });

    it('rejects something that is not a gate', () => {
      expect(() =>
        installMultiagent(buildSupportSwarm(), { gate: { decide: () => ({ verdict: 'allow' }) } as never }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    });

    it('uses the configured gate, resolved at each call', async () => {
      const agent = scriptedAgent('a', [call('rm'), call('rm'), say('x')], { tools: [recordingTool('rm')] });
      configureGate(allowAll());
      installMultiagent(new Graph({ id: 'g', nodes: [agent], edges: [] }));
      configureGate(denyAll('changed my mind'));
      await agent.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: changed my mind/);
    });
  });

  describe('when other code adds a gate-like hook', () => {
    it('ignores the hook order other code uses: a foreign gate-like hook does not count as a gate', () => {
      const agent = scriptedAgent('a', [say('x')]);
      agent.addHook(BeforeToolCallEvent, () => undefined);
      expect(isGated(agent)).toBe(false);
    });
  });
});

describe('installMultiagent and install (install.ts, line by line)', () => {
  const configurable = (owner: object, key: string): boolean | undefined =>
    Object.getOwnPropertyDescriptor(owner, key)?.configurable;

  describe('when install() is called on an agent it gated already', () => {
    it('returns the same handle for the same gate and options', () => {
      const agent = scriptedAgent('a', [say('x')]);
      const gate = allowAll();
      const first = install(agent, { gate });
      expect(install(agent, { gate })).toBe(first);
    });

    it('still checks its options: a bad timeoutMs is INVALID_ARGUMENT, as on the first call', () => {
      const agent = scriptedAgent('a', [say('x')]);
      const gate = allowAll();
      install(agent, { gate });
      expect(() => install(agent, { gate, timeoutMs: -5 })).toThrow(/options\.timeoutMs must be a positive number/);
    });

    it('still needs a gate: with the configured gate unset it throws NoGateError, as installMultiagent does', () => {
      const agent = scriptedAgent('a', [say('x')]);
      configureGate(allowAll());
      install(agent);
      configureGate(undefined);
      expect(() => install(agent)).toThrow(NoGateError);
      const graph = new Graph({ id: 'g', nodes: [agent], edges: [] });
      expect(() => installMultiagent(graph)).toThrow(NoGateError);
    });
  });

  describe('when it checks its options (timeoutMs, gate)', () => {
    for (const [what, timeoutMs] of [
      ['zero', 0],
      ['negative', -5],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['a string', '100'],
    ] as const) {
      it(`refuses ${what} with INVALID_ARGUMENT naming the subject, and gates nothing`, () => {
        const agent = scriptedAgent('a', [say('x')]);
        const graph = new Graph({ id: 'g', nodes: [scriptedAgent('b', [say('x')])], edges: [] });
        expect(() => install(agent, { gate: allowAll(), timeoutMs: timeoutMs as number })).toThrow(
          expect.objectContaining({
            code: 'INVALID_ARGUMENT',
            message: 'subject=<install(agent "a")> | options.timeoutMs must be a positive number of milliseconds',
          }),
        );
        expect(() => installMultiagent(graph, { gate: allowAll(), timeoutMs: timeoutMs as number })).toThrow(
          expect.objectContaining({
            code: 'INVALID_ARGUMENT',
            message: expect.stringContaining('installMultiagent("g")') as string,
          }),
        );
        expect(isGated(agent)).toBe(false);
        expect(hasNodeGuard(graph)).toBe(false);
      });
    }

    it("gives an agent of a tree that waits on its GatePlugin the plugin's timeout, not the tree's", async () => {
      const slow = slowGate();
      const agentOf = (id: string, plugins: GatePlugin[]): Agent =>
        scriptedAgent(id, [call('ls'), say('x')], { tools: [recordingTool('ls')], plugins });
      // Without a plugin, the tree's timeout (the default, seconds) lets the slow gate answer: the call runs.
      const plain = agentOf('plain', []);
      installMultiagent(new Graph({ id: 'g', nodes: [plain], edges: [] }), { gate: slow });
      await plain.invoke('go');
      expect(ran).toEqual(['ls({})@plain']);
      // The plugin's 20 ms are kept: the gate times out and the call never runs.
      const waiting = agentOf('waiting', [new GatePlugin({ gate: slow, timeoutMs: 20 })]);
      const graph = new Graph({ id: 'g', nodes: [waiting], edges: [] });
      installMultiagent(graph, { gate: slow });
      const result = await graph.invoke('go');
      expect(ran).toEqual(['ls({})@plain']);
      expect(result.results.map((r) => `${r.nodeId}:${r.status}:${String(r.error)}`)).toEqual([
        expect.stringMatching(/^waiting:FAILED:.*gate "slow" did not decide within 20 ms/),
      ]);
    });

    it('accepts one millisecond', () => {
      const agent = scriptedAgent('a', [say('x')]);
      expect(install(agent, { gate: allowAll(), timeoutMs: 1 }).isActive()).toBe(true);
    });

    it('refuses a gate that is not a Gate with a message that says what to pass', () => {
      expect(() => install(scriptedAgent('a', [say('x')]), { gate: { name: 'x' } as never })).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          message:
            'subject=<install(agent "a")> | options.gate is not a Gate | pass an object with a string name and a decide() method',
        }),
      );
    });
  });

  describe('when it locks the tree once everything is installed', () => {
    it('makes the fields the SDK reads to choose what runs non-configurable, and only after install', () => {
      const helper = scriptedAgent('helper', [say('x')]);
      const tool = helper.asTool();
      const team = new Swarm({ id: 'team', nodes: [scriptedAgent('s1', [say('x')]), scriptedAgent('s2', [say('x')])] });
      const first = scriptedAgent('first', [say('x')], { tools: [tool] });
      const graph = new Graph({ id: 'g', nodes: [first, team], edges: [['first', 'team']] });
      const agentNode = graph.nodes.get('first')!;
      const teamNode = graph.nodes.get('team')!;
      const edge = graph.edges[0]!;
      const fields: [object, string][] = [
        [graph, 'nodes'],
        [graph, '_hookRegistry'],
        [graph, 'edges'],
        [graph, '_sources'],
        [team, 'nodes'],
        [team, '_hookRegistry'],
        [team, 'start'],
        [agentNode, '_agent'],
        [agentNode, 'id'],
        [teamNode, '_orchestrator'],
        [teamNode, 'id'],
        [team.nodes.get('s2')!, '_agent'],
        [edge, 'source'],
        [edge, 'target'],
        [tool, '_agent'],
        [first, '_toolRegistry'],
        [helper, '_toolRegistry'],
      ];
      expect(fields.map(([owner, key]) => configurable(owner, key))).toEqual(fields.map(() => true));
      installMultiagent(graph, { gate: allowAll() });
      expect(fields.map(([owner, key]) => `${key}:${String(configurable(owner, key))}`)).toEqual(
        fields.map(([, key]) => `${key}:false`),
      );
      expect(configurable(graph, 'id')).toBe(true);
      expect(configurable(team, 'id')).toBe(true);
    });

    it("leaves the fields of the app's own tools as they were, whatever they hold", () => {
      const helper = scriptedAgent('helper', [say('x')]);
      // A tool of the app's own that keeps an agent in a field named as the SDK's agent-as-tool names it.
      const own = recordingTool('own');
      Object.defineProperty(own, '_agent', { value: helper, writable: true, configurable: true, enumerable: true });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')], { tools: [own] })], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      expect(configurable(own, '_agent')).toBe(true);
    });

    it('locks nothing when the install is refused', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('a', [say('x')]), new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' })],
        edges: [['a', 'remote']],
      });
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(UngateableError);
      expect(configurable(graph, 'nodes')).toBe(true);
      expect(configurable(graph.edges[0]!, 'target')).toBe(true);
    });
  });

  describe('when the root is a Proxy, not an orchestrator, or a Swarm', () => {
    it('refuses a Proxy around a Graph as a Proxy (UngateableError), not as a wrong argument', () => {
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')])], edges: [] });
      let error: unknown;
      try {
        installMultiagent(new Proxy(graph, {}), { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UngateableError);
      expect((error as UngateableError).findings.map((f) => f.kind)).toEqual(['proxy']);
      expect(hasNodeGuard(graph)).toBe(false);
    });

    it('names what it got and what to pass instead when the root is not an orchestrator', () => {
      expect(() => installMultiagent({ id: 'x' } as never, { gate: allowAll() })).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          message:
            'value=<Object> | installMultiagent expects a Graph or Swarm | pass the orchestrator; use install(agent) for a single agent',
        }),
      );
    });

    it('installs on a Swarm root', () => {
      const swarm = new Swarm({ id: 's', nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('x')])] });
      expect(installMultiagent(swarm, { gate: allowAll() }).map((h) => h.path.join('/'))).toEqual(['s/a', 's/b']);
      expect(hasNodeGuard(swarm)).toBe(true);
    });
  });

  describe('when a step fails midway (rolling back)', () => {
    it('removes the guards and gates already added when guarding a nested orchestrator fails, and says so', () => {
      const graph = buildResearchGraph();
      const team = (graph.nodes.get('research-team') as unknown as { orchestrator: Swarm }).orchestrator;
      // The guard mark's key held by something else, fixed in place: the walk sees no guard on the inner swarm,
      // and marking it fails after every agent was gated and the outer graph guarded.
      Object.defineProperty(team, Symbol.for('gate-audit.node-guard.v1'), { value: undefined });
      const hooksBefore = hookCount(graph);
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      const failed = error as GateAuditError;
      expect(failed.code).toBe('INSTALL_FAILED');
      expect(failed.message).toMatch(
        /^orchestrator=<research> \| install failed midway \(guard of "research-team"\) and was rolled back: \S/,
      );
      expect(failed.cause).toBeInstanceOf(Error);
      expect(failed.message).toContain((failed.cause as Error).message);
      expect(hookCount(graph)).toBe(hooksBefore);
      expect(hasNodeGuard(graph)).toBe(false);
      const agents = [...graph.nodes.values()].flatMap((node) => {
        const agent = (node as { _agent?: unknown })._agent;
        return agent instanceof Agent ? [agent] : [];
      });
      agents.push(...[...team.nodes.values()].map((node) => (node as unknown as { _agent: Agent })._agent));
      expect(agents).toHaveLength(4);
      expect(agents.filter((agent) => isGated(agent))).toEqual([]);
      // Nothing was locked, and a later install on the repaired parts starts from scratch.
      expect(Object.getOwnPropertyDescriptor(graph, 'nodes')?.configurable).toBe(true);
      const planner = agents[0]!;
      const handle = install(planner, { gate: allowAll() });
      expect(handle.path).toEqual(['planner']);
    });

    it('rolls back cleanly when an orchestrator it skipped was guarded already', () => {
      const guardedBefore = new Swarm({ id: 'before', nodes: [scriptedAgent('b1', [say('x')])] });
      const failing = new Swarm({ id: 'failing', nodes: [scriptedAgent('f1', [say('x')])] });
      const gate = allowAll();
      installMultiagent(guardedBefore, { gate });
      Object.defineProperty(failing, Symbol.for('gate-audit.node-guard.v1'), { value: undefined });
      const graph = new Graph({
        id: 'outer',
        nodes: [scriptedAgent('a', [say('x')]), guardedBefore, failing],
        edges: [],
      });
      expect(() => installMultiagent(graph, { gate })).toThrow(expect.objectContaining({ code: 'INSTALL_FAILED' }));
      expect(hasNodeGuard(graph)).toBe(false);
      expect(hasNodeGuard(guardedBefore)).toBe(true);
      expect(isGated((guardedBefore.nodes.get('b1') as unknown as { agent: Agent }).agent)).toBe(true);
      expect(isGated((graph.nodes.get('a') as unknown as { agent: Agent }).agent)).toBe(false);
    });
  });

  describe('when a node is swapped in after install (the node guard)', () => {
    it("is given the install's gate: a node swapped in after install is cancelled and recorded to that gate", async () => {
      const records: { event: string; nodeId?: string }[] = [];
      const gate: Gate = {
        name: 'recording',
        decide: () => ({ verdict: 'allow' }),
        record: (r) => {
          records.push({ event: r.event, nodeId: r.nodeId });
        },
      };
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('x')])],
        edges: [['a', 'b']],
        maxSteps: 5,
      });
      installMultiagent(graph, { gate });
      const rogue = new Graph({ id: 'tmp', nodes: [scriptedAgent('b', [say('x')])], edges: [] }).nodes.get('b')!;
      nodesOf(graph).set('b', rogue);
      (graph.edges as unknown as Edge[])[0] = new Edge({ source: graph.nodes.get('a')!, target: rogue });
      const { cancelled } = await runOrchestrator(graph);
      expect(cancelled.b).toBeDefined();
      expect(records.filter((r) => r.event === 'node-cancelled')).toEqual([{ event: 'node-cancelled', nodeId: 'b' }]);
    });
  });

  describe('install(agent)', () => {
    describe('when the agent cannot be gated (a remote agent, a Graph, an agent with a problem of its own)', () => {
      it('refuses a remote agent with its finding at the agent path', () => {
        let error: unknown;
        try {
          install(new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' }) as never, { gate: allowAll() });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(UngateableError);
        expect((error as UngateableError).findings.map((f) => `${f.path.join('/')}:${f.kind}`)).toEqual([
          'remote:remote',
        ]);
      });

      it('refuses a Graph, pointing at installMultiagent', () => {
        const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')])], edges: [] });
        let error: unknown;
        try {
          install(graph as never, { gate: allowAll() });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(UngateableError);
        expect((error as UngateableError).findings).toEqual([
          {
            path: ['g'],
            kind: 'foreign-executor',
            reason: 'is a graph, not an Agent',
            fix: 'use installMultiagent for a Graph or Swarm',
          },
        ]);
        expect(hasNodeGuard(graph)).toBe(false);
      });

      it('refuses an Agent that has a problem of its own (a custom tool executor), gating nothing', () => {
        class FastExecutor extends SequentialToolExecutor {}
        const agent = scriptedAgent('a', [say('x')]);
        agent.toolExecutor = new FastExecutor();
        let error: unknown;
        try {
          install(agent, { gate: allowAll() });
        } catch (e) {
          error = e;
        }
        expect((error as UngateableError).findings.map((f) => `${f.path.join('/')}:${f.kind}`)).toEqual([
          'a:tool-executor',
        ]);
        expect(isGated(agent)).toBe(false);
      });
    });

    describe('when the agent already carries a gate or a pending GatePlugin', () => {
      it('refuses an agent that carries another gate, naming both, and leaves the first gate in place', async () => {
        const agent = scriptedAgent('a', [call('ls'), say('x')], { tools: [recordingTool('ls')] });
        install(agent, { gate: allowAll() });
        let error: unknown;
        try {
          install(agent, { gate: denyAll() });
        } catch (e) {
          error = e;
        }
        expect((error as GateConflictError).conflicts).toEqual([
          { path: ['a'], existing: 'allow-all', requested: 'deny-all' },
        ]);
        configureGate(denyAll());
        expect(() => install(agent)).toThrow(GateConflictError);
        try {
          install(agent);
        } catch (e) {
          expect((e as GateConflictError).conflicts).toEqual([
            { path: ['a'], existing: 'allow-all', requested: 'configured' },
          ]);
        }
        await agent.invoke('go');
        expect(ran).toEqual(['ls({})@a']);
      });

      it('refuses a gate other than the one a pending GatePlugin will install', () => {
        const agent = scriptedAgent('a', [say('x')], { plugins: [new GatePlugin({ gate: allowAll() })] });
        expect(() => install(agent, { gate: denyAll() })).toThrow(
          expect.objectContaining({
            code: 'GATE_CONFLICT',
            conflicts: [{ path: ['a'], existing: 'allow-all', requested: 'deny-all' }],
          }),
        );
        const configured = scriptedAgent('c', [say('x')], { plugins: [new GatePlugin()] });
        expect(() => install(configured, { gate: denyAll() })).toThrow(
          expect.objectContaining({ conflicts: [{ path: ['c'], existing: 'configured', requested: 'deny-all' }] }),
        );
      });

      it('hands back a handle on a gate a GatePlugin installed, which reports it and cannot remove it', async () => {
        const gate = allowAll();
        const agent = scriptedAgent('a', [say('x'), call('ls'), say('y')], {
          tools: [recordingTool('ls')],
          plugins: [new GatePlugin({ gate })],
        });
        await agent.invoke('go');
        const handle = install(agent, { gate });
        expect({ path: handle.path, gateName: handle.gateName, active: handle.isActive() }).toEqual({
          path: ['a'],
          gateName: 'allow-all',
          active: true,
        });
        expect(handle.agent).toBe(agent);
        handle.uninstall();
        expect(isGated(agent)).toBe(true);
        // Its execution check removed behind its back, the gate is no longer active, and the handle says so.
        const middleware = liveMiddlewareArray(agent) ?? [];
        middleware.splice(
          middleware.findIndex((m) => (m as { handler?: unknown }).handler === agentGateMark(agent)?.executionCheck),
          1,
        );
        expect(handle.isActive()).toBe(false);
        expect(install(agent, { gate })).toEqual(expect.objectContaining({ gateName: 'allow-all' }));
      });

      it("installs a pending GatePlugin's own gate source (its timeout) when the same gate is requested", async () => {
        const gate = slowGate();
        const agent = scriptedAgent('a', [call('ls'), say('x')], {
          tools: [recordingTool('ls')],
          plugins: [new GatePlugin({ gate, timeoutMs: 20 })],
        });
        install(agent, { gate });
        await agent.invoke('go').catch(() => undefined);
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] ERROR:/);
      });

      it('names as "?" an existing gate whose name it cannot read (a GatePlugin given a non-gate, another copy\'s mark)', () => {
        const badPlugin = scriptedAgent('p', [say('x')], {
          plugins: [new GatePlugin({ gate: { name: 7, decide: () => ({ verdict: 'allow' }) } as never })],
        });
        expect(() => install(badPlugin, { gate: allowAll() })).toThrow(
          expect.objectContaining({ conflicts: [{ path: ['p'], existing: '?', requested: 'allow-all' }] }),
        );
        const marked = scriptedAgent('m', [say('x')]);
        Object.defineProperty(marked, Symbol.for('gate-audit.agent-gate.v1'), {
          value: { gateKey: {}, gateName: 7, path: ['m'] },
        });
        expect(() => install(marked, { gate: allowAll() })).toThrow(
          expect.objectContaining({ conflicts: [{ path: ['m'], existing: '?', requested: 'allow-all' }] }),
        );
      });

      it("installs its own gate source beside another copy's pending GatePlugin that has no gateSource", async () => {
        // Another copy's GatePlugin, seen only through its mark; its initAgent finds the agent gated and adds nothing.
        const foreignPlugin = {
          name: 'gate-audit:gate',
          [Symbol.for('gate-audit.gate-plugin.v1')]: true,
          initAgent: () => undefined,
        };
        const agent = scriptedAgent('a', [call('rm'), say('x')], {
          tools: [recordingTool('rm')],
          plugins: [foreignPlugin],
        });
        configureGate(denyAll('configured says no'));
        const handle = install(agent);
        expect(handle.gateName).toBe('configured');
        await agent.invoke('go');
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: configured says no/);
      });

      it('takes a gate source only from a GatePlugin, never from another plugin that has a gateSource method', async () => {
        const lookalike = {
          name: 'lookalike',
          initAgent: () => undefined,
          gateSource: () => ({ name: 'allow-all', key: 'lookalike', resolve: () => allowAll(), timeoutMs: 1000 }),
        };
        const agent = scriptedAgent('a', [call('rm'), say('x')], {
          tools: [recordingTool('rm')],
          plugins: [lookalike],
        });
        expect(install(agent, { gate: denyAll('no') }).gateName).toBe('deny-all');
        await agent.invoke('go');
        expect(ran).toEqual([]);
        expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: no/);
      });
    });

    describe('when it gates the agent', () => {
      it('locks the agent fields the SDK reads to run tools', () => {
        const agent = scriptedAgent('a', [say('x')]);
        expect(configurable(agent, '_toolRegistry')).toBe(true);
        install(agent, { gate: allowAll() });
        expect(configurable(agent, '_toolRegistry')).toBe(false);
      });
    });
  });
});
