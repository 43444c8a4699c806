/**
 * Here-document bodies. Bash reads a body after the newline that ends the command line holding its `<<`, line by
 * line up to a line that is the delimiter (after leading tabs for `<<-`); a quoted delimiter makes the body data,
 * an unquoted one a text expanded like double quotes in which `"` and `'` are plain characters. The body is read
 * in place, so what it holds is read with the same rules as the rest of the line.
 */
import { unescapeDouble, unescapeUnquoted } from '../words.js';
import { ArithmeticReader } from './arithmetic.js';
import type { Redirect, Word } from './nodes.js';
import type { PendingDoc } from './scanner.js';
import { TAB } from './scanner.js';
import { HEREDOC } from './words.js';

/** Reads here-document bodies. */
export abstract class HeredocReader extends ArithmeticReader {
  /**
   * Registers the here-document of a redirection whose delimiter word was just read; its body is read at the next
   * newline.
   */
  hereDocument(redirect: Redirect, word: Word, tabs: boolean): void {
    const delimiter = delimiterOf(word);
    if (delimiter === undefined) this.fail('a here-document delimiter that is not plain text');
    this.pending.push({ redirect, delimiter: delimiter.text, quoted: delimiter.quoted, tabs });
  }

  /** Reads the bodies of every pending here-document, after the newline that ends their command line. */
  readBodies(): void {
    if (this.docFloor > 0) {
      this.fail('a line break inside a construct while here-documents outside it wait for their bodies');
    }
    for (const doc of this.pending.splice(0)) this.readBody(doc);
  }

  private readBody(doc: PendingDoc): void {
    const src = this.src;
    const start = this.pos;
    let bodyEnd = -1;
    let after = -1;
    for (let line = start; line < this.limit; ) {
      let content = line;
      if (doc.tabs) while (content < this.limit && src.charCodeAt(content) === TAB) content += 1;
      const newline = src.indexOf('\n', line);
      const lineEnd = newline === -1 || newline >= this.limit ? this.limit : newline;
      if (lineEnd - content === doc.delimiter.length && src.startsWith(doc.delimiter, content)) {
        bodyEnd = line;
        after = lineEnd === this.limit ? lineEnd : lineEnd + 1;
        break;
      }
      line = lineEnd + 1;
    }
    if (bodyEnd === -1) this.fail(`a here-document without its delimiter line ${JSON.stringify(doc.delimiter)}`);
    if (doc.quoted) {
      doc.redirect.Hdoc = {
        type: 'Word',
        Parts: bodyEnd > start ? [{ type: 'Lit', Value: src.slice(start, bodyEnd) }] : [],
      };
    } else {
      if (src.slice(start, bodyEnd).includes('\\\n')) {
        this.fail('a line join in an unquoted here-document body (bash joins the lines before it looks for the end)');
      }
      const limit = this.limit;
      this.limit = bodyEnd;
      this.pos = start;
      doc.redirect.Hdoc = this.word(HEREDOC, true);
      this.limit = limit;
    }
    this.pos = after;
  }
}

/** A delimiter word as bash compares it with lines: its text once quotes are removed, and whether it was quoted. */
function delimiterOf(word: Word): { text: string; quoted: boolean } | undefined {
  let text = '';
  let quoted = false;
  for (const part of word.Parts) {
    if (part.type === 'Lit') {
      if (part.Value.replaceAll('\\\n', '').includes('\\')) quoted = true;
      text += unescapeUnquoted(part.Value);
    } else if (part.type === 'SglQuoted' && !part.Dollar) {
      quoted = true;
      text += part.Value;
    } else if (part.type === 'DblQuoted' && !part.Dollar) {
      quoted = true;
      for (const inner of part.Parts) {
        if (inner.type !== 'Lit') return undefined;
        text += unescapeDouble(inner.Value);
      }
    } else return undefined;
  }
  return text.includes('\n') ? undefined : { text, quoted };
}
