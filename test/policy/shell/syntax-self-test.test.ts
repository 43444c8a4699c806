/**
 * In-process fault tests of the shell parser's load-time self-test, so that mutation testing (whose mutants live
 * only in this process) can see each check fail. The parser is the real, pinned `mvdan-sh`: each test hands the
 * self-test the package's own parsers with one piece changed the way another build or version of the package
 * could change it (a tree of another shape, a missing internal object, a reader of another type, a parse that
 * answers a broken line without an error). The self-test must then refuse the parser (`undefined`: every line is
 * then opaque), and accept the untouched one.
 *
 * Each check of `selfTest`, `isSelfTestTree`, `callParser` and `describeParseError` was removed by hand and one of
 * these tests failed, except where the self-test's own `try` refuses the same fault a step later (so the outcome
 * is the same, and the mutant equivalent): a missing `sh`, `mksh`, `bash` or reader (the next read of it throws), a
 * `Parse` or `Reset` that is not a function (calling it throws), no result from the Go parse or no result for the
 * broken line (destructuring it throws), no statement or no literal in the tree (`kind` of nothing throws), a
 * message method that is not a function (calling it throws), and `node(x?.y)` for `x === undefined ? undefined :
 * node(x.y)` (the same value).
 *
 * Not reachable in-process: `loadParsers`' `finally`, which puts back the two globals the GopherJS runtime sets
 * when the package is first loaded. The package loads once per process, before any test here could watch it.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type GoNode, type Parser, type Syntax, selfTest } from '../../../src/policy/shell/syntax.js';

const syntax = (createRequire(import.meta.url)('mvdan-sh') as { syntax: Syntax }).syntax;

type Parsers = Record<'bash' | 'sh' | 'mksh', Parser>;

/** A fresh set of the package's public parsers. */
function realParsers(): Parsers {
  return {
    bash: syntax.NewParser(syntax.Variant(syntax.LangBash)),
    sh: syntax.NewParser(syntax.Variant(syntax.LangPOSIX)),
    mksh: syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)),
  };
}

/** The Go parser behind a public parser, as the package builds it. */
function goParserOf(parser: Parser): GoNode & { Parse(reader: unknown, name: string): unknown } {
  return (parser as unknown as { __internal_object__: { Parser: never } }).__internal_object__.Parser;
}

/** A public parser whose internal object is `inner`, and whose public `Parse` is the real one's. */
function withInner(real: Parser, inner: unknown): Parser {
  return { Parse: (source, name) => real.Parse(source, name), __internal_object__: inner } as Parser;
}

/** A Go object of the named type (its constructor carries the type's name, as GopherJS builds it). */
function goObject(type: string, fields: Record<string, unknown>): GoNode {
  const value: GoNode = Object.create({ constructor: { string: type, nil: null } }) as GoNode;
  return Object.assign(value, fields);
}

/**
 * The bash parser with its Go parser replaced by one that inherits everything from the real one (so it parses
 * through the same reader) and answers `Parse` with `parse(realResult, source)`.
 */
function withGoParse(
  parsers: Parsers,
  dialect: keyof Parsers,
  parse: (result: unknown[], reader: { Len?: () => number }) => unknown,
): Parsers {
  const real = parsers[dialect];
  const go = goParserOf(real);
  const wrapped = Object.create(go) as GoNode & { Parse: unknown };
  Object.defineProperty(wrapped, 'Parse', {
    value: (reader: { Len?: () => number }, name: string) => parse(go.Parse(reader, name) as unknown[], reader),
  });
  if (dialect === 'bash') {
    // The self-test reads the reader the public `Parse` left behind, from the bash parser's own field.
    Object.defineProperty(wrapped, 'src', { get: () => go.src });
  }
  const inner = (real as unknown as { __internal_object__: object }).__internal_object__;
  return { ...parsers, [dialect]: withInner(real, Object.assign(Object.create(inner) as object, { Parser: wrapped })) };
}

