/**
 * What the two picture formats share: the report as nested groups (orchestrators contain their nodes,
 * agents their agents-as-tools), a colour per status, and stable ids for nodes.
 */
import type { CoverageNode, CoverageReport, NodeStatus } from '../schema.js';
import { visible } from '../../escape.js';
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

/** The label of a node: glyph, id (shown with `visible`), kind and status. */
export function labelOf(node: CoverageNode): string {
  return `${STATUS_GLYPH[node.status]} ${visible(node.id)}\n${visible(node.kind)} · ${visible(node.status)}`;
}

/** Whether a node is drawn as a box containing others (orchestrators). */
export function isContainer(node: CoverageNode): boolean {
  return node.kind === 'graph' || node.kind === 'swarm';
}

/**
 * Groups the report's nodes by containment and gives each a short stable id (`n0`, `n1`, … by position in
 * the report, which is the walk order). Linear in the number of nodes: each node is appended once to its
 * parent's member list. Every node gets its own id, even two at the same path in a hand-made report, so
 * no node can hide behind another; `idOf` maps a path to the first node at it (for edges).
 */
export function groups(report: CoverageReport): { roots: Group[]; idOf: Map<string, string> } {
  const key = (path: readonly string[]): string => JSON.stringify(path);
  const made = report.nodes.map((node, i) => ({ id: `n${i}`, node, members: [] as Group[] }));
  const idOf = new Map<string, string>();
  const first = new Map<string, (typeof made)[number]>();
  for (const group of made) {
    const k = key(group.node.path);
    if (!first.has(k)) {
      first.set(k, group);
      idOf.set(k, group.id);
    }
  }
  const roots: Group[] = [];
  for (const group of made) {
    const path = group.node.path;
    const parent = path.length > 1 ? first.get(key(path.slice(0, -1))) : undefined;
    if (parent === undefined) roots.push(group);
    else parent.members.push(group);
  }
  return { roots, idOf };
}

/**
 * Visits groups depth first without recursion (a deep report cannot overflow the stack): `enter` before a
 * group's members, `leave` after them.
 *
 * @param roots - the top groups
 * @param enter - called with each group and its depth
 * @param leave - called after a group's members
 */
export function visitGroups(
  roots: readonly Group[],
  enter: (group: Group, depth: number) => void,
  leave: (group: Group, depth: number) => void = () => undefined,
): void {
  const stack: { group: Group; depth: number; left: boolean }[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ group: roots[i] as Group, depth: 0, left: false });
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.left) {
      leave(frame.group, frame.depth);
      continue;
    }
    enter(frame.group, frame.depth);
    stack.push({ ...frame, left: true });
    const { members } = frame.group;
    for (let i = members.length - 1; i >= 0; i--) {
      stack.push({ group: members[i] as Group, depth: frame.depth + 1, left: false });
    }
  }
}
