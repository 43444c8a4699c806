/**
 * Text that comes from data (ids, names, tool names, rule ids, reasons, paths, policy keys) on its way to a
 * terminal or a log line: every character that could move the cursor, change colours, write the
 * clipboard, reorder the line or hide itself is shown visibly escaped instead, so a hostile id can neither
 * forge a row nor hide one, and the reader sees there was something.
 *
 * Escaped: C0 controls and DEL (`\n`, `\r`, `\t`, `\x1b`, …), C1 controls (which include the one-byte CSI
 * and OSC), the line and paragraph separators U+2028/U+2029, bidi marks, embeddings, overrides and
 * isolates, zero-width and other invisible characters (joiners, word joiner, BOM, soft hyphen, invisible
 * operators, Hangul fillers, tag characters), every other format character (`\p{Cf}`: Arabic number signs,
 * Egyptian hieroglyph and musical format controls, interlinear annotation marks), every default-ignorable
 * code point (assigned or not, so a later Unicode version cannot turn one into something that draws
 * nothing), lone surrogates and every noncharacter (U+FDD0–U+FDEF, U+FFFE/U+FFFF in every plane), and every
 * space but the plain one that .NET counts as white space (U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F,
 * U+3000): a CI runner skips them before a workflow command, so one must never pass for indentation.
 *
 * The escape is not itself escaped: a literal backslash in an id prints as it is, so `a\rb` typed with a
 * backslash and `a<CR>b` print alike. Both are shown, neither can move the cursor.
 */

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// One class of everything that must not reach a terminal raw. The `u` flag lets it see lone surrogates
// (`\p{Cs}`) and astral tag characters. Matching controls and lone combining marks is the point here. The
// explicit ranges name the well-known cases; the property classes close the rest of each family.
const HIDDEN =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class
  /[\u0000-\u001f\u007f-\u009f\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufffe\uffff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]|\p{Cs}/gu;

/**
 * The source of the pattern `visible` escapes (use it with the flags `gu`): a page that shows data in a
 * browser escapes the same characters the same way.
 */
export const HIDDEN_SOURCE: string = HIDDEN.source;

function escapeCodePoint(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * The text with every control, separator, bidi and invisible character shown escaped (`\x1b`, `\r`,
 * `\u202e`). Printable text, including non-Latin scripts and emoji, is unchanged.
 *
 * @param text - a value from data
 * @returns the text safe to print on a terminal or in a one-line log record
 */
export function visible(text: string): string {
  return text.replace(HIDDEN, escapeCodePoint);
}

/**
 * Whether the text holds any character `visible` would escape: an id with one is suspicious on its own.
 *
 * @param text - a value from data
 */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}

const FIELD_DELIMITERS: Readonly<Record<string, string>> = { '<': '\\x3c', '>': '\\x3e' };

/**
 * A value for a `field=<value>` subject (log lines, error messages): `visible`, and `<`, `>` shown as
 * `\x3c`, `\x3e`, so a value can neither close its own field nor open a forged one.
 *
 * @param value - a value from data
 */
export function visibleField(value: string): string {
  return visible(value).replace(/[<>]/g, (c) => FIELD_DELIMITERS[c] ?? c);
}

/**
 * A value between double quotes in a message (`"research › writer" is …`): `visible`, with `"` shown as
 * `\x22`, so the only raw quote is the closing one and the quoted part ends where it seems to.
 *
 * @param value - a value from data
 */
export function quoted(value: string): string {
  return `"${visible(value).replaceAll('"', '\\x22')}"`;
}

/**
 * A path for a reader: each segment `visible`, joined with ` › `. A `›` inside a segment is shown as
 * `\u203a`, so a segment can never pass for two.
 *
 * @param path - the segments (ids, escaped as in the report)
 */
export function visiblePath(path: readonly string[]): string {
  return path.map((segment) => visible(segment).replaceAll('›', '\\u203a')).join(' › ');
}

/**
 * JSON text with every character `visible` would escape, inside its strings, written as a `\uXXXX`
 * escape instead (the structural newlines of pretty-printed JSON stay). The JSON parses back to exactly
 * the same values, and printing it on a terminal cannot move the cursor, reorder a line or hide anything.
 *
 * @param json - the output of `JSON.stringify`
 */
