/**
 * Generated shell lines, checked against bash itself: each class of misreading as a class, not as the
 * literal lines that found it, and a seeded generator over the whole grammar.
 *
 * - `classLines()`: every quoting and expansion form × every position a word takes × every separator,
 *   with a `#` glued after the form (bash starts a comment only at the start of a word) and without, with
 *   extglob on (set on an earlier line, as bash needs it) and off; each line ends in a command after the
 *   separator, which bash runs whenever the `#` is not a comment.
 * - `grammarLines(seed, count)`: random lines over lists, pipelines, compound commands, functions,
 *   here-documents, arithmetic, `coproc`, substitutions nested up to 3 deep, from a seeded generator, so the
 *   same seed gives the same lines on every machine.
 */

/** A generated line and the shell that reads it. */
export interface GeneratedLine {
  readonly line: string;
  readonly dialect: 'bash' | 'sh';
  /** The class or generator it comes from. */
  readonly family: string;
}

/** Quoting and expansion forms, as they appear inside a word. */
export const FORMS: readonly string[] = [
  "''",
  '""',
  '$x',
  '${x}',
  '$(ls)',
  '`ls`',
  '$((1))',
  "$'a'",
  '<(ls)',
  '~',
  '{a,b}',
  '*',
  '@(a|b)',
  // A backquote substitution inside double quotes: bash drops the backslash of `\"` before it reads the
  // inner command, so the inner `;` separates two commands (and deeper, `\\\`` is a nested backquote).
  '"`ls \\"x\\";touch q`"',
  '"`ls \\"\\\\`touch r\\\\`\\"`"',
];

/** Positions a word takes, each a line built around the word. */
export const POSITIONS: readonly {
  readonly name: string;
  readonly bashOnly?: boolean;
  readonly of: (w: string) => string;
}[] = [
  { name: 'program', of: (w) => w },
  { name: 'argument', of: (w) => `ls ${w}` },
  { name: 'assignment', of: (w) => `X=${w} ls` },
  { name: 'redirection target', of: (w) => `ls >o${w}` },
  { name: 'redirection source', of: (w) => `cat <a${w}` },
  { name: 'for list', of: (w) => `for i in ${w}; do ls "$i"; done` },
  { name: 'case word', of: (w) => `case ${w} in x) ls;; esac` },
  { name: '[[ ]]', bashOnly: true, of: (w) => `[[ ${w} == x ]]` },
];

/** Separators between the line's two commands. */
export const SEPARATORS: readonly string[] = [';', '|', '&&', '\n'];

/** Every form × position × separator, with and without a glued `#`, extglob on and off (bash), and in sh. */
export function classLines(): GeneratedLine[] {
  const out: GeneratedLine[] = [];
  for (const form of FORMS) {
    for (const position of POSITIONS) {
      for (const separator of SEPARATORS) {
        for (const hash of ['#', '']) {
          const body = `${position.of(`${form}${hash}`)}${separator}touch p`;
          const family = `class ${JSON.stringify(form)} at ${position.name}${hash === '' ? '' : ' with #'}`;
          out.push({ line: body, dialect: 'bash', family });
          if (hash === '#')
            out.push({ line: `shopt -s extglob\n${body}`, dialect: 'bash', family: `${family}, extglob` });
          if (hash === '#' && position.bashOnly !== true)
            out.push({ line: body, dialect: 'sh', family: `${family}, sh` });
        }
      }
    }
  }
  return out;
}

/** A small seeded generator (mulberry32): the same seed, the same lines, on every machine. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROGRAMS = ['ls', 'cat', 'rm', 'touch', 'git', 'echo', 'grep', 'find', 'env', 'xargs', 'printf', 'true'];
const LITERALS = ['a', 'b', '-f', '-rf', '/', 'x y', '.', '--', 'p', 'in', '-n', '%s'];

/** The grammar's pieces, each built from a random source and a depth budget. */
class Grammar {
  private _functions = 0;

