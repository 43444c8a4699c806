/**
 * Literal text of shell words, and the checks that decide when a word is not known exactly: unquoted
 * globs, braces and `~`, escapes, `$'…'` strings. Also the quote-aware count of substitutions in a line,
 * which the analysis compares with the substitutions it found so that a parser that drops one is caught.
 */

/**
 * Whether unquoted text would be changed by pathname expansion, brace expansion or `~`.
 *
 * @param raw - the text as written (escapes included)
 * @param wordStart - whether the text starts the word (`~` only expands there)
 */
export function isPattern(raw: string, wordStart: boolean): boolean {
  if (wordStart && raw.startsWith('~')) return true;
  let bracket = -1;
  let brace = -1;
  let braceList = false;
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (c === '*' || c === '?') return true;
    if (c === '[') bracket = i;
    else if (c === ']' && bracket !== -1) return true;
    else if (c === '{') {
      brace = i;
      braceList = false;
    } else if (brace !== -1 && (c === ',' || (c === '.' && raw[i + 1] === '.'))) braceList = true;
    else if (c === '}' && brace !== -1 && braceList) return true;
  }
  return false;
}

/** Unquoted text without its escapes (`\x` is `x`, backslash-newline is nothing). */
export function unescapeUnquoted(raw: string): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i] ?? '';
    if (c === '\\' && i + 1 < raw.length) {
      i += 1;
      const next = raw[i] ?? '';
      if (next !== '\n') out += next;
      continue;
    }
    out += c;
  }
  return out;
}

/** Text inside double quotes without its escapes (only `$`, backquote, `"`, `\` and newline are escaped). */
export function unescapeDouble(raw: string): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i] ?? '';
    const next = raw[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      i += 1;
      if (next !== '\n') out += next;
      continue;
    }
    out += c;
  }
  return out;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/**
 * The value of a bash `$'…'` string, or `undefined` when it holds a NUL (bash cuts the word there) or an
 * escape this decoder does not know exactly.
 *
 * @param raw - the text between the quotes
 */
export function decodeAnsiC(raw: string): string | undefined {
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i] ?? '';
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = raw[i + 1];
    if (e === undefined) return undefined;
    i += 1;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const digits = (pattern: RegExp, max: number, radix: number): number | undefined => {
      let text = '';
      while (text.length < max && pattern.test(raw[i + 1] ?? '')) {
        text += raw[i + 1];
        i += 1;
      }
      return text === '' ? undefined : Number.parseInt(text, radix);
    };
    let code: number | undefined;
    if (/[0-7]/.test(e)) {
      i -= 1;
      code = digits(/[0-7]/, 3, 8);
      if (code !== undefined) code &= 0xff;
    } else if (e === 'x') code = digits(/[0-9a-fA-F]/, 2, 16);
    else if (e === 'u') code = digits(/[0-9a-fA-F]/, 4, 16);
    else if (e === 'U') code = digits(/[0-9a-fA-F]/, 8, 16);
    else if (e === 'c') {
      const letter = raw[i + 1];
      if (letter === undefined) return undefined;
      i += 1;
      // As bash's TOCTRL: `\c?` is DEL, any other the upper-cased character's low five bits.
      code = letter === '?' ? 0x7f : letter.toUpperCase().charCodeAt(0) & 0x1f;
    } else {
      out += `\\${e}`;
      continue;
    }
    // Bytes above 0x7f from \x or octal form UTF-8 sequences in bash: not decoded here.
    if (code === undefined || code === 0 || (code > 0x7f && (e === 'x' || /[0-7]/.test(e))) || code > 0x10ffff) {
      return undefined;
    }
    out += String.fromCodePoint(code);
  }
  return out;
}

/**
 * How many substitutions a line holds as written: `$(` (which also opens `$((`), `<(`, `>(` and
 * backquotes, outside single quotes, `$'…'` strings, comments and quoted here-document bodies, and not escaped
 * (in an unquoted here-document body, quotes are plain characters). Bash removes a backslash-newline before it
 * reads `$(` (`$\⏎(` is a substitution). A count that differs from the parts found makes the line opaque, so a
 * count that is off only refuses a line.
 *
 * @param source - the line
 */
