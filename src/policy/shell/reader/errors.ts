/**
 * The one error of the shell reader. A line the reader refuses is never guessed at: the caller makes the whole line
 * one opaque part, which every policy refuses, so refusing is always safe where misreading is not.
 */

/** Thrown for a line the reader refuses: bash would not accept it, or the reader is not sure how bash reads it. */
export class ShellSyntaxError extends Error {
  /**
   * @param message - `at=<offset> | what is wrong`
   * @param options - the underlying error, if any
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ShellSyntaxError';
  }
}
