/**
 * The pieces of a simple command other than its words: redirections (with the descriptor glued before them, digits
 * or bash's `{name}`), assignments (`name=`, `name+=`, bash's `name[i]=` and `name=(…)` arrays), and line breaks,
 * after which the bodies of pending here-documents are read.
 */
import { HeredocReader } from './heredocs.js';
import type { ArrayElem, ArrayExpr, Assign, Redirect, Word } from './nodes.js';
import { OP } from './nodes.js';
import {
  AMP,
  EOF,
  EQUALS,
  GT,
  HASH,
  isBreak,
  isDigit,
  isNameChar,
  isNameStart,
  LBRACE,
  LBRACK,
  LPAREN,
  LT,
  MINUS,
  NL,
  PIPE,
  PLUS,
  RBRACE,
  RBRACK,
  RPAREN,
} from './scanner.js';
import { SUBSCRIPT, UNQUOTED } from './words.js';

/** Blanks and operators inside a subscript: bash keeps them in the word only where an assignment may start. */
const SPACED = /[\s;&|()<>]/;

/** Reads redirections, assignments and line breaks. */
export abstract class RedirectReader extends HeredocReader {
  /** Reads a line break (`this.pos` at it) and then the bodies of pending here-documents. */
  newline(): void {
    this.pos += 1;
    if (this.pending.length > 0) this.readBodies();
  }

  /** Skips blanks, comments and line breaks. */
  skipLines(): void {
    for (;;) {
      this.skipSpace();
      if (this.at(this.pos) !== NL) return;
      this.newline();
    }
  }

  /**
   * Where the operator of a redirection starting at `this.pos` is (after its descriptor, if any), or -1. A `<(` or
   * `>(` is a process substitution (bash), and dash takes a single digit only as a descriptor.
   */
  redirectStart(): number {
    const p = this.pos;
    const c = this.at(p);
    if (c === LT || c === GT) return this.bash && this.at(this.step(p)) === LPAREN ? -1 : p;
    if (c === AMP) return this.bash && this.at(this.step(p)) === GT ? p : -1;
    let q = p;
    if (isDigit(c)) {
      while (isDigit(this.at(q))) q = this.step(q);
      if (!this.bash && q !== this.step(p)) return -1;
    } else if (c === LBRACE && this.bash) {
      q = this.step(p);
      if (!isNameStart(this.at(q))) return -1;
      while (isNameChar(this.at(q))) q = this.step(q);
      if (this.at(q) === LBRACK) {
        for (let d = this.at(q); d !== RBRACK; d = this.at(q)) {
          if (d === EOF || d === RBRACE || SPACED.test(String.fromCharCode(d))) return -1;
          q = this.step(q);
        }
        q = this.step(q);
      }
      if (this.at(q) !== RBRACE) return -1;
      q = this.step(q);
    } else {
      return -1;
    }
    const d = this.at(q);
    return (d === LT || d === GT) && !(this.bash && this.at(this.step(q)) === LPAREN) ? q : -1;
  }

  /** The redirection whose operator is at `op` (`this.pos` at its descriptor or operator). */
  redirect(op: number): Redirect {
    const descriptor = op > this.pos ? this.cooked(this.pos, op) : undefined;
    const c = this.at(op);
    const second = this.step(op);
    const d = this.at(second);
    const third = this.step(second);
    let kind: number;
    let end: number;
    if (c === LT) {
      if (d === LT) {
        const e = this.at(third);
        if (e === LT) {
          if (!this.bash) this.fail('a here-string (<<<) in sh');
          [kind, end] = [OP.herestring, this.step(third)];
        } else if (e === MINUS) [kind, end] = [OP.heredocTabs, this.step(third)];
        else [kind, end] = [OP.heredoc, third];
      } else if (d === GT) [kind, end] = [OP.readWrite, third];
      else if (d === AMP) [kind, end] = [OP.dupIn, third];
      else [kind, end] = [OP.in, second];
    } else if (c === GT) {
      if (d === GT) [kind, end] = [OP.append, third];
      else if (d === AMP) [kind, end] = [OP.dupOut, third];
      else if (d === PIPE) [kind, end] = [OP.clobber, third];
      else [kind, end] = [OP.out, second];
    } else if (this.at(third) === GT) [kind, end] = [OP.appendAll, this.step(third)];
    else [kind, end] = [OP.all, third];
    this.pos = end;
    this.skipBlanks();
    // A `#` starting the target starts a comment for bash, which leaves the redirection without its target.
    if (this.at(this.pos) === HASH) this.fail('a redirection without its target');
    const close = this.closingDash(kind);
    const word = close ?? this.word(UNQUOTED);
    if (word.Parts.length === 0) this.fail('a redirection without its target');
    const redirect: Redirect = {
      type: 'Redirect',
      Op: kind,
      ...(descriptor === undefined ? {} : { N: { type: 'Lit', Value: descriptor } }),
      Word: word,
    };
    if (kind === OP.heredoc || kind === OP.heredocTabs) this.hereDocument(redirect, word, kind === OP.heredocTabs);
    return redirect;
  }

