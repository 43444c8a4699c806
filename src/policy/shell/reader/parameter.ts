/**
 * `${…}`: a parameter expansion in every form bash knows (length, indirection, names by prefix, subscripts, slices,
 * defaults and assignments, pattern removal and replacement, case changes, transformations). Bash itself only finds
 * the closing `}` when it reads the line and checks the rest when it expands the word; the reader reads the forms
 * and refuses any other (bash would stop that command with "bad substitution", and guessing what it meant is not
 * needed to refuse it).
 */
import type { ArithmExpr, Expansion, ParamExp, Replace, Slice, Word } from './nodes.js';
import { OP } from './nodes.js';
import {
  AT,
  BANG,
  CARET,
  COLON,
  COMMA,
  EOF,
  EQUALS,
  HASH,
  isDigit,
  isNameChar,
  isNameStart,
  isSpecialParam,
  LBRACK,
  MINUS,
  PERCENT,
  PLUS,
  QUEST,
  RBRACE,
  RBRACK,
  SLASH,
  STAR,
} from './scanner.js';
import { BRACE, BRACE_PATTERN, SUBSCRIPT, WordReader } from './words.js';

/** The operators that take a word, by their characters (one, or the same twice). */
const SINGLE: ReadonlyMap<number, number> = new Map([
  [PLUS, OP.plus],
  [MINUS, OP.minus],
  [QUEST, OP.quest],
  [EQUALS, OP.assign],
  [PERCENT, OP.percent],
  [HASH, OP.hash],
  [CARET, OP.caret],
  [COMMA, OP.comma],
  [AT, OP.at],
]);
const DOUBLED: ReadonlyMap<number, number> = new Map([
  [PERCENT, OP.doublePercent],
  [HASH, OP.doubleHash],
  [CARET, OP.doubleCaret],
  [COMMA, OP.doubleComma],
]);
const AFTER_COLON: ReadonlyMap<number, number> = new Map([
  [PLUS, OP.colonPlus],
  [MINUS, OP.colonMinus],
  [QUEST, OP.colonQuest],
  [EQUALS, OP.colonAssign],
]);

/** Reads `${…}`; arithmetic (for slices) is read by the next layer. */
export abstract class ParameterReader extends WordReader {
  /** An arithmetic expression up to a character of `ends` outside parentheses (left unread); `undefined` if empty. */
  abstract arithmeticUntil(ends: string): ArithmExpr | undefined;

  /**
   * `${…}` from its `{` (at `this.pos`) to its `}`.
   *
   * @param quoted - whether it is inside double quotes or a here-document (quotes inside it then read otherwise)
   */
  braced(quoted: boolean): ParamExp {
    this.enter();
    let p = this.step(this.pos);
    let length = false;
    let excl = false;
    const c = this.at(p);
    const next = this.at(this.step(p));
    if (c === HASH && next !== RBRACE) {
      // `${#x}` is a length; `${#}` is the parameter `#`; `${#-}` the length of `$-`, and so on.
      const after = this.at(this.step(this.step(p)));
      if (!(isNameStart(next) || isDigit(next) || (isSpecialParam(next) && after === RBRACE))) {
        this.fail('a ${#…} form this reader does not know');
      }
      length = true;
      p = this.step(p);
    } else if (c === BANG && next !== RBRACE) {
      if (!(isNameStart(next) || isDigit(next))) this.fail('a ${!…} form this reader does not know');
      excl = true;
      p = this.step(p);
    }
    const nameStart = p;
    const first = this.at(p);
    if (isNameStart(first)) {
      while (isNameChar(this.at(p))) p = this.step(p);
    } else if (isDigit(first)) {
      while (isDigit(this.at(p))) p = this.step(p);
    } else if (isSpecialParam(first)) {
      p = this.step(p);
    } else {
      this.fail('a ${…} without a parameter name');
    }
    const name = this.cooked(nameStart, p);
    let names = 0;
    let index: Word | undefined;
    if (excl && (this.at(p) === STAR || this.at(p) === AT) && this.at(this.step(p)) === RBRACE) {
      names = this.at(p) === STAR ? OP.star : OP.at;
      p = this.step(p);
    } else if (this.at(p) === LBRACK && isNameStart(first)) {
      this.pos = this.step(p);
      const subscriptStart = this.pos;
      index = this.word(SUBSCRIPT);
      if (this.at(this.pos) !== RBRACK) this.fail('a subscript is not closed');
      // Bash ends `${…}` at its first `}` before it looks for the subscript's `]`.
      if (this.src.slice(subscriptStart, this.pos).includes('}')) this.fail('a } inside a ${…} subscript');
      p = this.step(this.pos);
    }
    this.pos = p;
    const expansion = this.afterName(quoted, length || excl || names !== 0);
    if (this.at(this.pos) !== RBRACE) this.fail('a ${…} is not closed');
    this.pos += 1;
    this.leave();
    return {
      type: 'ParamExp',
      Short: false,
      Excl: excl,
      Length: length,
      Names: names,
      Param: { type: 'Lit', Value: name },
      ...(index === undefined ? {} : { Index: index }),
      ...expansion,
    };
  }

  /** What follows the name (and subscript): an operator and its word, a slice, a replacement, or nothing. */
  private afterName(quoted: boolean, bare: boolean): { Exp?: Expansion; Slice?: Slice; Repl?: Replace } {
    const c = this.at(this.pos);
    if (c === RBRACE) return {};
    if (c === EOF) this.fail('a ${…} is not closed');
    if (bare) this.fail('an operator after ${#x}, ${!x} or ${!x*}');
    const next = this.step(this.pos);
    const d = this.at(next);
    if (c === COLON) {
      const op = AFTER_COLON.get(d);
      if (op !== undefined) {
        this.pos = this.step(next);
        return { Exp: this.expansion(op, quoted) };
      }
      this.pos = next;
      return { Slice: this.slice() };
    }
    if (c === SLASH) {
      const all = d === SLASH;
      this.pos = all ? this.step(next) : next;
      const orig = this.word(BRACE_PATTERN, quoted);
      let replacement: Word | undefined;
      if (this.at(this.pos) === SLASH) {
        this.pos = this.step(this.pos);
        replacement = this.word(BRACE, quoted);
      }
      return {
        Repl: { type: 'Replace', All: all, Orig: orig, ...(replacement === undefined ? {} : { With: replacement }) },
      };
    }
    const doubled = d === c ? DOUBLED.get(c) : undefined;
    if (doubled !== undefined) {
      this.pos = this.step(next);
      return { Exp: this.expansion(doubled, quoted) };
    }
    const op = SINGLE.get(c);
    if (op === undefined) this.fail('a ${…} form this reader does not know');
    this.pos = next;
    return { Exp: this.expansion(op, quoted) };
  }

  private expansion(op: number, quoted: boolean): Expansion {
    const word = this.word(BRACE, quoted);
    return word.Parts.length === 0 ? { type: 'Expansion', Op: op } : { type: 'Expansion', Op: op, Word: word };
  }

  /** `${x:offset}` or `${x:offset:length}`, from after the first `:`. */
  private slice(): Slice {
    const offset = this.arithmeticUntil(':}');
    let length: ArithmExpr | undefined;
    if (this.at(this.pos) === COLON) {
      this.pos = this.step(this.pos);
      length = this.arithmeticUntil('}');
    }
    return {
      type: 'Slice',
      ...(offset === undefined ? {} : { Offset: offset }),
      ...(length === undefined ? {} : { Length: length }),
    };
  }
}
