/**
 * Text that comes from data (ids, names, tool names, rule ids, reasons, paths, policy keys) on its way to a
 * terminal or a log line: every character that could move the cursor, change colours, write the
 * clipboard, reorder the line or hide itself is shown visibly escaped instead, so a hostile id can neither
 * forge a row nor hide one, and the reader sees there was something.
 *
 * Escaped: C0 controls and DEL (`\n`, `\r`, `\t`, `\x1b`, …), C1 controls (which include the one-byte CSI
 * and OSC), the line and paragraph separators U+2028/U+2029, bidi marks, embeddings, overrides and
 * isolates, zero-width and other invisible characters (joiners, word joiner, BOM, soft hyphen, invisible
 * operators, Hangul fillers, tag characters), lone surrogates and the noncharacters U+FFFE/U+FFFF.
 */

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// One class of everything that must not reach a terminal raw. The `u` flag lets it see lone surrogates
// (`\p{Cs}`) and astral tag characters. Matching controls and lone combining marks is the point here.
const HIDDEN =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufffe\uffff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]|\p{Cs}/gu;

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
