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

/** A public parser of the package. */
export interface Parser {
  Parse(source: string, name: string): { readonly __internal_object__?: unknown };
}

/** The package's `syntax` export, as this module calls it. */
export interface Syntax {
  NewParser(...options: unknown[]): Parser;
  KeepComments(enabled: boolean): unknown;
  Variant(language: unknown): unknown;
  readonly LangBash: unknown;
  readonly LangPOSIX: unknown;
  readonly LangMirBSDKorn: unknown;
}

/** The Go parser behind a public parser: `Parse(io.Reader, name)` returns `[*File, error]`. */
interface GoParser {
  Parse(reader: GoReader, name: string): unknown;
}

/** A Go `*strings.Reader`, reset to each line. */
interface GoReader {
  Reset(source: string): void;
}

/**
 * The loaded parser, called directly on its Go objects: the public `Parse` converts the line to a Go string,
 * wraps it in a new reader and wraps the tree in an object of getters on every call, which costs more than a
 * tenth of the parse; here one reader is reset to each line and the tree is read as it is.
 */
export interface Loaded {
  readonly parsers: Record<Dialect, GoParser>;
  readonly reader: GoReader;
  /** Go's nil `error` as the runtime represents it: any other second result is a parse error. */
  readonly nilError: unknown;
  /** The same parsers keeping comments: where each comment starts is checked against bash's rule. */
  readonly commenting?: Record<Dialect, GoParser>;
}

let loaded: Loaded | { error: string } | undefined;

function loadParsers(): Loaded | { error: string } {
  const stackTraceLimit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, 'require');
  try {
    const syntax = (createRequire(import.meta.url)('mvdan-sh') as { syntax: Syntax }).syntax;
    const publicParsers = {
      bash: syntax.NewParser(syntax.Variant(syntax.LangBash)),
      sh: syntax.NewParser(syntax.Variant(syntax.LangPOSIX)),
      mksh: syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)),
    };
    const keep = syntax.KeepComments(true);
    const commentParsers = {
      bash: syntax.NewParser(keep, syntax.Variant(syntax.LangBash)),
      sh: syntax.NewParser(keep, syntax.Variant(syntax.LangPOSIX)),
      mksh: syntax.NewParser(keep, syntax.Variant(syntax.LangMirBSDKorn)),
    };
    return selfTest(publicParsers, commentParsers) ?? { error: SHAPE_ERROR };
  } catch (error) {
    return { error: `the shell parser cannot be loaded (${error instanceof Error ? error.message : 'unknown error'})` };
  } finally {
    // The GopherJS runtime sets these two globals when it loads; put them back as they were.
    Error.stackTraceLimit = stackTraceLimit;
    if (!hadRequire) Reflect.deleteProperty(globalThis, 'require');
  }
}

const SHAPE_ERROR = 'the shell parser does not have the expected shape (mvdan-sh 0.10.1 is required)';

/** The Go parser inside a public parser, when it has the expected shape. */
function goParser(parser: Parser): GoParser | undefined {
  const inner = node((parser as { __internal_object__?: unknown }).__internal_object__);
  const go = inner === undefined ? undefined : node(inner.Parser);
  if (go === undefined || kind(go) !== 'Parser' || typeof go.Parse !== 'function') return undefined;
  return go as unknown as GoParser;
}

/**
 * Reaches the Go objects behind the public parsers and checks that they behave as this module reads them:
 * a line parses into the expected tree, through the public API and directly, and a line that does not
 * parse gives an error, so that a failed parse is never read as a tree. Returns `undefined` otherwise (the
 * parser then refuses every line, which makes every line opaque). Exported for its fault tests only.
 *
 * @param publicParsers - the package's public parser of each dialect
 */
