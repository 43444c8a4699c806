/**
 * The text of a backquoted command as bash reads it. Bash finds the end of a backquoted command first (the first
 * backquote not escaped, whatever quotes are open inside it), then removes some backslashes and reads what is left
 * as a script of its own; inside double quotes it also removes the backslash before `"`, so quotes end strings there
 * that do not end in the text as written.
 */
import { BACKQUOTE, BACKSLASH, DOLLAR, DQUOTE, NL } from './scanner.js';

/**
 * The text of a backquoted command as bash reads it: line joins removed, and the backslash removed before `$`, a
 * backquote, `\`, and (inside double quotes) `"`; any other backslash stays.
 *
 * @param raw - the text between the backquotes
 * @param inDoubleQuotes - whether the backquotes are inside double quotes
 */
export function unescapeBackquoted(raw: string, inDoubleQuotes: boolean): string {
  if (!raw.includes('\\')) return raw;
  const chunks: string[] = [];
  let from = 0;
  for (let i = 0; i < raw.length; i += 1) {
    if (raw.charCodeAt(i) !== BACKSLASH) continue;
    const next = raw.charCodeAt(i + 1);
    if (next === NL) {
      chunks.push(raw.slice(from, i));
      from = i + 2;
    } else if (next === DOLLAR || next === BACKQUOTE || next === BACKSLASH || (inDoubleQuotes && next === DQUOTE)) {
      chunks.push(raw.slice(from, i));
      from = i + 1;
    }
    i += 1;
  }
  chunks.push(raw.slice(from));
  return chunks.join('');
}
