/**
 * mvdan-sh (mvdan/sh 0.10.1 compiled to JavaScript by GopherJS), the parser the shell analysis used before its own
 * reader, kept as a second opinion for tests only: `mvdanParse` parses a line with it and converts its Go objects
 * (structs with their Go field names, slices as `{ $array, $offset, $length }`, UTF-8 byte strings) into the plain
 * tree the walk reads, so that the walk can run on either reading.
 */
import { createRequire } from 'node:module';
import { ShellSyntaxError, type SyntaxNode } from '../../../../src/policy/shell/syntax.js';

type Dialect = 'bash' | 'sh' | 'mksh';

interface PublicParser {
  Parse(source: string, name: string): { readonly __internal_object__?: unknown };
}

interface Syntax {
  NewParser(...options: unknown[]): PublicParser;
  Variant(language: unknown): unknown;
  readonly LangBash: unknown;
  readonly LangPOSIX: unknown;
  readonly LangMirBSDKorn: unknown;
}

let parsers: Record<Dialect, PublicParser> | undefined;

function load(): Record<Dialect, PublicParser> {
  const stackTraceLimit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, 'require');
  try {
    const syntax = (createRequire(import.meta.url)('mvdan-sh') as { syntax: Syntax }).syntax;
    return {
      bash: syntax.NewParser(syntax.Variant(syntax.LangBash)),
      sh: syntax.NewParser(syntax.Variant(syntax.LangPOSIX)),
      mksh: syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)),
    };
  } finally {
    // The GopherJS runtime sets these two globals when it loads; put them back as they were.
    Error.stackTraceLimit = stackTraceLimit;
    if (!hadRequire) Reflect.deleteProperty(globalThis, 'require');
  }
}

/**
 * Parses a line with mvdan-sh into the plain tree the walk reads.
 *
 * @throws ShellSyntaxError when mvdan-sh refuses the line
 */
export function mvdanParse(source: string, dialect: Dialect): SyntaxNode {
  // As the analysis's parser does: a line without a UTF-8 form is refused before any reader sees it.
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(source)) {
    throw new ShellSyntaxError('mvdan-sh | a lone UTF-16 surrogate');
  }
  parsers ??= load();
  let file: unknown;
  try {
    file = parsers[dialect].Parse(source, 'command').__internal_object__;
  } catch (error) {
    throw new ShellSyntaxError(`mvdan-sh | ${error instanceof Error ? error.message : 'the line does not parse'}`);
  }
  const tree = convert(file, 0);
  if (typeof tree !== 'object' || tree === null) throw new ShellSyntaxError('mvdan-sh | no syntax tree');
  return tree as SyntaxNode;
}

/** A Go value as plain JavaScript: a struct as an object with `type`, a slice as an array, a string decoded. */
function convert(value: unknown, depth: number): unknown {
  if (depth > 200) throw new ShellSyntaxError('mvdan-sh | a tree nested too deeply');
  if (typeof value === 'string')
    return /[\u0080-\u00ff]/.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value;
  if (typeof value !== 'object' || value === null) return value;
  const fields = value as Record<string, unknown>;
  if ('$array' in fields) {
    const { $array, $offset, $length } = fields as { $array: unknown[]; $offset: number; $length: number };
    const out: unknown[] = [];
    for (let i = 0; i < $length; i += 1) {
      const element = convert($array[$offset + i], depth + 1);
      if (element !== undefined) out.push(element);
    }
    return out;
  }
  const type = (value as { constructor?: { string?: unknown; nil?: unknown } }).constructor;
  if (type === undefined || typeof type.string !== 'string' || type.nil === value) return undefined;
  const name = type.string.startsWith('*syntax.') ? type.string.slice('*syntax.'.length) : type.string;
  const out: Record<string, unknown> = { type: name.startsWith('syntax.') ? name.slice('syntax.'.length) : name };
  for (const key of Object.keys(fields)) {
    if (key.startsWith('$')) continue;
    out[key] = convert(fields[key], depth + 1);
  }
  return out;
}
