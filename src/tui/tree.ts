/**
 * The tree the view shows, as pure data: rows built from a report's node paths, folded by the expanded
 * set, narrowed by the filters. No React here, so it is tested on its own and stays fast on large reports.
 *
 * Every node is its own row, keyed by its position in the report, so no id (not even two nodes at the same
 * path in a hand-made report) can make one row stand for two nodes. Labels are shown with `visible`. The
 * build and the walks use explicit stacks: a deep report cannot overflow the call stack.
 */
import { joinPath } from '../tree-paths.js';
import { sourceOf } from '../report/render/summary.js';
import type { CoverageNode, CoverageReport } from '../report/schema.js';
import { visible } from '../escape.js';

/** One node of the tree, with its children. */
export interface TreeNode {
  readonly key: string;
  readonly node: CoverageNode;
  readonly depth: number;
  /** What the row shows: the id with `visible`, and, for a root of a bundle, its module. */
  readonly label: string;
  /** The module the node was loaded from (`module#export`, `, factory` when built by one), in a bundle. */
  readonly module: string | undefined;
  /** The path as the filter reads it (`visible`, segments joined with `/`), lowercased. */
  readonly filterText: string;
  readonly children: readonly TreeNode[];
}

/** One visible row. */
export interface Row {
  readonly key: string;
  readonly node: CoverageNode;
  readonly depth: number;
  readonly label: string;
  readonly module: string | undefined;
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

/** The key of the node at `index` in the report. */
export const keyOfIndex = (index: number): string => `n${index}`;

/** Builds the forest of a report: a node's parent is the first node at its path minus the last segment. */
export function buildTree(report: CoverageReport): TreeNode[] {
  const pathKey = (path: readonly string[]): string => JSON.stringify(path);
  const bundle = report.root.kind === 'bundle';
  const made = report.nodes.map((node, index) => {
    const source = bundle ? sourceOf(report.sources, node.path) : undefined;
    return {
      key: keyOfIndex(index),
      node,
      depth: 0,
      label: visible(node.id),
      module:
        source === undefined
          ? undefined
          : `${visible(source.module)}#${visible(source.export)}${source.factory ? ', factory' : ''}`,
      filterText: visible(joinPath(node.path)).toLowerCase(),
      children: [] as TreeNode[],
    };
  });
  type Made = (typeof made)[number];
  const first = new Map<string, Made>();
  for (const tree of made) {
    const key = pathKey(tree.node.path);
    if (!first.has(key)) first.set(key, tree);
  }
  const roots: Made[] = [];
  for (const tree of made) {
    const path = tree.node.path;
    const parent = path.length > 1 ? first.get(pathKey(path.slice(0, -1))) : undefined;
    if (parent === undefined) roots.push(tree);
    else parent.children.push(tree);
  }
  // Depths, top down, and the module of each root of a bundle in its label.
  const stack: { tree: Made; depth: number }[] = roots.map((tree) => ({ tree, depth: 0 }));
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    frame.tree.depth = frame.depth;
    if (frame.depth === 0 && frame.tree.module !== undefined) {
      frame.tree.label = `${frame.tree.label}  (${frame.tree.module})`;
    }
    for (const child of frame.tree.children) stack.push({ tree: child as Made, depth: frame.depth + 1 });
  }
  return roots;
}

/** Visits a forest depth first, parents before children, without recursion. */
function eachTree(forest: readonly TreeNode[], visit: (tree: TreeNode) => void): void {
  const stack = [...forest].reverse();
  for (let tree = stack.pop(); tree !== undefined; tree = stack.pop()) {
    visit(tree);
    for (let i = tree.children.length - 1; i >= 0; i--) stack.push(tree.children[i] as TreeNode);
  }
}

/** Keys of the nodes expanded at start: everything for small trees, the top two levels for large ones. */
export function initiallyExpanded(forest: readonly TreeNode[], total: number): Set<string> {
  const expanded = new Set<string>();
  eachTree(forest, (tree) => {
    if (tree.children.length > 0 && (total <= 500 || tree.depth < 2)) expanded.add(tree.key);
  });
  return expanded;
}

function matches(tree: TreeNode, filter: RowFilter): boolean {
  if (filter.notGatedOnly && tree.node.status === 'gated') return false;
  if (filter.text !== '' && !tree.filterText.includes(visible(filter.text).toLowerCase())) return false;
  return true;
}

/**
 * The visible rows, in tree order. With a filter on, a node shows when it matches or has a matching
 * descendant, and the ancestors of matches are shown open.
 */
export function visibleRows(forest: readonly TreeNode[], expanded: ReadonlySet<string>, filter: RowFilter): Row[] {
  const filtering = filter.notGatedOnly || filter.text !== '';
  const rows: Row[] = [];
  const keep = new Set<string>();
  if (filtering) {
    // Parents are visited before children, so going through the order backwards sees every child first.
    const order: TreeNode[] = [];
    eachTree(forest, (tree) => void order.push(tree));
    for (let i = order.length - 1; i >= 0; i--) {
      const tree = order[i] as TreeNode;
      if (matches(tree, filter) || tree.children.some((child) => keep.has(child.key))) keep.add(tree.key);
    }
  }
  const stack = [...forest].reverse();
  for (let tree = stack.pop(); tree !== undefined; tree = stack.pop()) {
    if (filtering && !keep.has(tree.key)) continue;
    const open = filtering || expanded.has(tree.key);
    rows.push({
      key: tree.key,
      node: tree.node,
      depth: tree.depth,
      label: tree.label,
      module: tree.module,
      hasChildren: tree.children.length > 0,
      expanded: open,
    });
    if (open) for (let i = tree.children.length - 1; i >= 0; i--) stack.push(tree.children[i] as TreeNode);
  }
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