  constructor(private readonly _next: () => number) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this._next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this._next() < p;
  }

  word(depth: number): string {
    const parts: string[] = [];
    const count = 1 + Math.floor(this._next() * 2);
    for (let i = 0; i < count; i += 1) parts.push(this.wordPart(depth));
    return parts.join('');
  }

  wordPart(depth: number): string {
    const deeper = depth > 0;
    const choice = this._next();
    if (choice < 0.35 || !deeper) return this.pick(LITERALS).replace(' ', '\\ ');
    if (choice < 0.45) return `'${this.pick(LITERALS)}'`;
    if (choice < 0.55) return `"${this.pick(LITERALS)}${this.chance(0.5) ? `$(${this.command(depth - 1)})` : '$x'}"`;
    if (choice < 0.63) return `$(${this.list(depth - 1)})`;
    if (choice < 0.68) return `\`${this.command(depth - 1)}\``;
    if (choice < 0.73) return `\${x:-${this.word(depth - 1)}}`;
    if (choice < 0.77) return `$((${Math.floor(this._next() * 9)} + 1))`;
    if (choice < 0.81) return `<(${this.command(depth - 1)})`;
    if (choice < 0.85) return this.pick(['*', '?', '~', '{a,b}', '[ab]', "$'a\\'b'", '$?', '$1', '#', '\\#']);
    if (choice < 0.9) return `"\`${this.pick(PROGRAMS)} \\"${this.pick(LITERALS)}\\"\`"`;
    return this.pick(["''#", '""#', '$x#', '${x}#']);
  }

  command(depth: number): string {
    const choice = this._next();
    if (depth > 0 && choice < 0.08) return `( ${this.list(depth - 1)} )`;
    if (depth > 0 && choice < 0.14) return `{ ${this.list(depth - 1)}; }`;
    if (depth > 0 && choice < 0.19) return `if ${this.command(depth - 1)}; then ${this.list(depth - 1)}; fi`;
    if (depth > 0 && choice < 0.23) return `for i in ${this.word(depth - 1)}; do ${this.list(depth - 1)}; done`;
    if (depth > 0 && choice < 0.26) return `while false; do ${this.list(depth - 1)}; done`;
    if (depth > 0 && choice < 0.29) return `case ${this.word(depth - 1)} in *) ${this.list(depth - 1)};; esac`;
    if (depth > 0 && choice < 0.32) {
      // A name of its own: a body that called an outer function of the same name would recurse forever.
      this._functions += 1;
      const name = `f${this._functions}`;
      return `${name}() { ${this.list(depth - 1)}; }; ${name}`;
    }
    if (depth > 0 && choice < 0.35) return `coproc ${this.simple(depth - 1)}`;
    if (depth > 0 && choice < 0.38) return `(( ${Math.floor(this._next() * 5)} ))`;
    if (depth > 0 && choice < 0.41) return `[[ ${this.word(depth - 1)} == ${this.word(depth - 1)} ]]`;
    if (depth > 0 && choice < 0.44) return `${this.pick(['!', 'time', '! !', 'time !'])} ${this.simple(depth - 1)}`;
    return this.simple(depth);
  }

  simple(depth: number): string {
    const words: string[] = [];
    if (this.chance(0.15)) words.push(`X=${this.word(depth)}`);
    words.push(this.pick(PROGRAMS));
    const count = Math.floor(this._next() * 3);
    for (let i = 0; i < count; i += 1) words.push(this.word(depth));
    if (this.chance(0.2)) words.push(this.pick(['>o', '2>/dev/null', '<a', '>>o', '<<<w', '&>o']));
    return words.join(' ');
  }

  list(depth: number): string {
    let line = this.command(depth);
    const more = Math.floor(this._next() * 3);
    for (let i = 0; i < more; i += 1)
      line += `${this.pick([' ; ', ' | ', ' && ', ' || ', '\n', ' & '])}${this.command(depth)}`;
    return line;
  }

  heredoc(depth: number): string {
    const quoted = this.chance(0.5);
    const body = this.chance(0.5) ? `$(${this.command(depth)})` : `it's ${this.pick(LITERALS)}`;
    return `cat <<${quoted ? "'EOF'" : 'EOF'}\n${body}\nEOF\n${this.command(depth)}`;
  }

  line(depth: number): string {
    return this.chance(0.1) ? this.heredoc(depth) : this.list(depth);
  }
}

/**
 * Random lines over the grammar, nesting up to 3 deep.
 *
 * @param seed - the generator's seed
 * @param count - how many lines
 */
export function grammarLines(seed: number, count: number): GeneratedLine[] {
  const grammar = new Grammar(random(seed));
  const out: GeneratedLine[] = [];
  for (let i = 0; i < count; i += 1) {
    const line = grammar.line(3);
    out.push({ line, dialect: grammar.chance(0.75) ? 'bash' : 'sh', family: `grammar seed ${seed}` });
  }
  return out;
}

/** Mutations of a line: a character inserted, a span removed or doubled, quotes swapped. */
export function mutate(line: string, next: () => number): string {
  const at = Math.floor(next() * (line.length + 1));
  const choice = next();
  const inserts = [
    '#',
    "'",
    '"',
    '`',
    '\\',
    '$',
    '(',
    ')',
    '{',
    '}',
    ';',
    '&',
    '|',
    '<',
    '>',
    '\n',
    ' ',
    '!',
    '*',
    '~',
  ];
  if (choice < 0.5) return `${line.slice(0, at)}${inserts[Math.floor(next() * inserts.length)]}${line.slice(at)}`;
  const end = Math.min(line.length, at + 1 + Math.floor(next() * 6));
  if (choice < 0.75) return `${line.slice(0, at)}${line.slice(end)}`;
  if (choice < 0.9) return `${line.slice(0, end)}${line.slice(at, end)}${line.slice(end)}`;
  return line.replaceAll("'", '"');
}
