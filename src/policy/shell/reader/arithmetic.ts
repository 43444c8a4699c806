/**
 * Arithmetic: `$((…))`, `((…))`, `$[…]`, `for ((…;…;…))` and `${x:offset:length}`. Reading is two steps, as bash
 * does it: first the text up to the closing parenthesis, with quotes and nested expansions read whole (this alone
 * decides whether `$((` opens arithmetic or a command substitution holding a subshell, as bash decides it), then the
 * expression itself. Every operand is a word (a number, a name, an expansion), so the walk sees each one; an
 * expression bash could not evaluate is refused.
 */
import type { ArithmCmd, ArithmExpr, CStyleLoop, Word, WordPart } from './nodes.js';
import { ParameterReader } from './parameter.js';
import { EOF, LPAREN, NL, RPAREN, SEMI, SPACE, TAB } from './scanner.js';
import { ARITHMETIC } from './words.js';

/** A token of an arithmetic text: an operand, or an operator, a parenthesis or another character as a string. */
type Token = Word | string;

/** Operators, longest first for each first character. */
const OPERATORS = ['<<=', '>>=', '**', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||']
  .concat(['+=', '-=', '*=', '/=', '%=', '&=', '|=', '^='])
  .concat(['+', '-', '*', '/', '%', '<', '>', '=', '!', '~', '&', '|', '^', '?', ':', ',']);
const OPERATOR_START = new Set(OPERATORS.map((o) => o.charCodeAt(0)));

/** Operator numbers, as mvdan/sh numbers them. */
const NUMBERS: ReadonlyMap<string, number> = new Map([
  ['+', 68],
  ['-', 70],
  ['*', 38],
  ['/', 85],
  ['%', 76],
  ['**', 39],
  ['==', 40],
  ['!=', 41],
  ['<=', 42],
  ['>=', 43],
  ['<', 56],
  ['>', 54],
  ['&', 9],
  ['|', 12],
  ['^', 80],
  ['<<', 61],
  ['>>', 55],
  ['&&', 10],
  ['||', 11],
  [',', 82],
  ['?', 72],
  [':', 87],
  ['=', 74],
  ['+=', 44],
  ['-=', 45],
  ['*=', 46],
  ['/=', 47],
  ['%=', 48],
  ['&=', 49],
  ['|=', 50],
  ['^=', 51],
  ['<<=', 52],
  ['>>=', 53],
  ['!', 34],
  ['~', 35],
  ['++', 36],
  ['--', 37],
]);

/** Binary operators: precedence (higher binds tighter) and whether they group to the right. */
const BINARY: ReadonlyMap<string, readonly [number, boolean]> = new Map([
  [',', [1, false]],
  ...['=', '*=', '/=', '%=', '+=', '-=', '<<=', '>>=', '&=', '^=', '|='].map(
    (o): [string, readonly [number, boolean]] => [o, [2, true]],
  ),
  ['?', [3, true]],
  ['||', [4, false]],
  ['&&', [5, false]],
  ['|', [6, false]],
  ['^', [7, false]],
  ['&', [8, false]],
  ['==', [9, false]],
  ['!=', [9, false]],
  ['<', [10, false]],
  ['>', [10, false]],
  ['<=', [10, false]],
  ['>=', [10, false]],
  ['<<', [11, false]],
  ['>>', [11, false]],
  ['+', [12, false]],
  ['-', [12, false]],
  ['*', [13, false]],
  ['/', [13, false]],
  ['%', [13, false]],
  ['**', [14, true]],
]);
const PREFIX = new Set(['!', '~', '+', '-', '++', '--']);

/** Reads arithmetic. */
export abstract class ArithmeticReader extends ParameterReader {
  /** The tokens from `this.pos` to a character of `ends` (or, with `closeParen`, a `)`) outside parentheses. */
  private tokens(ends: string, closeParen: boolean): Token[] {
    const out: Token[] = [];
    let depth = 0;
    this.enter();
    for (;;) {
      let p = this.skipJoins(this.pos);
      for (let c = this.at(p); c === SPACE || c === TAB || c === NL; c = this.at(p)) p = this.step(p);
      this.pos = p;
      const c = this.at(p);
      if (c === EOF) this.fail('arithmetic is not closed');
      if (depth === 0 && ends.includes(String.fromCharCode(c))) break;
      if (c === LPAREN) {
        depth += 1;
        out.push('(');
        this.pos = this.step(p);
      } else if (c === RPAREN) {
        if (depth === 0 && closeParen) break;
        depth -= 1;
        out.push(')');
        this.pos = this.step(p);
      } else if (OPERATOR_START.has(c)) {
        out.push(this.operator());
      } else {
        const word = this.word(ARITHMETIC, true);
        if (word.Parts.length > 0) out.push(word);
        else {
          // A character that ends operands but is none of the above (`;`, `}`, `]`): the expression fails.
          out.push(String.fromCharCode(c));
          this.pos = this.step(p);
        }
      }
    }
    this.leave();
    return out;
  }

  /** The longest operator at `this.pos`. */
  private operator(): string {
    const first = this.pos;
    const second = this.step(first);
    const third = this.step(second);
    const text = String.fromCharCode(this.at(first), this.at(second), this.at(third));
    for (const o of OPERATORS) {
      if (text.startsWith(o)) {
        this.pos = o.length === 1 ? second : o.length === 2 ? third : this.step(third);
        return o;
      }
    }
    this.pos = second;
    return text.charAt(0);
  }

  /** Parses tokens into an expression (`undefined` for none); refuses what bash could not evaluate. */
  private expression(tokens: readonly Token[]): ArithmExpr | undefined {
    if (tokens.length === 0) return undefined;
    const state = { tokens, next: 0 };
    const expr = this.binary(state, 1);
    if (state.next !== tokens.length) this.fail('an arithmetic expression bash cannot evaluate');
    return expr;
  }

  private binary(state: { tokens: readonly Token[]; next: number }, min: number): ArithmExpr {
    this.enter();
    let left = this.unary(state);
    for (;;) {
      const token = state.tokens[state.next];
      if (typeof token !== 'string') {
        this.leave();
        return left;
      }
      const binary = BINARY.get(token);
      if (binary === undefined || binary[0] < min) {
        this.leave();
        return left;
      }
      state.next += 1;
      const [precedence, right] = binary;
      if (token === '?') {
        const then = this.binary(state, 1);
        if (state.tokens[state.next] !== ':') this.fail('a ? without its : in arithmetic');
        state.next += 1;
        const otherwise = this.binary(state, precedence);
        left = binaryArithm('?', left, binaryArithm(':', then, otherwise));
      } else {
        left = binaryArithm(token, left, this.binary(state, right ? precedence : precedence + 1));
      }
    }
  }

  private unary(state: { tokens: readonly Token[]; next: number }): ArithmExpr {
    const token = state.tokens[state.next];
    state.next += 1;
    let expr: ArithmExpr;
    if (token === undefined) this.fail('an arithmetic expression ends too early');
    if (typeof token !== 'string') expr = token;
    else if (PREFIX.has(token)) {
      this.enter();
      expr = { type: 'UnaryArithm', Op: NUMBERS.get(token) ?? 0, Post: false, X: this.unary(state) };
      this.leave();
      return expr;
    } else if (token === '(') {
      expr = { type: 'ParenArithm', X: this.binary(state, 1) };
      if (state.tokens[state.next] !== ')') this.fail('a ( without its ) in arithmetic');
      state.next += 1;
    } else {
      this.fail(`an arithmetic expression bash cannot evaluate (${token})`);
    }
    for (let post = state.tokens[state.next]; post === '++' || post === '--'; post = state.tokens[state.next]) {
      expr = { type: 'UnaryArithm', Op: NUMBERS.get(post) ?? 0, Post: true, X: expr };
      state.next += 1;
    }
    return expr;
  }

  /** An expression up to a character of `ends` outside parentheses (left unread). */
  arithmeticUntil(ends: string): ArithmExpr | undefined {
    return this.expression(this.tokens(ends, false));
  }

  /**
   * After `$((` (`this.pos` at the second `(`): arithmetic when bash finds `))` where the parentheses balance, a
   * command substitution holding a subshell otherwise (`$((ls) | wc)`); dash always reads arithmetic.
   */
  dollarParens(): WordPart {
    const second = this.pos;
    const pending = this.pending.length;
    this.pos = this.step(second);
    const tokens = this.tokens('', true);
    const close = this.step(this.pos);
    if (this.at(close) === RPAREN) {
      this.pos = this.step(close);
      const x = this.expression(tokens);
      return x === undefined ? { type: 'ArithmExp', Bracket: false } : { type: 'ArithmExp', Bracket: false, X: x };
    }
    if (!this.bash) this.fail('$(( without its ))');
    this.pos = second;
    this.pending.length = pending;
    return { type: 'CmdSubst', Stmts: this.nestedStatements(), Backquotes: false };
  }

  /** `$[…]`, from after its `[`. */
  bracketArithmetic(): WordPart {
    const x = this.arithmeticUntil(']');
    this.pos = this.step(this.pos);
    return x === undefined ? { type: 'ArithmExp', Bracket: true } : { type: 'ArithmExp', Bracket: true, X: x };
  }

  /**
   * `((…))` at a command's start (`this.pos` at the first `(`), or `undefined` (position unchanged) when bash reads
   * a subshell instead: the parentheses do not close with `))`.
   */
  arithmeticCommand(): ArithmCmd | undefined {
    const first = this.pos;
    const pending = this.pending.length;
    this.pos = this.step(this.step(first));
    const tokens = this.tokens('', true);
    const close = this.step(this.pos);
    if (this.at(close) !== RPAREN) {
      this.pos = first;
      this.pending.length = pending;
      return undefined;
    }
    this.pos = this.step(close);
    const x = this.expression(tokens);
    return x === undefined ? { type: 'ArithmCmd' } : { type: 'ArithmCmd', X: x };
  }

  /** The `((init; cond; post))` of a `for`, from after its `((` to after its `))`. */
  cStyleLoop(): CStyleLoop {
    const init = this.arithmeticPart(SEMI);
    const cond = this.arithmeticPart(SEMI);
    const post = this.arithmeticPart(RPAREN);
    if (this.at(this.pos) !== RPAREN) this.fail('for (( without its ))');
    this.pos = this.step(this.pos);
    return {
      type: 'CStyleLoop',
      ...(init === undefined ? {} : { Init: init }),
      ...(cond === undefined ? {} : { Cond: cond }),
      ...(post === undefined ? {} : { Post: post }),
    };
  }

  private arithmeticPart(end: number): ArithmExpr | undefined {
    const x = this.expression(this.tokens(end === SEMI ? ';' : '', true));
    if (this.at(this.pos) !== end) this.fail('a for (( … )) that does not have three parts');
    this.pos = this.step(this.pos);
    return x;
  }
}

function binaryArithm(op: string, x: ArithmExpr, y: ArithmExpr): ArithmExpr {
  return { type: 'BinaryArithm', Op: NUMBERS.get(op) ?? 0, X: x, Y: y };
}