export function countSubstitutionMarks(source: string): { parens: number; backquotes: number } {
  const count = { parens: 0, backquotes: 0 };
  const docs: HereDoc[] = [];
  let mode = PLAIN;
  const length = source.length;
  for (let i = 0; i < length; i += 1) {
    const c = source.charCodeAt(i);
    if (mode === SINGLE) {
      if (c === SQUOTE) mode = PLAIN;
      continue;
    }
    if (mode === ANSI) {
      if (c === BACKSLASH) i += 1;
      else if (c === SQUOTE) mode = PLAIN;
      continue;
    }
    if (c === BACKSLASH) {
      i += 1;
      continue;
    }
    if (c === BACKQUOTE) {
      count.backquotes += 1;
      continue;
    }
    if (c === DOLLAR || c === LT || c === GT) {
      let after = i + 1;
      while (source.charCodeAt(after) === BACKSLASH && source.charCodeAt(after + 1) === NL) after += 2;
      const next = source.charCodeAt(after);
      if (next === LPAREN) {
        count.parens += 1;
        i = after;
        continue;
      }
      if (mode === PLAIN && c === DOLLAR && next === SQUOTE) {
        mode = ANSI;
        i = after;
        continue;
      }
    }
    if (mode === DOUBLE) {
      if (c === DQUOTE) mode = PLAIN;
      continue;
    }
    if (c === SQUOTE) mode = SINGLE;
    else if (c === DQUOTE) mode = DOUBLE;
    else if (c === HASH && (i === 0 || WORD_BREAK.has(source.charCodeAt(i - 1)))) {
      const end = source.indexOf('\n', i);
      // The newline that ends the comment is read next: here-document bodies may follow it.
      i = end === -1 ? length : end - 1;
    } else if (c === LT && source.charCodeAt(i + 1) === LT && source.charCodeAt(i + 2) !== LT) {
      const doc = hereDocAt(source, i + 2);
      if (doc !== undefined) docs.push(doc);
      i += 1;
    } else if (c === NL && docs.length > 0) {
      i = skipBodies(source, i + 1, docs.splice(0), count) - 1;
    }
  }
  return count;
}

const PLAIN = 0;
const SINGLE = 1;
const DOUBLE = 2;
const ANSI = 3;
const [NL, DQUOTE, HASH, DOLLAR, SQUOTE, LPAREN, LT, GT, BACKSLASH, BACKQUOTE] = [...'\n"#$\'(<>\\`'].map((c) =>
  c.charCodeAt(0),
);
/** What a `#` must follow to start a comment, as bash reads it (or it starts the line). */
const WORD_BREAK = new Set([...' \t\n;&|()<>'].map((c) => c.charCodeAt(0)));

/** A here-document the counter has seen the operator of. */
interface HereDoc {
  readonly delimiter: string;
  readonly quoted: boolean;
  readonly tabs: boolean;
}

/** The here-document whose delimiter word follows `<<` at `start` (a `-`, blanks, then the word), if any. */
function hereDocAt(source: string, start: number): HereDoc | undefined {
  const tabs = source[start] === '-';
  const word = /^[ \t]*([^\s;&|()<>]+)/.exec(source.slice(tabs ? start + 1 : start, start + 200));
  const raw = word?.[1];
  if (raw === undefined) return undefined;
  return { delimiter: raw.replace(/['"\\]/g, ''), quoted: /['"\\]/.test(raw), tabs };
}

/**
 * Counts the substitutions of the here-document bodies starting at `start` (an unquoted body's; a quoted body is
 * data) and returns where they end. A delimiter line that is not found means the `<<` was no here-document
 * (`$((1<<2))`): nothing is skipped.
 */
function skipBodies(
  source: string,
  start: number,
  docs: readonly HereDoc[],
  count: { parens: number; backquotes: number },
): number {
  let at = start;
  for (const doc of docs) {
    let line = at;
    let end = -1;
    while (line <= source.length && end === -1) {
      const newline = source.indexOf('\n', line);
      const lineEnd = newline === -1 ? source.length : newline;
      const text = source.slice(line, lineEnd);
      if ((doc.tabs ? text.replace(/^\t+/, '') : text) === doc.delimiter) end = line;
      else if (newline === -1) break;
      else line = newline + 1;
    }
    if (end === -1) return start;
    if (!doc.quoted) {
      const body = source.slice(at, end);
      for (let i = 0; i < body.length; i += 1) {
        const c = body[i];
        if (c === '\\') i += 1;
        else if (c === '`') count.backquotes += 1;
        else if (c === '$' && body[i + 1] === '(') count.parens += 1;
      }
    }
    const newline = source.indexOf('\n', end);
    at = newline === -1 ? source.length : newline + 1;
  }
  return at;
}

/**
 * Whether a comment may end with a backslash: bash ends a comment at the newline, while the parser may join
 * the next line to it. Checked on the raw text whatever the quoting (a comment inside `"$( )"` counts), so a
 * `#` that only looks like the start of a comment counts too.
 *
 * @param source - the line
 */
export function mayContinueComment(source: string): boolean {
  if (!source.includes('\\\n')) return false;
  const lines = source.split('\n');
  // Every line but the last ends with a newline: one that ends with a backslash after a `#` may continue a comment.
  return lines.some((line, i) => i < lines.length - 1 && line.endsWith('\\') && /(^|[\s;&|()<>`])#/.test(line));
}