/** The public bash parser answering every line with the tree of `line`. */
function publicTreeOf(parsers: Parsers, line: string): Parsers {
  const real = parsers.bash;
  const inner = (real as unknown as { __internal_object__: unknown }).__internal_object__;
  return {
    ...parsers,
    bash: { Parse: (_source, name) => real.Parse(line, name), __internal_object__: inner } as Parser,
  };
}

/** A Go node that reads as `value` but whose type is `type`: every field is inherited from the real node. */
function retyped<T extends object>(value: T, type: string): T {
  return Object.defineProperty(Object.create(value) as T, 'constructor', { value: { string: type, nil: null } });
}

/** A Go node that reads as `value` with some fields replaced. */
function withFields<T extends object>(value: T, fields: Record<string, unknown>): T {
  return Object.assign(Object.create(value) as T, fields);
}

/** A Go slice of the given elements, as GopherJS builds one. */
function slice(elements: readonly unknown[]): unknown {
  return { $array: [...elements], $offset: 0, $length: elements.length };
}

/** The first element of a Go slice. */
function first(value: unknown): GoNode {
  const { $array, $offset } = value as { $array: GoNode[]; $offset: number };
  return $array[$offset] as GoNode;
}

/**
 * The tree of `a b` rebuilt from its real nodes, with `change` applied to the call or to the literal `b`: what a
 * tree of the same fields but other node types would look like.
 */
function rebuiltTree(change: { call?: string; lit?: string }): GoNode {
  const file = realParsers().bash.Parse('a b', 'x').__internal_object__ as GoNode;
  const stmt = first(file.Stmts);
  const call = stmt.Cmd as GoNode;
  const words = call.Args as { $array: GoNode[]; $offset: number };
  const word = words.$array[words.$offset + 1] as GoNode;
  const lit = first(word.Parts);
  const newWord = withFields(word, { Parts: slice([change.lit === undefined ? lit : retyped(lit, change.lit)]) });
  const newCall = withFields(call, { Args: slice([words.$array[words.$offset], newWord]) });
  const newStmt = withFields(stmt, { Cmd: change.call === undefined ? newCall : retyped(newCall, change.call) });
  return withFields(file, { Stmts: slice([newStmt]) });
}

/** The bash parser answering its public `Parse` with `tree` (after parsing the line, which sets its reader). */
function publicTree(parsers: Parsers, tree: GoNode): Parsers {
  const real = parsers.bash;
  const inner = (real as unknown as { __internal_object__: unknown }).__internal_object__;
  const Parse = (source: string, name: string): object => {
    real.Parse(source, name);
    return { __internal_object__: tree };
  };
  return { ...parsers, bash: { Parse, __internal_object__: inner } as Parser };
}