  /**
   * After `>&` or `<&`, a `-` (close the descriptor): bash takes the `-` as the whole target and starts a new word
   * right after it (`3>&-y` closes 3 and passes `y`, `2>&--` passes `-`); dash refuses a target that goes on
   * after the `-`. `undefined` where the target is not such a `-`.
   */
  closingDash(kind: number): Word | undefined {
    if ((kind !== OP.dupIn && kind !== OP.dupOut) || this.at(this.pos) !== MINUS) return undefined;
    const after = this.step(this.pos);
    if (!this.bash && !isBreak(this.at(after))) this.fail('a descriptor that is not a number after >& or <&');
    this.pos = after;
    return { type: 'Word', Parts: [{ type: 'Lit', Value: '-' }] };
  }

  /** If an assignment starts at `this.pos`, where its name ends (at `=`, `+=`, or bash's `[`); -1 otherwise. */
  assignmentEnd(): number {
    let p = this.pos;
    if (!isNameStart(this.at(p))) return -1;
    while (isNameChar(this.at(p))) p = this.step(p);
    const c = this.at(p);
    if (c === EQUALS || (c === PLUS && this.at(this.step(p)) === EQUALS) || (c === LBRACK && this.bash)) return p;
    return -1;
  }

  /**
   * The assignment at `this.pos` whose name ends at `nameEnd`.
   *
   * @param declaration - an operand of `declare` and the like (where bash splits a subscript at blanks)
   */
  assignment(nameEnd: number, declaration: boolean): Assign {
    const name = this.cooked(this.pos, nameEnd);
    let p = nameEnd;
    let index: Word | undefined;
    if (this.at(p) === LBRACK) {
      this.pos = this.step(p);
      const start = this.pos;
      index = this.word(SUBSCRIPT);
      if (this.at(this.pos) !== RBRACK) this.fail('a subscript is not closed');
      if (declaration && SPACED.test(this.src.slice(start, this.pos))) {
        this.fail('blanks or operators inside the subscript of a declaration operand');
      }
      p = this.step(this.pos);
      const c = this.at(p);
      if (!(c === EQUALS || (c === PLUS && this.at(this.step(p)) === EQUALS))) {
        this.fail('a word with a subscript where an assignment may start, but no =');
      }
    }
    const append = this.at(p) === PLUS;
    if (append) p = this.step(p);
    this.pos = this.step(p);
    const base = { type: 'Assign', Append: append, Naked: false, Name: { type: 'Lit', Value: name } } as const;
    if (this.at(this.pos) === LPAREN) {
      if (!this.bash) this.fail('an array assignment in sh');
      if (index !== undefined) this.fail('an array assigned to an array element');
      this.pos = this.step(this.pos);
      return { ...base, Array: this.arrayLiteral() };
    }
    const value = this.word(UNQUOTED);
    return {
      ...base,
      ...(index === undefined ? {} : { Index: index }),
      ...(value.Parts.length === 0 ? {} : { Value: value }),
    };
  }

  /** The elements of `name=( … )`, from after its `(` to after its `)`. */
  private arrayLiteral(): ArrayExpr {
    const elems: ArrayElem[] = [];
    this.enter();
    for (;;) {
      this.skipSpace();
      const c = this.at(this.pos);
      if (c === NL) {
        this.newline();
        continue;
      }
      if (c === RPAREN) {
        this.pos = this.step(this.pos);
        break;
      }
      if (c === EOF) this.fail('an array is not closed');
      let index: Word | undefined;
      if (c === LBRACK) {
        this.pos = this.step(this.pos);
        index = this.word(SUBSCRIPT);
        if (this.at(this.pos) !== RBRACK) this.fail('a subscript is not closed');
        let p = this.step(this.pos);
        if (this.at(p) === PLUS) p = this.step(p);
        if (this.at(p) !== EQUALS) this.fail('an array element [i] without =');
        this.pos = this.step(p);
      }
      const value = this.word(UNQUOTED);
      if (index === undefined && value.Parts.length === 0) {
        this.fail(`unexpected ${JSON.stringify(String.fromCharCode(c))} inside an array`);
      }
      elems.push({
        type: 'ArrayElem',
        ...(index === undefined ? {} : { Index: index }),
        ...(value.Parts.length === 0 ? {} : { Value: value }),
      });
    }
    this.leave();
    return { type: 'ArrayExpr', Elems: elems };
  }
}
