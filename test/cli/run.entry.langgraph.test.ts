/**
 * `gate-audit --entry` and module audits of LangGraph apps: a compiled graph (or a `createAgent` agent's graph)
 * invoked by the app's own entry point is stopped before its first node runs and audited as it stands; exported
 * graphs are found like Strands ones. Every case runs the built command; the runner app's model and tools leave a
 * mark when they really run.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { markedRuns } from '../helpers/marked-runs.js';

const app = (name: string): string => `fixtures/apps/lg-runner/src/${name}.ts`;
const { ran, json, gateAudit } = markedRuns();

describe('gate-audit on LangGraph apps', () => {
  describe('when given --entry', () => {
    it('audits the graph main.ts gates and runs (100%), and runs no model or tool', () => {
      const built = json(['--export', 'buildGraph', app('graph')]);
      expect(built.status).toBe(1);
      const { status, report } = json(['--entry', app('main')]);
      expect(status).toBe(0);
      expect(report.summary).toMatchObject({ total: 6, gated: 5, attested: 1, ungated: 0 });
      expect(report.nodes.every((n) => n.framework === 'langgraph')).toBe(true);
      expect(report.nodes.map((n) => n.path.join('/'))).toContain('lg-runner/review/reviewer/tools');
      expect(report.entries).toEqual([
        { module: app('main'), invocations: 1, ended: 'exit', exitCode: 0, processGuard: { installed: false } },
      ]);
      expect(ran()).toEqual([]);
    });

    it('an entry that forgot to gate its graph fails (exit 1)', () => {
      const { status, report } = json(['--entry', app('main-ungated')]);
      expect(status).toBe(1);
      expect(report.summary.ungated).toBe(6);
      expect(ran()).toEqual([]);
    });
  });

  describe('when given LangGraph modules', () => {
    it('finds the graphs of LangGraph modules, each with its statuses (one run over six modules)', () => {
      const names = ['nested', 'supervisor', 'agent', 'swarm', 'function-node', 'remote'];
      const { status, report } = json(names.map((name) => `fixtures/graphs/langgraph-${name}.ts`));
      expect(status).toBe(1);
      const statuses = (root: string): Record<string, number> => {
        const counts: Record<string, number> = {};
        for (const node of report.nodes.filter((n) => n.path[1] === root))
          counts[node.status] = (counts[node.status] ?? 0) + 1;
        return counts;
      };
      expect(statuses('pipeline')).toEqual({ gated: 6, attested: 1 });
      expect(statuses('team')).toEqual({ gated: 7, attested: 2 });
      expect(statuses('assistant')).toEqual({ ungated: 2, ungateable: 1 });
      expect(statuses('helpdesk')).toEqual({ ungated: 5 });
      expect(statuses('drafting')).toEqual({ ungated: 1, ungateable: 1 });
      expect(statuses('accounts')).toEqual({ ungated: 3, ungateable: 1 });
      expect(report.nodes.find((n) => n.path.slice(1).join('/') === 'accounts/billing')?.fix).toMatch(/accept it here/);
      // The run's generator names the framework of its trees: LangGraph here, though the Strands SDK is installed.
      expect(report.generator?.sdk).toMatch(/^@langchain\/langgraph@\d+\.\d+\.\d+$/);
    });
  });

  describe('when a LangGraph module exports something that is not what runs', () => {
    it('says what a LangGraph module exports that is not what runs (a bare tool node, a graph builder not compiled)', () => {
      const dir = join(root, 'test/.generated/langgraph-parts');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'parts.ts');
      writeFileSync(
        file,
        [
          "import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';",
          "import { ToolNode } from '@langchain/langgraph/prebuilt';",
          "import { readFile } from '../../../fixtures/support/langchain-tools.js';",
          'export const tools = new ToolNode([readFile]);',
          "export const builder = new StateGraph(MessagesAnnotation).addNode('tools', new ToolNode([readFile])).addEdge(START, 'tools').addEdge('tools', END);",
          "export const graph = builder.compile({ name: 'compiled' });",
        ].join('\n'),
      );
      try {
        const { report } = json([relative(root, file)]);
        expect(report.nodes.map((n) => n.path.join('/'))).toEqual(['compiled', 'compiled/tools']);
        expect((report.notes ?? []).map((n) => `${n.kind} ${n.export ?? ''} ${n.message}`)).toEqual([
          'unaudited-export builder is a LangGraph graph builder (a StateGraph not compiled): what runs is the graph compile() returns',
          'unaudited-export tools is a LangGraph tool node on its own: the audit judges the graph that runs it',
        ]);
        const strict = gateAudit(['--fail-on-unaudited', relative(root, file)]);
        expect(strict.status).toBe(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("when a run holds both frameworks' trees", () => {
    it("a run over both frameworks' trees names both in its generator, tested only when both are", () => {
      const { report } = json(['fixtures/graphs/langgraph-agent.ts', 'fixtures/graphs/gated-app.ts']);
      expect(report.generator?.sdk).toMatch(/^1\.\d+\.\d+, @langchain\/langgraph@\d+\.\d+\.\d+$/);
      expect(report.generator?.sdkTested).toBe(true);
    });
  });
});