export function jsonVisible(json: string): string {
  return json.replace(HIDDEN, (char) => {
    if (char === '\n') return char;
    let escaped = '';
    for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return escaped;
  });
}

/**
 * How an output writes the two characters a CI runner would read as the start of a workflow command, each in
 * its own syntax: `\x5b` in text (and on stderr), `\u005b` in JSON and SARIF strings, `&#91;` in XML and
 * HTML, `\[` in Markdown and DOT labels, `#91;` in Mermaid labels (and the same for `:`).
 */
export const COMMAND_ESCAPES = {
  text: { bracket: '\\x5b', colon: '\\x3a' },
  json: { bracket: '\\u005b', colon: '\\u003a' },
  xml: { bracket: '&#91;', colon: '&#58;' },
  backslash: { bracket: '\\[', colon: '\\:' },
  mermaid: { bracket: '#91;', colon: '#58;' },
} as const satisfies Readonly<Record<string, { readonly bracket: string; readonly colon: string }>>;

/** The syntax an output escapes workflow-command characters in. */
export type CommandEscape = keyof typeof COMMAND_ESCAPES;

// What .NET's Char.IsWhiteSpace counts, which the runner trims before `::` (U+180E too, as older .NET did).
const RUNNER_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

/**
 * The final pass over an output on its way to a CI log, line by line, as GitHub's runner reads lines (ended by
 * `\n`, `\r` or `\r\n`): the `[` of every `##[` (the older command syntax, read anywhere in a line) and the
 * first `:` of a `::` that starts a line after white space (as .NET counts white space) are written in the
 * output's own escape, so no line can be read as a workflow command. Text fed in pieces keeps its place
 * between pieces: a `#` or a line start at the end of one piece counts for the next; a `:` that starts a line
 * at the very end of a piece is escaped, since the next piece may hold the second `:`.
 */
export class CommandNeutralizer {
  private _lineStart: boolean;
  private _hashes = 0;
  private readonly _escape: { readonly bracket: string; readonly colon: string };

  /**
   * @param escape - the output's syntax
   * @param midLine - whether the first piece starts in the middle of a line (a prefix precedes it)
   */
  constructor(escape: CommandEscape, midLine = false) {
    this._escape = COMMAND_ESCAPES[escape];
    this._lineStart = !midLine;
  }

  /**
   * One piece of the output, neutralised.
   *
   * @param piece - the text
   * @param last - no piece follows (a `:` ending a line start is then known to stand alone)
   */
  push(piece: string, last = false): string {
    let out = '';
    let from = 0;
    for (let i = 0; i < piece.length; i += 1) {
      const char = piece[i] as string;
      if (char === '\n' || char === '\r') {
        this._lineStart = true;
        this._hashes = 0;
        continue;
      }
      if (char === '[' && this._hashes >= 2) {
        out += piece.slice(from, i) + this._escape.bracket;
        from = i + 1;
        this._hashes = 0;
        this._lineStart = false;
        continue;
      }
      if (char === ':' && this._lineStart) {
        const next = piece[i + 1];
        if (next === ':' || (next === undefined && !last)) {
          out += piece.slice(from, i) + this._escape.colon;
          from = i + 1;
        }
        this._lineStart = false;
        this._hashes = 0;
        continue;
      }
      this._hashes = char === '#' ? this._hashes + 1 : 0;
      if (this._lineStart && !RUNNER_SPACE.test(char)) this._lineStart = false;
    }
    return from === 0 ? piece : out + piece.slice(from);
  }
}

/**
 * A whole output after the final pass (see `CommandNeutralizer`): no line of it is a workflow command.
 *
 * @param output - the assembled output
 * @param escape - the output's syntax
 * @param midLine - whether it continues a line (its start is not a line start)
 */
export function neutralizeCommands(output: string, escape: CommandEscape, midLine = false): string {
  if (!output.includes('##[') && !output.includes('::')) return output;
  return new CommandNeutralizer(escape, midLine).push(output, true);
}
