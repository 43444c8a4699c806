/**
 * The shell parser: `mvdan-sh` (mvdan/sh compiled to JavaScript), loaded on first use and read through its
 * internal objects.
 *
 * Why internal objects: the package's public objects convert the whole subtree to plain JavaScript on every
 * property read (hundreds of microseconds per access), while its internal objects are plain fields (tens of
 * nanoseconds). The internal shape is that of a GopherJS build: structs are objects with their Go field
 * names, slices are `{ $array, $offset, $length }`, a nil pointer is its type's `nil` object, strings are
 * UTF-8 byte strings. The exact version is pinned in `package.json`, and `selfTest` checks that shape when
 * the parser is loaded: a parser that does not look as expected refuses to parse (every line is opaque).
 */
import { createRequire } from 'node:module';

/** A node of the syntax tree (a Go struct as GopherJS builds it). */
export interface GoNode {
  readonly [field: string]: unknown;
}

/** The dialect a line is parsed in. */
export type Dialect = 'bash' | 'sh' | 'mksh';

interface Parser {
  Parse(source: string, name: string): { readonly __internal_object__?: unknown };
}

interface Syntax {
  NewParser(...options: unknown[]): Parser;
  Variant(language: unknown): unknown;
  readonly LangBash: unknown;
  readonly LangPOSIX: unknown;
  readonly LangMirBSDKorn: unknown;
}

let parsers: Record<Dialect, Parser> | { error: string } | undefined;

function loadParsers(): Record<Dialect, Parser> | { error: string } {
  const stackTraceLimit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, 'require');
  try {
    const syntax = (createRequire(import.meta.url)('mvdan-sh') as { syntax: Syntax }).syntax;
    const loaded = {
      bash: syntax.NewParser(syntax.Variant(syntax.LangBash)),
      sh: syntax.NewParser(syntax.Variant(syntax.LangPOSIX)),
      mksh: syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)),
    };
    const problem = selfTest(loaded.bash);
    return problem === undefined ? loaded : { error: problem };
  } catch (error) {
    return { error: `the shell parser cannot be loaded (${error instanceof Error ? error.message : 'unknown error'})` };
  } finally {
    // The GopherJS runtime sets these two globals when it loads; put them back as they were.
    Error.stackTraceLimit = stackTraceLimit;
    if (!hadRequire) Reflect.deleteProperty(globalThis, 'require');
  }
}

/** Checks that the parser's internal objects have the shape this module reads. */
function selfTest(parser: Parser): string | undefined {
  try {
    const file = node(parser.Parse('a b', 'self-test').__internal_object__);
    const stmt = file === undefined ? undefined : list(file.Stmts)[0];
    const call = stmt === undefined ? undefined : node(stmt.Cmd);
    const words = call === undefined ? [] : list(call.Args);
    const lit = words[1] === undefined ? undefined : list(words[1].Parts)[0];
    if (
      call !== undefined &&
      kind(call) === 'CallExpr' &&
      lit !== undefined &&
      kind(lit) === 'Lit' &&
      text(lit.Value) === 'b'
    ) {
      return undefined;
    }
  } catch {
    // fall through
  }
  return 'the shell parser does not have the expected shape (mvdan-sh 0.10.1 is required)';
}

/** Thrown for a line the parser refuses. */
export class ShellSyntaxError extends Error {
  /** @param message - the parser's message */
  constructor(message: string) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

/**
 * Parses a command line.
 *
 * @param source - the line
 * @param dialect - the shell that runs it
 * @returns the `File` node
 * @throws ShellSyntaxError when the line does not parse or the parser is unavailable
 */
export function parseShell(source: string, dialect: Dialect): GoNode {
  parsers ??= loadParsers();
  if ('error' in parsers) throw new ShellSyntaxError(parsers.error);
  let file: GoNode | undefined;
  try {
    file = node(parsers[dialect].Parse(source, 'command').__internal_object__);
  } catch (error) {
    const why = describeParseError(error);
    throw new ShellSyntaxError(why);
  }
  if (file === undefined) throw new ShellSyntaxError('the parser returned no syntax tree');
  return file;
}

function describeParseError(error: unknown): string {
  try {
    const method = (error as { Error?: unknown } | null)?.Error;
    if (typeof method === 'function') {
      const message: unknown = method.call(error);
      if (typeof message === 'string') return message;
    }
  } catch {
    // fall through
  }
  return 'the line does not parse';
}

/** The node behind a field, or `undefined` for a nil pointer, a nil interface or anything else. */
export function node(value: unknown): GoNode | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { constructor?: { string?: unknown; nil?: unknown } }).constructor;
  if (type === undefined || typeof type.string !== 'string' || type.nil === value) return undefined;
  return value as GoNode;
}

/** The node's type name without its package, e.g. `CallExpr`. */
export function kind(value: GoNode): string {
  const name = (value as { constructor: { string: string } }).constructor.string;
  return name.startsWith('*syntax.') ? name.slice('*syntax.'.length) : name;
}

/** The elements of a slice field. */
export function list(value: unknown): GoNode[] {
  if (typeof value !== 'object' || value === null) return [];
  const { $array, $offset, $length } = value as { $array?: unknown; $offset?: unknown; $length?: unknown };
  if (!Array.isArray($array) || typeof $offset !== 'number' || typeof $length !== 'number') return [];
  const out: GoNode[] = [];
  for (let i = 0; i < $length; i += 1) {
    const element = node($array[$offset + i]);
    if (element !== undefined) out.push(element);
  }
  return out;
}

/** The length of a slice field (elements that are nil count too). */
export function length(value: unknown): number {
  const n = (value as { $length?: unknown } | null)?.$length;
  return typeof n === 'number' ? n : 0;
}

// Go strings are UTF-8 byte strings here: one JavaScript character per byte.
const NON_ASCII = /[\u0080-\u00ff]/;

/** A Go string field as JavaScript text. */
export function text(value: unknown): string {
  if (typeof value !== 'string') return '';
  return NON_ASCII.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value;
}

/** A numeric field (operators are numbers). */
export function num(value: unknown): number {
  return typeof value === 'number' ? value : -1;
}
