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
 * nothing), lone surrogates and every noncharacter (U+FDD0–U+FDEF, U+FFFE/U+FFFF in every plane).
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
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufffe\uffff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]|\p{Cs}/gu;

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
