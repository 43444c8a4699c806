/**
 * The shell reader: a command line as bash 5.2 (or dash, for `sh`) reads it, as a syntax tree of plain objects.
 * It refuses (throws `ShellSyntaxError`) every line bash would not accept and every construct whose reading it is
 * not sure of; the caller makes such a line one opaque part.
 */
import { ShellSyntaxError } from './errors.js';
import type { Dialect, File } from './nodes.js';
import { Reader } from './test-clause.js';

/**
 * Reads a command line.
 *
 * @param source - the line (or script)
 * @param dialect - `bash`; `sh`, read as dash reads it; `mksh`, read as sh with what ksh reads otherwise refused
 * @returns the syntax tree
 * @throws ShellSyntaxError when bash would not accept the line, or the reader is not sure how bash reads it
 */
export function readShell(source: string, dialect: Dialect): File {
  try {
    return new Reader(source, dialect).file();
  } catch (error) {
    // The depth checks come before the stack runs out; should one not, the line is refused all the same.
    if (error instanceof RangeError) {
      throw new ShellSyntaxError('at=0 | the line nests too deeply to read', { cause: error });
    }
    throw error;
  }
}

export { ShellSyntaxError } from './errors.js';
export { OP } from './nodes.js';
export type * from './nodes.js';