export function selfTest(
  publicParsers: Record<Dialect, Parser>,
  commentParsers?: Record<Dialect, Parser>,
): Loaded | undefined {
  try {
    const viaApi = node(publicParsers.bash.Parse('a b', 'self-test').__internal_object__);
    if (viaApi === undefined || !isSelfTestTree(viaApi)) return undefined;
    const bash = goParser(publicParsers.bash);
    const sh = goParser(publicParsers.sh);
    const mksh = goParser(publicParsers.mksh);
    // The public Parse left its reader in the Go parser: reuse it.
    const reader = node((bash as unknown as GoNode | undefined)?.src);
    if (bash === undefined || sh === undefined || mksh === undefined || reader === undefined) return undefined;
    if (kind(reader) !== '*strings.Reader' || typeof reader.Reset !== 'function') return undefined;
    const goReader = reader as unknown as GoReader;
    const parsed = callParser(bash, goReader, 'a b');
    if (parsed === undefined) return undefined;
    const [tree, nilError] = parsed;
    const file = node(tree);
    if (file === undefined || !isSelfTestTree(file)) return undefined;
    const commenting = commentParsers === undefined ? undefined : commentingParsers(commentParsers, goReader, nilError);
    const result: Loaded = {
      parsers: { bash, sh, mksh },
      reader: goReader,
      nilError,
      ...(commenting === undefined ? {} : { commenting }),
    };
    // A line that does not parse must come back with an error other than the nil one.
    for (const dialect of ['bash', 'sh', 'mksh'] as const) {
      const failed = callParser(result.parsers[dialect], goReader, 'a (');
      if (failed === undefined || failed[1] === nilError || describeParseError(failed[1]) === undefined) {
        return undefined;
      }
    }
    return result;
  } catch {
    return undefined;
  }
}

/** The comment-keeping Go parsers, when each finds the comment of `a #c` where it starts. */
function commentingParsers(
  parsers: Record<Dialect, Parser>,
  reader: GoReader,
  nilError: unknown,
): Record<Dialect, GoParser> | undefined {
  const bash = goParser(parsers.bash);
  const sh = goParser(parsers.sh);
  const mksh = goParser(parsers.mksh);
  if (bash === undefined || sh === undefined || mksh === undefined) return undefined;
  const found = { bash, sh, mksh };
  for (const dialect of ['bash', 'sh', 'mksh'] as const) {
    const parsed = callParser(found[dialect], reader, 'a #c');
    if (parsed === undefined || parsed[1] !== nilError) return undefined;
    const file = node(parsed[0]);
    if (file === undefined || commentStarts(file).join() !== '2') return undefined;
  }
  return found;
}

/** Where every comment of a tree starts (byte offsets of its `#`), wherever the parser kept it. */
function commentStarts(root: GoNode): number[] {
  const starts: number[] = [];
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    const fields = value as Record<string, unknown>;
    if ('$array' in fields) {
      // A slice: only its own elements (its backing array is shared, and holds what earlier parses left).
      const { $array, $offset, $length } = fields;
      if (Array.isArray($array) && typeof $offset === 'number' && typeof $length === 'number') {
        for (let i = 0; i < $length; i += 1) stack.push($array[$offset + i]);
      }
      continue;
    }
    if ('Hash' in fields && 'Text' in fields) {
      const offset = node(fields.Hash)?.offs;
      if (typeof offset === 'number') starts.push(offset);
      continue;
    }
    for (const key of Object.keys(fields)) if (key !== '$val') stack.push(fields[key]);
  }
  return starts.sort((a, b) => a - b);
}

/**
 * The bytes after which a `#` starts a word for bash (and so a comment): blanks and the metacharacters, but `)`,
 * which ends a `$(…)`, `$((…))`, `<(…)` or an extglob inside a word as often as it ends a subshell (a comment
 * glued to a subshell's `)` is read as code: refused, never misread).
 */
const WORD_BREAKS = new Set([' ', '\t', '\n', ';', '&', '|', '(', '<', '>']);

/**
 * Whether the parser starts a comment where bash does not: bash starts one only at a `#` that begins a word,
 * the parser also at a `#` right after a quoted or expanded part of a word (`ls ''#;touch p`, `echo $HOME#;x`),
 * so bash runs what the parser takes for a comment. Only lines with a `#` inside a word are parsed again.
 *
 * @param source - the line
 * @param dialect - the shell that runs it
 * @returns true when the parser misreads a comment, or cannot tell (fail closed)
 */
