/**
 * Coverage reports for the renderers' tests: the mixed-graph fixture's audit, reports built node by node
 * (each parsed by `CoverageReportSchema`), a team whose nodes carry gates or are accepted, and a bundle of
 * two modules.
 */
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { audit, type CoverageNode, type CoverageReport, CoverageReportSchema } from '../../src/index.js';
import { summarize } from '../../src/report/audit.js';

/** The audit of the mixed-graph fixture: 5 nodes, 3 gated, 2 to fix (the orchestrator and `publisher`). */
export const mixed = audit(buildMixedGraph());

/** An agent node at `path` with `status` (reason `is <status>`, no tools), `extra` overriding any field. */
export const agentNode = (
  path: string[],
  status: CoverageNode['status'],
  extra: Partial<CoverageNode> = {},
): CoverageNode => ({
  path,
  id: path.at(-1)!,
  kind: 'agent',
  status,
  reason: `is ${status}`,
  tools: [],
  toolsUnknownUntilInit: false,
  warnings: [],
  ...extra,
});

/** An audit report of `nodes` (rooted at the first node's first path segment), summarized and schema-checked. */
export function reportOf(nodes: CoverageNode[], extra: Partial<CoverageReport> = {}): CoverageReport {
  return CoverageReportSchema.parse({
    schemaVersion: 2,
    mode: 'audit',
    root: { id: nodes[0]?.path[0] ?? 'root', kind: 'graph' },
    nodes,
    edges: [],
    summary: summarize(nodes),
    refusals: [],
    sources: [],
    ...extra,
  });
}

/** The id of the `policy` gate most of `gatedTeam`'s nodes share. */
export const POLICY_ID = 'f'.repeat(64);

/**
 * A team under three gates (two named `policy`, one per-process `mine`) and an accepted remote partner:
 * nothing to fix.
 */
export const gatedTeam = reportOf([
  agentNode(['team'], 'gated', { kind: 'graph', gate: { name: 'policy', id: POLICY_ID } }),
  agentNode(['team', 'writer'], 'gated', { gate: { name: 'policy', id: POLICY_ID } }),
  agentNode(['team', 'reviewer'], 'gated', { gate: { name: 'policy', id: 'e'.repeat(64) } }),
  agentNode(['team', 'local'], 'gated', { gate: { name: 'mine', id: 'gate-7', perProcess: true } }),
  agentNode(['team', 'partner'], 'accepted', {
    kind: 'remote',
    problem: 'remote',
    reason: 'accepted: the vendor gates it on their side',
    fix: 'gate it on its own server or remove it',
  }),
]);

/** A bundle of two modules' roots (`src/a.graph.ts#graph`, and `src/b.ts#team` from a factory), one to fix in each. */
export const bundle = reportOf(
  [
    agentNode(['src/a.graph.ts#graph', 'pricing'], 'ungated', { kind: 'graph' }),
    agentNode(['src/a.graph.ts#graph', 'pricing', 'writer'], 'gated'),
    agentNode(['src/b.ts#team', 'team'], 'gated', { kind: 'swarm' }),
    agentNode(['src/b.ts#team', 'team', 'v1.2'], 'ungated'),
  ],
  {
    root: { id: 'gate-audit', kind: 'bundle' },
    sources: [
      { module: 'src/a.graph.ts', export: 'graph', path: ['src/a.graph.ts#graph'], factory: false },
      { module: 'src/b.ts', export: 'team', path: ['src/b.ts#team'], factory: true },
    ],
  },
);
