/**
 * Attacks on the decision (`src/enforce/decision.ts`): an input rewritten while the gate decides, an agent used
 * as a tool changed after install or under another gate than its caller's tree's, a decision that throws.
 */
import { AfterToolCallEvent, Agent, BeforeToolsEvent, type Plugin, SequentialToolExecutor } from '@strands-agents/sdk';
import { AgentNode, Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  type Gate,
  GateFailedError,
  GatePlugin,
  install,
  installMultiagent,
} from '../../src/index.js';
import { agentGateMark } from '../../src/walker/marks.js';
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
import { settleRun } from '../helpers/runs.js';
import { forgeGateMark } from '../helpers/attacks.js';

isolateEachTest();

describe('the decision (decision.ts)', () => {
  describe('when the input is rewritten while the gate decides', () => {
    it('an input rewritten while the approver looks is tampering: refused, recorded, the run stops [A4]', async () => {
      let held: { path: string } | undefined;
      const records: string[] = [];
      const agent = scriptedAgent('a', [call('write', { path: 'report.md' }), say('done')], {
        tools: [recordingTool('write')],
      });
      agent.addHook(BeforeToolsEvent, (event) => {
        const block = event.message.content.find((c) => c.type === 'toolUseBlock') as
          | { input: { path: string } }
          | undefined;
        held = block?.input;
      });
      install(agent, {
        gate: {
          name: 'asks',
          decide: () => ({ verdict: 'ask', reason: 'writes need a human' }),
          approval: {
            via: 'callback',
            ask: async (request) => {
              await new Promise((resolve) => setTimeout(resolve, 5));
              if (held !== undefined) held.path = '/etc/cron.d/evil';
              return (request.input as { path: string }).path === 'report.md'
                ? { granted: true }
                : { granted: false, reason: 'no' };
            },
          },
          record: (r) => void records.push(r.event),
        },
      });
      const stopped = await settleRun(agent);
      expect(ran).toEqual([]);
      expect(records).toContain('tampering');
      expect(stopped).toBeInstanceOf(GateFailedError);
    });
  });

  describe('when an agent used as a tool is changed after install', () => {
    const attacks: [string, (inner: Agent) => void][] = [
      [
        'its tool executor replaced after install',
        (inner) => void (inner.toolExecutor = new (class extends SequentialToolExecutor {})()),
      ],
      [
        'its stream patched after install',
        (inner) =>
          void (inner.stream = Agent.prototype.stream.bind(
            new Agent({ printer: false, model: scriptedAgent('m', [say('x')]).model }),
          )),
      ],
    ];
    for (const [what, attack] of attacks) {
      it(`refuses the call when ${what} [A5]`, async () => {
        const inner = scriptedAgent('helper', [call('rm', { path: '/inner' }), say('-')], {
          tools: [recordingTool('rm')],
        });
        const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), say('done')], { tools: [inner] });
        installMultiagent(new Graph({ id: 'g', nodes: [lead], edges: [] }), { gate: allowAll() });
        attack(inner);
        await lead.invoke('go');
        expect(ran).toEqual([]);
        expect(toolResults(lead)[0]).toMatch(/^error:\[gate\] BLOCKED: tool "helper"/);
      });
    }
  });

  describe('when the gate answers with a decision that throws', () => {
    it('a decision whose getter throws a value that cannot become text refuses, and the run stops [A9]', async () => {
      const poison = {
        get verdict(): never {
          throw Object.create(null) as Error;
        },
      };
      const agent = scriptedAgent('a', [call('rm', { path: '/1' }), call('rm', { path: '/2' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      install(agent, { gate: { name: 'poison', decide: () => poison } });
      const stopped = await settleRun(agent);
      expect(ran).toEqual([]);
      expect(agent.model.calls).toBe(1);
      expect(stopped).toBeInstanceOf(GateFailedError);
    });
  });

  describe("when an agent used as a tool is added under another gate than its caller's tree's", () => {
    const noRm: Gate = {
      name: 'no-rm',
      decide: (r) => (r.toolName === 'rm' ? { verdict: 'deny', reason: 'no rm' } : { verdict: 'allow' }),
    };
    const rmHelper = (plugins: Plugin[] = []): ReturnType<typeof scriptedAgent> =>
      scriptedAgent('helper', [call('rm', { path: '/' }), say('done')], { tools: [recordingTool('rm')], plugins });
    const ways: [string, () => ReturnType<typeof scriptedAgent>][] = [
      [
        'gated by install() with an allow-all gate',
        () => {
          const helper = rmHelper();
          install(helper, { gate: allowAll() });
          return helper;
        },
      ],
      ['waiting on a GatePlugin with an allow-all gate', () => rmHelper([new GatePlugin({ gate: allowAll() })])],
      [
        'carrying a forged gate mark that names an allow-all gate',
        () => {
          const helper = rmHelper();
          forgeGateMark(helper, allowAll());
          return helper;
        },
      ],
    ];
    for (const [what, make] of ways) {
      it(what, async () => {
        const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')]);
        const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
        installMultiagent(graph, { gate: noRm });
        const helper = make();
        lead.toolRegistry.add(helper.asTool());
        const row = audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/helper');
        expect(row?.status).toBe('blocked');
        expect(row?.reason).toMatch(/not by its tree's gate "no-rm": its caller's gate refuses its calls at run time$/);
        const results: string[] = [];
        lead.addHook(AfterToolCallEvent, (e) => {
          for (const block of e.result.content) if ('text' in block) results.push(String(block.text));
        });
        await runOrchestrator(graph);
        expect(ran).toEqual([]);
        expect(helper.model.calls).toBe(0);
        expect(results).toEqual([
          expect.stringMatching(
            /^\[gate\] BLOCKED: tool "helper" runs an agent gated by "[^"]+", not by this tree's gate "no-rm"/,
          ),
        ]);
      });
    }

    it("a caller gated on its own first, then taken into a tree with the same gate, asks for the tree's gate too [C]", async () => {
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')]);
      install(lead, { gate: noRm });
      const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
      installMultiagent(graph, { gate: noRm });
      const helper = rmHelper();
      install(helper, { gate: allowAll() });
      lead.toolRegistry.add(helper.asTool());
      expect(audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/helper')?.status).toBe('blocked');
      await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(helper.model.calls).toBe(0);
    });

    /** lead (a node of a tree gated with noRm) → mid (gated with the tree's gate, added after install) → helper. */
    function chain(
      root: 'graph' | 'swarm',
      gateMid: (mid: ReturnType<typeof scriptedAgent>) => void,
      midPlugins: Plugin[] = [],
    ): { root: Graph | Swarm; helper: ReturnType<typeof scriptedAgent> } {
      const lead = scriptedAgent('lead', [call('mid', { input: 'go' }), say('done')]);
      const tree =
        root === 'graph' ? new Graph({ id: 'g', nodes: [lead], edges: [] }) : new Swarm({ id: 'g', nodes: [lead] });
      installMultiagent(tree, { gate: noRm });
      const helper = rmHelper();
      install(helper, { gate: allowAll() });
      const mid = scriptedAgent('mid', [call('helper', { input: 'go' }), say('done')], {
        tools: [helper.asTool()],
        plugins: midPlugins,
      });
      gateMid(mid);
      lead.toolRegistry.add(mid.asTool());
      return { root: tree, helper };
    }

    const chains: [string, () => ReturnType<typeof chain>][] = [
      ['in a Graph, mid gated by install()', () => chain('graph', (mid) => void install(mid, { gate: noRm }))],
      ['in a Swarm, mid gated by install()', () => chain('swarm', (mid) => void install(mid, { gate: noRm }))],
      [
        'mid waiting on a GatePlugin of the tree gate',
        () => chain('graph', () => undefined, [new GatePlugin({ gate: noRm })]),
      ],
    ];
    for (const [what, make] of chains) {
      it(`an agent-as-tool of an agent-as-tool that carries the tree's gate (${what}): the tree's gate is asked of it too [C]`, async () => {
        const { root, helper } = make();
        expect(audit(root).nodes.find((n) => n.path.join('/') === 'g/lead/mid/helper')?.status).toBe('blocked');
        await runOrchestrator(root).catch(() => undefined);
        expect(ran).toEqual([]);
        expect(helper.model.calls).toBe(0);
      });
    }

    it('a node agent gated on its own with the tree gate and swapped in after install: its agents-as-tools ask for it [C]', async () => {
      const swarm = new Swarm({
        id: 's',
        nodes: [scriptedAgent('lead', [handoff('worker', 'go'), say('-')]), scriptedAgent('worker', [say('done')])],
      });
      installMultiagent(swarm, { gate: noRm });
      const helper = rmHelper();
      install(helper, { gate: allowAll() });
      const late = scriptedAgent('worker', [call('helper', { input: 'go' }), say('done')], {
        tools: [helper.asTool()],
      });
      install(late, { gate: noRm });
      nodesOf(swarm).set('worker', new AgentNode({ agent: late }));
      expect(audit(swarm).nodes.find((n) => n.path.join('/') === 's/worker/helper')?.status).toBe('blocked');
      const { cancelled } = await runOrchestrator(swarm);
      expect(cancelled).toEqual({});
      expect(late.model.calls).toBeGreaterThan(0);
      expect(ran).toEqual([]);
      expect(helper.model.calls).toBe(0);
    });

    it("the gate key on a gate-audit mark rewritten to the tree's: the gate this copy installed is what counts [C]", async () => {
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')]);
      const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
      installMultiagent(graph, { gate: noRm });
      const helper = rmHelper();
      install(helper, { gate: allowAll() });
      const written = agentGateMark(helper)!;
      Object.defineProperty(helper, Symbol.for('gate-audit.agent-gate.v1'), {
        value: { ...written, gateKey: noRm, gateName: 'no-rm' },
        configurable: true,
      });
      expect(agentGateMark(helper)).toBe(written);
      lead.toolRegistry.add(helper.asTool());
      const row = audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/helper');
      expect(row?.status).toBe('blocked');
      expect(row?.reason).toMatch(/^gated by "allow-all", not by its tree's gate "no-rm"/);
      await runOrchestrator(graph);
      expect(ran).toEqual([]);
    });

    /** The SDK's own AgentAsTool class (exported as a type only; every `agent.asTool()` is one). */
    function agentAsToolClass(): new (config: Record<string, unknown>) => unknown {
      const proto = Object.getPrototypeOf(scriptedAgent('probe', [say('-')]).asTool()) as { constructor: unknown };
      return proto.constructor as never;
    }

    for (const kind of ['graph', 'swarm'] as const) {
      it(`a ${kind} used as a tool, guarded for another gate than the tree's: refused, and the audit calls it blocked [C]`, async () => {
        const lead = scriptedAgent('lead', [call('inner', { input: 'go' }), say('done')]);
        const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
        installMultiagent(graph, { gate: noRm });
        const worker = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], {
          tools: [recordingTool('rm')],
        });
        const inner =
          kind === 'graph'
            ? new Graph({ id: 'inner', nodes: [worker], edges: [] })
            : new Swarm({ id: 'inner', nodes: [worker] });
        installMultiagent(inner, { gate: allowAll() });
        const AgentAsTool = agentAsToolClass();
        lead.toolRegistry.add(new AgentAsTool({ agent: inner, name: 'inner', preserveContext: true }) as never);
        const row = audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/inner');
        expect(row?.status).toBe('blocked');
        expect(row?.reason).toMatch(
          /^guarded for "allow-all", not by its tree's gate "no-rm": its caller's gate refuses/,
        );
        await runOrchestrator(graph);
        expect(ran).toEqual([]);
        expect(worker.model.calls).toBe(0);
      });
    }

    it("control: a graph used as a tool, guarded for the tree's gate, runs under it [C]", async () => {
      const lead = scriptedAgent('lead', [call('inner', { input: 'go' }), say('done')]);
      const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
      installMultiagent(graph, { gate: noRm });
      const worker = scriptedAgent('worker', [call('rm', { path: '/' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      const inner = new Graph({ id: 'inner', nodes: [worker], edges: [] });
      installMultiagent(inner, { gate: noRm });
      const AgentAsTool = agentAsToolClass();
      lead.toolRegistry.add(new AgentAsTool({ agent: inner, name: 'inner', preserveContext: true }) as never);
      expect(audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/inner')?.status).toBe('gated');
      await runOrchestrator(graph);
      // It ran under the tree's gate, which refuses rm.
      expect(worker.model.calls).toBeGreaterThan(0);
      expect(ran).toEqual([]);
    });

    it('a forged caller mark naming a tree: the audit follows the tree the caller really joins, as the run does [C]', async () => {
      for (const [named, helperGate, status] of [
        ['allow-all', allowAll(), 'blocked'],
        ['other', noRm, 'gated'],
      ] as const) {
        ran.length = 0;
        const lead = scriptedAgent('lead', [call('mid', { input: 'go' }), say('done')]);
        const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
        installMultiagent(graph, { gate: noRm });
        const helper = scriptedAgent('helper', [call('ls', { path: '/' }), say('done')], {
          tools: [recordingTool('ls')],
        });
        install(helper, { gate: helperGate });
        const mid = scriptedAgent('mid', [call('helper', { input: 'go' }), say('done')], { tools: [helper.asTool()] });
        forgeGateMark(mid, noRm, { key: named === 'allow-all' ? helperGate : allowAll(), name: named });
        lead.toolRegistry.add(mid.asTool());
        expect(audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/mid/helper')?.status, named).toBe(status);
        await runOrchestrator(graph).catch(() => undefined);
        expect(ran, named).toEqual(status === 'blocked' ? [] : ['ls({"path":"/"})@helper']);
      }
    });

    it("control: one gated with the tree's gate, or called by an agent gated on its own, runs under its gate [C]", async () => {
      const lead = scriptedAgent('lead', [call('helper', { input: 'go' }), say('done')]);
      const graph = new Graph({ id: 'g', nodes: [lead], edges: [] });
      installMultiagent(graph, { gate: noRm });
      const helper = scriptedAgent('helper', [call('ls', { path: '/' }), say('done')], {
        tools: [recordingTool('ls')],
      });
      install(helper, { gate: noRm });
      lead.toolRegistry.add(helper.asTool());
      expect(audit(graph).nodes.find((n) => n.path.join('/') === 'g/lead/helper')?.status).toBe('gated');
      await runOrchestrator(graph);
      expect(ran).toEqual(['ls({"path":"/"})@helper']);

      const single = scriptedAgent('single', [call('other', { input: 'go' }), say('done')]);
      install(single, { gate: noRm });
      const other = scriptedAgent('other', [call('ls', { path: '/x' }), say('done')], { tools: [recordingTool('ls')] });
      install(other, { gate: allowAll() });
      single.toolRegistry.add(other.asTool());
      await single.invoke('go');
      expect(ran).toEqual(['ls({"path":"/"})@helper', 'ls({"path":"/x"})@other']);
    });
  });
});