export function misreadsComment(source: string, dialect: Dialect): boolean {
  if (!/[^\s;&|(<>]#/.test(source)) return false;
  loaded ??= loadParsers();
  if ('error' in loaded || loaded.commenting === undefined) return true;
  const goSource = goString(source);
  if (goSource === undefined) return true;
  let parsed: [unknown, unknown] | undefined;
  try {
    parsed = callParser(loaded.commenting[dialect], loaded.reader, goSource);
  } catch {
    return true;
  }
  const file = parsed === undefined || parsed[1] !== loaded.nilError ? undefined : node(parsed[0]);
  if (file === undefined) return true;
  return commentStarts(file).some((offset) => offset > 0 && !WORD_BREAKS.has(goSource.charAt(offset - 1)));
}

function isSelfTestTree(file: GoNode): boolean {
  const stmt = list(file.Stmts)[0];
  const call = stmt === undefined ? undefined : node(stmt.Cmd);
  const words = call === undefined ? [] : list(call.Args);
  const lit = words[1] === undefined ? undefined : list(words[1].Parts)[0];
  return (
    kind(file) === 'File' &&
    call !== undefined &&
    kind(call) === 'CallExpr' &&
    lit !== undefined &&
    kind(lit) === 'Lit' &&
    text(lit.Value) === 'b'
  );
}

/** Runs the Go parser on a Go string: `[tree, error]`, or `undefined` for a result of another shape. */
function callParser(parser: GoParser, reader: GoReader, goSource: string): [unknown, unknown] | undefined {
  reader.Reset(goSource);
  const result = parser.Parse(reader, 'command');
  if (!Array.isArray(result) || result.length !== 2) return undefined;
  return [result[0], result[1]];
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
  loaded ??= loadParsers();
  if ('error' in loaded) throw new ShellSyntaxError(loaded.error);
  const goSource = goString(source);
  if (goSource === undefined) throw new ShellSyntaxError('the line holds a lone UTF-16 surrogate, which is not text');
  let parsed: [unknown, unknown] | undefined;
  try {
    parsed = callParser(loaded.parsers[dialect], loaded.reader, goSource);
  } catch (error) {
    throw new ShellSyntaxError(describeParseError(error) ?? 'the line does not parse');
  }
  if (parsed === undefined) throw new ShellSyntaxError('the parser returned no syntax tree');
  const [tree, error] = parsed;
  if (error !== loaded.nilError) throw new ShellSyntaxError(describeParseError(error) ?? 'the line does not parse');
  const file = node(tree);
  if (file === undefined || kind(file) !== 'File') throw new ShellSyntaxError('the parser returned no syntax tree');
  return file;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A line as a Go string (its UTF-8 bytes, one character per byte), or `undefined` when it holds a lone
 * surrogate: such a line has no UTF-8 form (Node writes U+FFFD for it, while the parser's own conversion
 * would join it with the next character and hide that character from the analysis).
 */
function isAscii(source: string): boolean {
  for (let i = 0; i < source.length; i += 1) if (source.charCodeAt(i) > 0x7f) return false;
  return true;
}

function goString(source: string): string | undefined {
  if (isAscii(source)) return source;
  if (LONE_SURROGATE.test(source)) return undefined;
  return Buffer.from(source, 'utf8').toString('latin1');
}

function describeParseError(error: unknown): string | undefined {
  try {
    const method = (error as { Error?: unknown } | null)?.Error;
    if (typeof method === 'function') {
      const message: unknown = method.call(error);
      if (typeof message === 'string') return text(message);
    }
  } catch {
    // fall through
  }
  return undefined;
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
  let short = KINDS.get(name);
  if (short === undefined) {
    short = name.startsWith('*syntax.') ? name.slice('*syntax.'.length) : name;
    KINDS.set(name, short);
  }
  return short;
}

/** Type names seen, without their package (a few dozen: the parser's types). */
const KINDS = new Map<string, string>();

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
