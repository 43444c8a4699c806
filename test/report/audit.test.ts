import { type Agent, type AgentConfig, ExecuteToolStage, InterventionHandler, McpClient } from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { AgentNode, Graph } from '@strands-agents/sdk/multiagent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { buildResearchGraph } from '../../fixtures/graphs/research-graph.js';
import { buildSupportSwarm } from '../../fixtures/graphs/support-swarm.js';
import {
  allowAll,
  assertFullyGated,
  audit,
  CoverageError,
  CoverageReportSchema,
  GatePlugin,
  GOVERNS,
  installMultiagent,
  plan,
} from '../../src/index.js';
import { toolCallHooks } from '../../src/frameworks/strands/sdk-internals.js';
import { FEATURE_ABSENT, sdkFeatures } from '../../src/frameworks/strands/sdk-shape.js';
import '../../src/vitest.js';
import { nodesOf, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

const statuses = (report: ReturnType<typeof audit>) => report.nodes.map((n) => `${n.path.join('/')}:${n.status}`);

/** A custom MultiAgent executor, never run, that declares the agents `agents()` gives. */
const declaringExecutor = (id: string, agents: () => unknown[]): object => ({
  id,
  invoke: () => Promise.reject(new Error('not run')),
  stream: () => {
    throw new Error('not run');
  },
  [GOVERNS]: () => ({ agents: agents() }),
});

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('audit', () => {
  describe('when the tree is ungated', () => {
    it('reports every node of an ungated tree as ungated, with a reason, a fix and its tools', () => {
      const report = audit(buildResearchGraph());
      expect(CoverageReportSchema.parse(report)).toEqual(report);
      expect(statuses(report)).toEqual([
        'research:ungated',
        'research/planner:ungated',
        'research/research-team:ungated',
        'research/research-team/searcher:ungated',
        'research/research-team/summarizer:ungated',
        'research/writer:ungated',
      ]);
      const writer = report.nodes.find((n) => n.id === 'writer')!;
      expect(writer).toMatchObject({ kind: 'agent', tools: ['write_file', 'shell'] });
      expect(writer.fix).toContain('installMultiagent');
      expect(report.summary).toEqual({
        total: 6,
        gated: 0,
        attested: 0,
        accepted: 0,
        ungated: 6,
        ungateable: 0,
        blocked: 0,
        toolRunning: 4,
        coverage: 0,
      });
      expect(report.edges).toContainEqual({
        from: ['research', 'planner'],
        to: ['research', 'research-team'],
        kind: 'flow',
      });
      expect(report.edges).toContainEqual({ from: ['research'], to: ['research', 'planner'], kind: 'contains' });
    });
  });
  describe('when installMultiagent has run', () => {
    it('reports every node gated after installMultiagent, and adds nothing to the objects itself', () => {
      const graph = buildSupportSwarm();
      installMultiagent(graph, { gate: allowAll() });
      const billing = (graph.nodes.get('billing') as AgentNode).agent as Agent;
      const hooks = toolCallHooks(billing)?.length;
      const report = audit(graph);
      expect(report.summary.coverage).toBe(1);
      expect(report.nodes.every((n) => n.status === 'gated')).toBe(true);
      expect(toolCallHooks(billing)?.length).toBe(hooks);
    });
  });
  describe('when the tree holds every status', () => {
    it('covers all four statuses: gated, ungated, ungateable and blocked', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('a', [say('x')]), scriptedAgent('b', [say('x')])],
        edges: [['a', 'b']],
      });
      installMultiagent(graph, { gate: allowAll() });
      nodesOf(graph).set('late', new AgentNode({ agent: scriptedAgent('late', [say('x')]) }));
      nodesOf(graph).set(
        'remote',
        new AgentNode({ agent: new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' }) }),
      );
      const mixed = audit(buildMixedGraph());
      expect(statuses(audit(graph))).toEqual([
        'g:gated',
        'g/a:gated',
        'g/b:gated',
        'g/late:blocked',
        'g/remote:ungateable',
      ]);
      expect(statuses(mixed)).toContain('pricing/publisher:ungated');
      expect(mixed.nodes.find((n) => n.id === 'collector')).toMatchObject({
        reason: 'GatePlugin installs the gate at the first run',
        gate: { name: 'allow-all', perProcess: true },
      });
      expect(audit(graph).nodes.find((n) => n.id === 'remote')).toMatchObject({ problem: 'remote', kind: 'remote' });
    });
  });
  describe('when an agent-as-tool is added to a gated agent', () => {
    it('reports an agent-as-tool added to a gated agent as blocked: the caller refuses it', () => {
      const outer = scriptedAgent('outer', [say('x')]);
      const graph = new Graph({ id: 'g', nodes: [outer], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      outer.toolRegistry.add(scriptedAgent('helper', [say('x')]).asTool());
      expect(audit(graph).nodes.find((n) => n.id === 'helper')).toMatchObject({
        kind: 'agent-tool',
        status: 'blocked',
      });
    });
  });
  describe('when something weakens a gate', () => {
    it('warns about what weakens a gate: foreign middleware, plugins, MCP clients, shared or fail-open interventions', () => {
      class Shared extends InterventionHandler {
        readonly name = 'shared-cedar';
        override readonly onError = 'proceed' as const;
      }
      const shared = new Shared();
      const mcp = new McpClient({ transport: { start: () => Promise.resolve() } as never });
      const a = scriptedAgent('a', [say('x')], {
        tools: [recordingTool('ls'), mcp],
        interventions: [shared],
        plugins: [{ name: 'my-plugin', initAgent: () => undefined, getTools: () => [] }],
      });
      const b = scriptedAgent('b', [say('x')], { interventions: [shared] });
      a.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
        return yield* next(ctx);
      });
      const node = audit(new Graph({ id: 'g', nodes: [a, b], edges: [] })).nodes.find((n) => n.id === 'a')!;
      expect(node.toolsUnknownUntilInit).toBe(true);
      expect(node.warnings.join('\n')).toMatch(/1 ExecuteToolStage middleware/);
      expect(node.warnings.join('\n')).toMatch(/plugins my-plugin add hooks and tools at the first run/);
      expect(node.warnings.join('\n')).toMatch(/1 MCP client\(s\)/);
      expect(node.warnings.join('\n')).toMatch(/intervention "shared-cedar" has onError 'proceed' and fails open/);
      expect(node.warnings.join('\n')).toMatch(/intervention "shared-cedar" is shared with b/);
    });
  });
  describe('when a custom node declares the agents it runs', () => {
    it("a declaring custom node's row takes the worst status of the agents it declares, never reads covered above them", () => {
      const worker = scriptedAgent('worker', [say('x')], { tools: [recordingTool('rm')] });
      const declared: unknown[] = [worker];
      const step = declaringExecutor('step', () => declared);
      const graph = new Graph({ id: 'g', nodes: [{ orchestrator: step } as never], edges: [] });
      const handles = installMultiagent(graph, { gate: allowAll() });
      expect(statuses(audit(graph))).toEqual(['g:gated', 'g/step:attested', 'g/step/worker:gated']);
      // The worker loses its gate: the guard cancels the node, and both rows say so.
      handles.find((h) => h.agent === worker)!.uninstall();
      expect(statuses(audit(graph))).toEqual(['g:gated', 'g/step:blocked', 'g/step/worker:blocked']);
      // A remote agent declared beside it is worse than blocked: the node's row names it.
      declared.push(new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' }));
      const report = audit(graph);
      expect(statuses(report)).toEqual([
        'g:gated',
        'g/step:ungateable',
        'g/step/worker:blocked',
        'g/step/remote:ungateable',
      ]);
      expect(report.nodes[1]!.reason).toMatch(
        /^custom node that runs its declared remote agent "remote", which is ungateable: is an A2AAgent/,
      );
      expect(report.nodes[1]!.fix).toBe(report.nodes[3]!.fix);
      expect(report.summary.coverage).toBe(0);
    });

    it('a declaring custom node met at a second place answers for its agents there too', () => {
      const worker = scriptedAgent('worker', [say('x')], { tools: [recordingTool('rm')] });
      const step = declaringExecutor('step', () => [worker]);
      const inner = (id: string): Graph => new Graph({ id, nodes: [{ orchestrator: step } as never], edges: [] });
      const graph = new Graph({ id: 'o', nodes: [inner('g1'), inner('g2')], edges: [] });
      const report = audit(graph);
      expect(statuses(report)).toEqual([
        'o:ungated',
        'o/g1:ungated',
        'o/g1/step:ungated',
        'o/g1/step/worker:ungated',
        'o/g2:ungated',
        'o/g2/step:ungated',
        'o/g2/step/worker:ungated',
      ]);
      expect(report.nodes[5]!.reason).toBe(
        'custom node that runs its declared agent "worker", which is ungated: same object as o › g1 › step › worker: ' +
          'runs its tools without a gate',
      );
    });

    // A feature test: background tasks came after the oldest supported SDK, so it is detected by presence.
  });
  describe('when the SDK has background tasks', () => {
    it('warns about background tasks, on an SDK that has them', ({ skip }) => {
      skip(!sdkFeatures()['background-tasks'], FEATURE_ABSENT['background-tasks']);
      const config: Record<string, unknown> = { backgroundTasks: true };
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed with older SDK types
      const a = scriptedAgent('a', [say('x')], config as Partial<AgentConfig>);
      const plain = scriptedAgent('b', [say('x')]);
      const nodes = audit(new Graph({ id: 'g', nodes: [a, plain], edges: [] })).nodes;
      expect(nodes.find((n) => n.id === 'a')!.warnings.join('\n')).toMatch(/background tasks/);
      expect(nodes.find((n) => n.id === 'b')!.warnings.join('\n')).not.toMatch(/background tasks/);
    });
  });
});

