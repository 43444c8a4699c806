/**
 * What the two picture formats share: the report as nested groups (orchestrators contain their nodes,
 * agents their agents-as-tools), a colour per status, and stable ids for nodes.
 */
import type { CoverageNode, CoverageReport, NodeStatus } from '../schema.js';
import { STATUS_GLYPH } from './glyphs.js';

/** Fill and stroke colours per status. */
export const STATUS_COLORS: Readonly<Record<NodeStatus, { fill: string; stroke: string; text: string }>> = {
  gated: { fill: '#d7f5dd', stroke: '#2e7d32', text: '#1b5e20' },
  attested: { fill: '#dcebfa', stroke: '#1565c0', text: '#0d47a1' },
  accepted: { fill: '#fff4d6', stroke: '#b58900', text: '#7a5c00' },
  ungated: { fill: '#ffd9d9', stroke: '#c62828', text: '#b71c1c' },
  ungateable: { fill: '#f3dcf7', stroke: '#8e24aa', text: '#6a1b9a' },
  blocked: { fill: '#ececec', stroke: '#9e9e9e', text: '#616161' },
};

/** One node of the picture with the nodes drawn inside it. */
export interface Group {
  readonly id: string;
  readonly node: CoverageNode;
  readonly members: readonly Group[];
}

/** The label of a node: glyph, id, kind and status. */
export function labelOf(node: CoverageNode): string {
  return `${STATUS_GLYPH[node.status]} ${node.id}\n${node.kind} · ${node.status}`;
}

/** Whether a node is drawn as a box containing others (orchestrators). */
export function isContainer(node: CoverageNode): boolean {
  return node.kind === 'graph' || node.kind === 'swarm';
}

/**
 * Groups the report's nodes by containment and gives each a short stable id (`n0`, `n1`, … in report
 * order, which is the walk order).
 */
export function groups(report: CoverageReport): { roots: Group[]; idOf: Map<string, string> } {
  const key = (path: readonly string[]): string => JSON.stringify(path);
  const idOf = new Map(report.nodes.map((n, i) => [key(n.path), `n${i}`]));
  const children = new Map<string, CoverageNode[]>();
  const roots: CoverageNode[] = [];
  for (const node of report.nodes) {
    const parent = key(node.path.slice(0, -1));
    if (node.path.length > 1 && idOf.has(parent)) children.set(parent, [...(children.get(parent) ?? []), node]);
    else roots.push(node);
  }
  const make = (node: CoverageNode): Group => ({
    id: idOf.get(key(node.path)) ?? 'n?',
    node,
    members: (children.get(key(node.path)) ?? []).map(make),
  });
  return { roots: roots.map(make), idOf };
}
