/**
 * The shell syntax tree as the walk (`analyze.ts`) reads it: `parseShell` reads a line with the shell reader
 * (`./reader/`), and the accessors read the tree's plain objects field by field (`node`, `kind`, `list`, `text`,
 * `num`), giving a neutral value (nothing, an empty list, an empty string, -1) for a field that is not there, so
 * that the walk never reads past the tree's shape.
 */
import { readShell, ShellSyntaxError } from './reader/index.js';
import type { Dialect } from './reader/index.js';

export { ShellSyntaxError };
export type { Dialect };

/** A node of the syntax tree: an object with a string `type` (its kind) and fields by name. */
export type SyntaxNode = { readonly [field: string]: unknown };

/** The name the walk gives a node (the tree was first read from mvdan/sh's Go structs). */
export type GoNode = SyntaxNode;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Reads a command line.
 *
 * A line holding a lone UTF-16 surrogate is refused: it has no UTF-8 form, and bash receives U+FFFD in its place
 * (Node writes that), so a word holding it is not the word bash runs.
 *
 * @param source - the line
 * @param dialect - the shell that runs it
 * @returns the `File` node
 * @throws ShellSyntaxError when bash would not accept the line, or the reader is not sure how bash reads it
 */
export function parseShell(source: string, dialect: Dialect): SyntaxNode {
  if (LONE_SURROGATE.test(source)) {
    throw new ShellSyntaxError('at=0 | the line holds a lone UTF-16 surrogate, which is not text');
  }
  return readShell(source, dialect);
}

/** The node behind a field, or `undefined` for a missing field or anything that is not a node. */
export function node(value: unknown): SyntaxNode | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return typeof (value as { type?: unknown }).type === 'string' ? (value as SyntaxNode) : undefined;
}

/** The node's kind, e.g. `CallExpr`. */
export function kind(value: SyntaxNode): string {
  const type = value.type;
  return typeof type === 'string' ? type : '';
}

/**
 * The nodes of a list field (an empty list for a missing field). The array may be the tree's own: the walk only
 * reads it.
 */
export function list(value: unknown): SyntaxNode[] {
  if (!Array.isArray(value)) return [];
  const items = value as unknown[];
  for (let i = 0; i < items.length; i += 1) {
    if (node(items[i]) === undefined) return items.filter((item): item is SyntaxNode => node(item) !== undefined);
  }
  return items as SyntaxNode[];
}

/** The length of a list field (0 for a missing field). */
export function length(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/** A text field ('' for a missing field). */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A numeric field (operators are numbers; -1 for a missing field). */
export function num(value: unknown): number {
  return typeof value === 'number' ? value : -1;
}