describe('the shell parser self-test', () => {
  it('accepts the package as pinned, and reads its Go parsers, reader and nil error', () => {
    const parsers = realParsers();
    const loaded = selfTest(parsers);
    expect(loaded).toBeDefined();
    expect(loaded?.parsers.bash).toBe(goParserOf(parsers.bash));
    expect(loaded?.parsers.sh).toBe(goParserOf(parsers.sh));
    expect(loaded?.parsers.mksh).toBe(goParserOf(parsers.mksh));
    expect((loaded?.reader as unknown as GoNode).constructor).toEqual(
      expect.objectContaining({ string: '*strings.Reader' }),
    );
    // The nil error is what a line that parses comes back with.
    const go = goParserOf(parsers.bash);
    loaded?.reader.Reset('ls -l');
    expect((go.Parse(loaded?.reader, 'x') as unknown[])[1]).toBe(loaded?.nilError);
  });

  it('refuses a public parser whose tree is not `a b` read as a call with the literal word b', () => {
    // Another word, one word only, another command kind, a word that is not a bare literal.
    for (const line of ['a c', 'a', '(a b)', 'a "b"', 'a $b', '']) {
      expect(selfTest(publicTreeOf(realParsers(), line)), line).toBeUndefined();
    }
    const parsers = realParsers();
    const noTree = { Parse: () => ({}), __internal_object__: (parsers.bash as never)['__internal_object__'] };
    expect(selfTest({ ...parsers, bash: noTree })).toBeUndefined();
  });

  it('refuses a tree whose root is not a File, even with the right statements', () => {
    const parsers = realParsers();
    const file = parsers.bash.Parse('a b', 'x').__internal_object__ as GoNode;
    const notFile = goObject('*syntax.Stmt', { Stmts: file.Stmts });
    const inner = (parsers.bash as unknown as { __internal_object__: unknown }).__internal_object__;
    const bash = { Parse: () => ({ __internal_object__: notFile }), __internal_object__: inner } as Parser;
    expect(selfTest({ ...parsers, bash })).toBeUndefined();
    // The same statements under a File-typed root pass: only the root's type was wrong.
    const asFile = goObject('*syntax.File', { Stmts: file.Stmts });
    expect(selfTest({ ...parsers, bash: { ...bash, Parse: () => ({ __internal_object__: asFile }) } })).toBeDefined();
  });

  it('refuses a dialect whose public parser has no Go parser of the expected type behind it', () => {
    for (const dialect of ['bash', 'sh', 'mksh'] as const) {
      const parsers = realParsers();
      const real = parsers[dialect];
      const go = goParserOf(real);
      const faults: [string, unknown][] = [
        ['no internal object', undefined],
        ['no Go parser', goObject('*main.jsParser', {})],
        [
          'a Go parser of another type',
          goObject('*main.jsParser', {
            Parser: goObject('*syntax.Printer', { Parse: (...args: [unknown, string]) => go.Parse(...args) }),
          }),
        ],
        [
          'a Parse that is not a function',
          goObject('*main.jsParser', { Parser: goObject('*syntax.Parser', { Parse: 1 }) }),
        ],
      ];
      for (const [what, inner] of faults) {
        expect(selfTest({ ...parsers, [dialect]: withInner(real, inner) }), `${dialect}: ${what}`).toBeUndefined();
      }
    }
  });

  it('refuses a reader that is not a Go strings.Reader with Reset', () => {
    for (const [what, reader] of [
      ['none', undefined],
      ['a bytes.Reader', goObject('*bytes.Reader', { Reset: () => undefined })],
      ['a Reset that is not a function', goObject('*strings.Reader', { Reset: 1 })],
    ] as const) {
      const parsers = realParsers();
      const real = parsers.bash;
      const go = goParserOf(real);
      const wrapped = Object.create(go) as object;
      Object.defineProperty(wrapped, 'src', { value: reader });
      const inner = Object.assign(Object.create((real as never)['__internal_object__']) as object, { Parser: wrapped });
      expect(selfTest({ ...parsers, bash: withInner(real, inner) }), what).toBeUndefined();
    }
  });

  it('refuses a Go parse that answers with another shape or another tree', () => {
    const faults: [string, (result: unknown[]) => unknown][] = [
      ['not an array', (result) => ({ 0: result[0], 1: result[1], length: 2 })],
      ['one element', (result) => [result[0]]],
      ['three elements', (result) => [result[0], result[1], undefined]],
      ['no tree', (result) => [undefined, result[1]]],
    ];
    for (const [what, parse] of faults) {
      expect(selfTest(withGoParse(realParsers(), 'bash', parse)), what).toBeUndefined();
    }
    // Another tree: what the reader holds is parsed as `a c` instead.
    const other = realParsers();
    const otherTree = other.bash.Parse('a c', 'x').__internal_object__;
    expect(selfTest(withGoParse(other, 'bash', (result) => [otherTree, result[1]]))).toBeUndefined();
    // Passed through unchanged, the wrapping itself is accepted.
    expect(selfTest(withGoParse(realParsers(), 'bash', (result) => result))).toBeDefined();
  });

  it('refuses a dialect that answers a line that does not parse without a describable error', () => {
    for (const dialect of ['bash', 'sh', 'mksh'] as const) {
      let nil: unknown;
      const faults: [string, (result: unknown[]) => unknown][] = [
        // `a (` is the only line each dialect is asked that does not parse: answer it as if it did.
        ['the nil error', (result) => (result[1] !== nil ? [result[0], nil] : ((nil = result[1]), result))],
        [
          'an error without a message',
          (result) => (result[1] !== nil ? [result[0], { Error: 1 }] : ((nil = result[1]), result)),
        ],
        [
          'an error whose message is not text',
          (result) => (result[1] !== nil ? [result[0], { Error: () => 7 }] : ((nil = result[1]), result)),
        ],
        [
          'an error whose message throws',
          (result) =>
            result[1] !== nil
              ? [
                  result[0],
                  {
                    Error: () => {
                      throw new Error('x');
                    },
                  },
                ]
              : ((nil = result[1]), result),
        ],
        ['no result', (result) => (result[1] !== nil ? undefined : ((nil = result[1]), result))],
      ];
      for (const [what, parse] of faults) {
        nil = nilOf();
        expect(selfTest(withGoParse(realParsers(), dialect, parse)), `${dialect}: ${what}`).toBeUndefined();
      }
    }
  });

  it('refuses a tree whose call or word is of another node type, with the same fields', () => {
    expect(selfTest(publicTree(realParsers(), rebuiltTree({})))).toBeDefined();
    expect(selfTest(publicTree(realParsers(), rebuiltTree({ call: '*syntax.Subshell' })))).toBeUndefined();
    expect(selfTest(publicTree(realParsers(), rebuiltTree({ lit: '*syntax.SglQuoted' })))).toBeUndefined();
  });

  it('refuses a working Go parser or reader of another type', () => {
    const parsers = realParsers();
    const real = parsers.sh;
    const inner = (real as unknown as { __internal_object__: object }).__internal_object__;
    const printer = retyped(goParserOf(real), '*syntax.Printer');
    expect(selfTest({ ...parsers, sh: withInner(real, withFields(inner, { Parser: printer })) })).toBeUndefined();
    // The same wrapping, its type left alone, is accepted: the wrapped parser works.
    const same = withFields(goParserOf(real), {});
    expect(selfTest({ ...parsers, sh: withInner(real, withFields(inner, { Parser: same })) })).toBeDefined();

    for (const [type, accepted] of [
      ['*bytes.Reader', false],
      [undefined, true],
    ] as const) {
      const set = realParsers();
      const bash = goParserOf(set.bash);
      set.bash.Parse('a b', 'x');
      const reader = bash.src as object;
      const wrapped = withFields(bash, { src: type === undefined ? withFields(reader, {}) : retyped(reader, type) });
      const bashInner = (set.bash as unknown as { __internal_object__: object }).__internal_object__;
      const result = selfTest({ ...set, bash: withInner(set.bash, withFields(bashInner, { Parser: wrapped })) });
      expect(result !== undefined, String(type)).toBe(accepted);
    }
  });

  it('refuses a parser whose answer to a broken line is the same value it gives a good one', () => {
    // Even a value that reads as an error: it is what a line that parses comes back with, so it cannot tell.
    const same = { Error: () => 'no error' };
    expect(selfTest(withGoParse(realParsers(), 'bash', (result) => [result[0], same]))).toBeUndefined();
  });

  it('refuses a parser that throws while it is tested, instead of throwing', () => {
    const parsers = realParsers();
    const throwing = {
      Parse: () => {
        throw new Error('broken build');
      },
    } as unknown as Parser;
    expect(selfTest({ ...parsers, bash: throwing })).toBeUndefined();
    expect(
      selfTest(
        withGoParse(realParsers(), 'mksh', () => {
          throw new Error('broken build');
        }),
      ),
    ).toBeUndefined();
  });
});

/** Go's nil error as the runtime represents it, read from a line that parses. */
function nilOf(): unknown {
  const loaded = selfTest(realParsers());
  if (loaded === undefined) throw new Error('the pinned parser failed its self-test');
  return loaded.nilError;
}
