/**
 * bash's `[[ … ]]`: `!`, `( )`, `&&`, `||`, unary tests (`-f file`, `-v name`), binary tests (`==`, `<`, `-eq`, …)
 * and `=~`, whose right side is a regular expression in which `|` and a parenthesised group (blanks included) are
 * part of the word. Line breaks may come where a test starts, nowhere else. This is the last layer of the reader:
 * it also reads the text of a backquoted command as a script of its own.
 */
import { CompoundReader } from './compound.js';
import type { Stmt, TestClause, TestExpr, Word } from './nodes.js';
import { BINARY_TESTS, OP, UNARY_TESTS } from './nodes.js';
import { AMP, BANG, EOF, GT, HASH, isBreak, LPAREN, LT, NL, PIPE, RPAREN } from './scanner.js';
import { CLOSE_TEST } from './reserved.js';
import { REGEX, UNQUOTED } from './words.js';

/** The shell reader: every layer, from characters to statements. */
export class Reader extends CompoundReader {
  /** Reads the text of a backquoted command on its own, at the same depth of nesting. */
  script(text: string, base: number): readonly Stmt[] {
    return new Reader(text, this.dialect, this.nesting, base).file().Stmts;
  }

  /** `[[ … ]]` from after `[[`. */
  testClause(): TestClause {
    const x = this.testOr();
    this.skipBlanks();
    if (this.reserved() !== CLOSE_TEST) this.fail(`]] expected, ${this.describe(this.pos)} found`);
    this.pos = this.reservedEnd;
    return { type: 'TestClause', X: x };
  }

  private testOr(): TestExpr {
    let left = this.testAnd();
    while (this.joiner(PIPE)) left = { type: 'BinaryTest', Op: OP.orList, X: left, Y: this.testAnd() };
    return left;
  }

  private testAnd(): TestExpr {
    let left = this.testTerm();
    while (this.joiner(AMP)) left = { type: 'BinaryTest', Op: OP.andList, X: left, Y: this.testTerm() };
    return left;
  }

  /** Reads `&&` (or `||`) after blanks, if it is there. */
  private joiner(c: number): boolean {
    this.skipBlanks();
    const second = this.step(this.pos);
    if (this.at(this.pos) !== c || this.at(second) !== c) return false;
    this.pos = this.step(second);
    return true;
  }

  private testTerm(): TestExpr {
    this.skipLines();
    this.enter();
    const c = this.at(this.pos);
    const next = this.at(this.step(this.pos));
    let term: TestExpr;
    if (c === BANG && isBreak(next)) {
      if (next === LPAREN) this.fail('!( inside [[ ]]');
      this.pos = this.step(this.pos);
      term = { type: 'UnaryTest', Op: OP.not, X: this.testTerm() };
    } else if (c === LPAREN) {
      this.pos = this.step(this.pos);
      const x = this.testOr();
      this.skipBlanks();
      if (this.at(this.pos) !== RPAREN) this.fail(`) expected inside [[ ]], ${this.describe(this.pos)} found`);
      this.pos = this.step(this.pos);
      term = { type: 'ParenTest', X: x };
    } else {
      term = this.testWords();
    }
    this.leave();
    return term;
  }

  /** A unary test, a binary test, or a word alone. */
  private testWords(): TestExpr {
    if (this.reserved() === CLOSE_TEST) this.fail('[[ ]] without a test');
    const first = this.testWord();
    const unary = UNARY_TESTS.get(plain(first) ?? '');
    if (unary !== undefined) {
      this.skipBlanks();
      const c = this.at(this.pos);
      const ends =
        c === EOF ||
        c === NL ||
        c === RPAREN ||
        this.reserved() === CLOSE_TEST ||
        ((c === AMP || c === PIPE) && this.at(this.step(this.pos)) === c);
      if (ends) this.fail(`${plain(first) ?? ''} without its operand`);
      return { type: 'UnaryTest', Op: unary, X: this.testWord() };
    }
    this.skipBlanks();
    const op = this.binaryOperator();
    if (op === undefined) return first;
    this.skipBlanks();
    if (this.at(this.pos) === HASH) this.fail('a comment inside [[ ]]');
    const right = op === OP.regexMatch ? this.word(REGEX) : this.testWord();
    if (right.Parts.length === 0) this.fail('a binary test without its right side');
    return { type: 'BinaryTest', Op: op, X: first, Y: right };
  }

  private testWord(): Word {
    if (this.at(this.pos) === HASH) this.fail('a comment inside [[ ]]');
    const word = this.word(UNQUOTED);
    if (word.Parts.length === 0) this.fail(`unexpected ${this.describe(this.pos)} inside [[ ]]`);
    return word;
  }

  /** The binary operator at `this.pos` (read), or `undefined` (nothing read). */
  private binaryOperator(): number | undefined {
    const c = this.at(this.pos);
    if ((c === LT || c === GT) && this.at(this.step(this.pos)) !== LPAREN) {
      this.pos = this.step(this.pos);
      return c === LT ? OP.before : OP.after;
    }
    let p = this.pos;
    for (let n = 0; n < 4; n += 1) {
      const d = this.at(p);
      if (!(d === 45 || d === 61 || d === 33 || d === 126 || (d >= 97 && d <= 122))) break;
      p = this.step(p);
    }
    const op = BINARY_TESTS.get(this.cooked(this.pos, p));
    if (op === undefined || !isBreak(this.at(p))) return undefined;
    this.pos = p;
    return op;
  }
}

/** The text of a word made of one literal without escapes, or `undefined`. */
function plain(word: Word): string | undefined {
  const [part] = word.Parts;
  return word.Parts.length === 1 && part?.type === 'Lit' && !part.Value.includes('\\') ? part.Value : undefined;
}
