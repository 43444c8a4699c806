/**
 * The bottom layer of the shell reader: the text, the reading position, and the character-level rules every layer
 * shares. Bash removes a backslash-newline (a line join) before it tokenises, except inside single quotes, comments
 * and quoted here-document bodies, and right after another backslash; so every step here skips joins, while the
 * layers that read those raw places read the text as it is. A line without joins (most lines) pays one flag test.
 */
import { ShellSyntaxError } from './errors.js';
import type { Dialect, Redirect } from './nodes.js';

/** Returned by `at` past the end of what may be read. */
export const EOF = -1;

/** The code of a tab. */
export const TAB = 9;
/** The code of a newline. */
export const NL = 10;
/** The code of a space. */
export const SPACE = 32;
/** The code of `!`. */
export const BANG = 33;
/** The code of `"`. */
export const DQUOTE = 34;
/** The code of `#`. */
export const HASH = 35;
/** The code of `$`. */
export const DOLLAR = 36;
/** The code of `%`. */
export const PERCENT = 37;
/** The code of `&`. */
export const AMP = 38;
/** The code of `'`. */
export const SQUOTE = 39;
/** The code of `(`. */
export const LPAREN = 40;
/** The code of `)`. */
export const RPAREN = 41;
/** The code of `*`. */
export const STAR = 42;
/** The code of `+`. */
export const PLUS = 43;
/** The code of `,`. */
export const COMMA = 44;
/** The code of `-`. */
export const MINUS = 45;
/** The code of `/`. */
export const SLASH = 47;
/** The code of `:`. */
export const COLON = 58;
/** The code of `;`. */
export const SEMI = 59;
/** The code of `<`. */
export const LT = 60;
/** The code of `=`. */
export const EQUALS = 61;
/** The code of `>`. */
export const GT = 62;
/** The code of `?`. */
export const QUEST = 63;
/** The code of `@`. */
export const AT = 64;
/** The code of `[`. */
export const LBRACK = 91;
/** The code of a backslash. */
export const BACKSLASH = 92;
/** The code of `]`. */
export const RBRACK = 93;
/** The code of `^`. */
export const CARET = 94;
/** The code of a backquote. */
export const BACKQUOTE = 96;
/** The code of `{`. */
export const LBRACE = 123;
/** The code of `|`. */
export const PIPE = 124;
/** The code of `}`. */
export const RBRACE = 125;

const BLANK_BIT = 1;
const BREAK_BIT = 2;
const NAME_START_BIT = 4;
const NAME_BIT = 8;
const DIGIT_BIT = 16;
const SPECIAL_BIT = 32;

/** Character classes of ASCII; everything above it is a word character (and no name character). */
const CLASSES = new Uint8Array(128);
for (const c of [SPACE, TAB]) CLASSES[c] = BLANK_BIT | BREAK_BIT;
for (const c of [NL, SEMI, AMP, PIPE, LPAREN, RPAREN, LT, GT]) CLASSES[c] = BREAK_BIT;
for (let c = 65; c <= 90; c += 1) CLASSES[c] = NAME_START_BIT | NAME_BIT;
for (let c = 97; c <= 122; c += 1) CLASSES[c] = NAME_START_BIT | NAME_BIT;
CLASSES[95] = NAME_START_BIT | NAME_BIT;
for (let c = 48; c <= 57; c += 1) CLASSES[c] = NAME_BIT | DIGIT_BIT;
for (const c of '@*#?-$!0') CLASSES[c.charCodeAt(0)] = (CLASSES[c.charCodeAt(0)] ?? 0) | SPECIAL_BIT;

/** A space or a tab. */
export function isBlank(c: number): boolean {
  return c >= 0 && c < 128 && ((CLASSES[c] ?? 0) & BLANK_BIT) !== 0;
}

/** Where an unquoted word ends: a blank, a newline, `;`, `&`, `|`, `(`, `)`, `<`, `>`, or the end. */
export function isBreak(c: number): boolean {
  return c === EOF || (c >= 0 && c < 128 && ((CLASSES[c] ?? 0) & BREAK_BIT) !== 0);
}

/** A letter or `_`. */
export function isNameStart(c: number): boolean {
  return c >= 0 && c < 128 && ((CLASSES[c] ?? 0) & NAME_START_BIT) !== 0;
}

/** A letter, a digit or `_`. */
export function isNameChar(c: number): boolean {
  return c >= 0 && c < 128 && ((CLASSES[c] ?? 0) & NAME_BIT) !== 0;
}

/** A decimal digit. */
export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A special parameter: `@ * # ? - $ ! 0`. */
export function isSpecialParam(c: number): boolean {
  return c >= 0 && c < 128 && ((CLASSES[c] ?? 0) & SPECIAL_BIT) !== 0;
}

/** A here-document whose body the reader has not reached yet. */
export interface PendingDoc {
  /** The redirection whose `Hdoc` the body goes to. */
  readonly redirect: Redirect;
  /** The delimiter, as bash compares it with each line. */
  readonly delimiter: string;
  /** Whether the delimiter was quoted (then the body is data, not expanded). */
  readonly quoted: boolean;
  /** `<<-`: leading tabs are stripped from each line. */
  readonly tabs: boolean;
}