describe('plan', () => {
  describe('when installMultiagent would succeed', () => {
    it('shows every node as installMultiagent would leave it', () => {
      const report = plan(buildResearchGraph());
      expect(report.mode).toBe('plan');
      expect(report.nodes.every((n) => n.status === 'gated')).toBe(true);
      expect(report.refusals).toEqual([]);
    });
  });
  describe('when installMultiagent would refuse', () => {
    it('lists the refusals and keeps the current statuses when installMultiagent would refuse', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('a', [say('x')]), new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' })],
        edges: [],
      });
      const report = plan(graph);
      expect(report.refusals.map((r) => `${r.path.join('/')}:${r.kind}`)).toEqual(['g/remote:remote']);
      expect(statuses(report)).toEqual(['g:ungated', 'g/a:ungated', 'g/remote:ungateable']);
    });
  });
});

describe('assertFullyGated', () => {
  describe('when the tree is gated, or not', () => {
    it('passes on a gated tree and throws CoverageError naming every other node with its path', () => {
      const gated = buildResearchGraph();
      installMultiagent(gated, { gate: allowAll() });
      expect(() => assertFullyGated(gated)).not.toThrow();
      let error: unknown;
      try {
        assertFullyGated(buildMixedGraph());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CoverageError);
      expect((error as CoverageError).code).toBe('NOT_FULLY_GATED');
      expect((error as CoverageError).nodes).toEqual([
        expect.stringMatching(/^"pricing" is ungated: no node guard/),
        expect.stringMatching(/^"pricing › publisher" is ungated: runs its tools without a gate/),
      ]);
    });
  });
  describe('when used as the gate-audit/vitest matcher', () => {
    it('backs the toBeFullyGated() matcher of gate-audit/vitest', () => {
      const gated = buildSupportSwarm();
      installMultiagent(gated, { gate: allowAll() });
      expect(gated).toBeFullyGated();
      expect(buildSupportSwarm()).not.toBeFullyGated();
      expect(() => expect(buildMixedGraph()).toBeFullyGated()).toThrow(/"pricing › publisher" is ungated/);
    });
  });
  describe('when an agent carries a GatePlugin', () => {
    it('counts an agent with a GatePlugin as gated', () => {
      const agent = scriptedAgent('p', [say('x')], { plugins: [new GatePlugin({ gate: allowAll() })] });
      expect(new Graph({ id: 'g', nodes: [agent], edges: [] })).not.toBeFullyGated();
      expect(audit(agent).nodes.map((n) => n.status)).toEqual(['gated']);
    });
  });
});
