/**
 * The tree the view shows, as pure data: rows built from a report's node paths, folded by the expanded
 * set, narrowed by the filters. No React here, so it is tested on its own and stays fast on large reports.
 */
import type { CoverageNode, CoverageReport } from '../report/schema.js';

/** One node of the tree, with its children. */
export interface TreeNode {
  readonly key: string;
  readonly node: CoverageNode;
  readonly depth: number;
  readonly children: readonly TreeNode[];
}

/** One visible row. */
export interface Row {
  readonly key: string;
  readonly node: CoverageNode;
  readonly depth: number;
  readonly hasChildren: boolean;
  readonly expanded: boolean;
}

/** What narrows the visible rows. */
export interface RowFilter {
  /** Only nodes that are not gated (and their ancestors, for context). */
  readonly notGatedOnly: boolean;
  /** Only nodes whose path text contains this (and their ancestors). */
  readonly text: string;
}

/** The key of a path. */
export const keyOf = (path: readonly string[]): string => path.join('\u0000');

/** Builds the forest of a report: a node's parent is the node at its path minus the last segment. */
export function buildTree(report: CoverageReport): TreeNode[] {
  const byKey = new Map<string, { node: CoverageNode; children: CoverageNode[] }>();
  for (const node of report.nodes) byKey.set(keyOf(node.path), { node, children: [] });
  const roots: CoverageNode[] = [];
  for (const node of report.nodes) {
    const parent = node.path.length > 1 ? byKey.get(keyOf(node.path.slice(0, -1))) : undefined;
    if (parent === undefined) roots.push(node);
    else parent.children.push(node);
  }
  const make = (node: CoverageNode, depth: number): TreeNode => ({
    key: keyOf(node.path),
    node,
    depth,
    children: (byKey.get(keyOf(node.path))?.children ?? []).map((child) => make(child, depth + 1)),
  });
  return roots.map((root) => make(root, 0));
}

/** Keys of the nodes expanded at start: everything for small trees, the top two levels for large ones. */
export function initiallyExpanded(forest: readonly TreeNode[], total: number): Set<string> {
  const expanded = new Set<string>();
  const visit = (tree: TreeNode): void => {
    if (tree.children.length === 0) return;
    if (total <= 500 || tree.depth < 2) expanded.add(tree.key);
    for (const child of tree.children) visit(child);
  };
  for (const tree of forest) visit(tree);
  return expanded;
}

function matches(node: CoverageNode, filter: RowFilter): boolean {
  if (filter.notGatedOnly && node.status === 'gated') return false;
  if (filter.text !== '' && !node.path.join('/').toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}

/**
 * The visible rows, in tree order. With a filter on, a node shows when it matches or has a matching
 * descendant, and the ancestors of matches are shown open.
 */
export function visibleRows(forest: readonly TreeNode[], expanded: ReadonlySet<string>, filter: RowFilter): Row[] {
  const filtering = filter.notGatedOnly || filter.text !== '';
  const rows: Row[] = [];
  const keep = new Map<string, boolean>();
  const wanted = (tree: TreeNode): boolean => {
    let any = matches(tree.node, filter);
    for (const child of tree.children) any = wanted(child) || any;
    keep.set(tree.key, any);
    return any;
  };
  if (filtering) for (const tree of forest) wanted(tree);
  const walk = (tree: TreeNode): void => {
    if (filtering && keep.get(tree.key) !== true) return;
    const open = filtering || expanded.has(tree.key);
    rows.push({
      key: tree.key,
      node: tree.node,
      depth: tree.depth,
      hasChildren: tree.children.length > 0,
      expanded: open,
    });
    if (open) for (const child of tree.children) walk(child);
  };
  for (const tree of forest) walk(tree);
  return rows;
}

/** The first index of the window of `height` rows that keeps `selected` visible. */
export function windowStart(selected: number, height: number, total: number, previous: number): number {
  if (total <= height) return 0;
  let start = Math.min(previous, total - height);
  if (selected < start) start = selected;
  if (selected >= start + height) start = selected - height + 1;
  return Math.max(0, start);
}

/** Cuts `text` to `width` columns, ending with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  if (chars.length <= width) return text;
  return width === 1 ? '…' : `${chars.slice(0, width - 1).join('')}…`;
}