/** How deeply constructs may nest before the reader refuses the line (bash has no fixed limit; a stack has). */
const MAX_NESTING = 150;

/** The text being read and the rules of reading it character by character. */
export class Scanner {
  /** The text. */
  readonly src: string;
  /** The shell whose reading this follows. */
  readonly dialect: Dialect;
  /** Whether the text is read as bash (otherwise as dash reads sh). */
  readonly bash: boolean;
  /**
   * Whether the text is a ksh script, read as sh with every construct refused whose reading differs in ksh
   * (`$'…'`, `[[ ]]`, `(( ))`, extended globs, quotes inside a quoted `${…}`).
   */
  readonly ksh: boolean;
  /** Whether the text holds a line join anywhere (only then do steps look for one). */
  readonly joins: boolean;
  /** The reading position. */
  pos = 0;
  /** Where reading stops: the end of the text, or of the here-document body being read. */
  limit: number;
  /** Here-documents waiting for their bodies, in the order bash reads them. */
  readonly pending: PendingDoc[] = [];
  /** How many pending here-documents belong to enclosing constructs (a newline may not read them from here). */
  docFloor = 0;
  private _nesting: number;
  private readonly _base: number;
  private _offsets: Uint32Array | undefined;
  private _ascii: boolean | undefined;

  /**
   * @param src - the text
   * @param dialect - the shell whose reading to follow
   * @param nesting - how deeply the text is nested in another (text inside backquotes)
   * @param base - where the text starts in the line, for statement positions
   */
  constructor(src: string, dialect: Dialect, nesting = 0, base = 0) {
    this.src = src;
    this.dialect = dialect;
    this.bash = dialect === 'bash';
    this.ksh = dialect === 'mksh';
    this.limit = src.length;
    this.joins = src.includes('\\\n');
    this._nesting = nesting;
    this._base = base;
  }

  /** The character code at `p`, or `EOF` past the limit. */
  at(p: number): number {
    return p < this.limit ? this.src.charCodeAt(p) : EOF;
  }

  /** `p` moved past any line joins that start there. */
  skipJoins(p: number): number {
    if (!this.joins) return p;
    let q = p;
    while (q + 1 < this.limit && this.src.charCodeAt(q) === BACKSLASH && this.src.charCodeAt(q + 1) === NL) q += 2;
    return q;
  }

  /** The position of the character after the one at `p`, line joins skipped. */
  step(p: number): number {
    return this.joins ? this.skipJoins(p + 1) : p + 1;
  }

  /** The text from `start` to `end` without its line joins (a name, a keyword, a descriptor). */
  cooked(start: number, end: number): string {
    const raw = this.src.slice(start, end);
    return this.joins ? raw.replaceAll('\\\n', '') : raw;
  }

  /** Refuses the line. */
  fail(message: string, at: number = this.pos): never {
    throw new ShellSyntaxError(`at=${this.offset(at)} | ${message}`);
  }

  /** Skips blanks and line joins. */
  skipBlanks(): void {
    let p = this.skipJoins(this.pos);
    for (let c = this.at(p); c === SPACE || c === TAB; c = this.at(p)) p = this.step(p);
    this.pos = p;
  }

  /** Skips blanks, and a comment after them (up to its newline, which is left to read). */
  skipSpace(): void {
    this.skipBlanks();
    if (this.at(this.pos) === HASH) this.skipComment();
  }

  /** Skips a comment: from its `#` to the end of the line, joins included (bash ends a comment at any newline). */
  skipComment(): void {
    const newline = this.src.indexOf('\n', this.pos);
    this.pos = newline === -1 || newline > this.limit ? this.limit : newline;
  }

  /** One more level of nesting; refuses the line beyond a fixed depth. */
  enter(): void {
    this._nesting += 1;
    if (this._nesting > MAX_NESTING) this.fail('constructs nested too deeply');
  }

  /** One level of nesting less. */
  leave(): void {
    this._nesting -= 1;
  }

  /** The current nesting level (text inside backquotes starts at its enclosing level). */
  get nesting(): number {
    return this._nesting;
  }

  /** The UTF-8 byte offset of character `p` in the line. */
  offset(p: number): number {
    this._ascii ??= isAscii(this.src);
    if (this._ascii) return this._base + p;
    this._offsets ??= utf8Offsets(this.src);
    return this._base + (this._offsets[Math.min(p, this.src.length)] ?? 0);
  }
}

const NON_ASCII = /[\u0080-\uffff]/;

function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/** The UTF-8 byte offset of every character position (a surrogate pair is 4 bytes, on its first half). */
function utf8Offsets(text: string): Uint32Array {
  const offsets = new Uint32Array(text.length + 1);
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    offsets[i] = bytes;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) bytes += 4;
    else if (c >= 0xdc00 && c <= 0xdfff) bytes += 0;
    else bytes += 3;
  }
  offsets[text.length] = bytes;
  return offsets;
}
