/**
 * Compound commands: `{ }`, `( )`, bash's `(( ))`, `if`, `while`/`until`, `for` (also bash's `for (( ))`),
 * `select`, `case`, function definitions (`name()` and bash's `function name`) and bash's `coproc`. Their bodies are
 * lists that end at the reserved word that closes them; redirections may follow the closing word, nothing else.
 */
import type { CaseItem, CStyleLoop, IfClause, Stmt, TestClause, Word, WordIter } from './nodes.js';
import { OP } from './nodes.js';
import { EOF, HASH, isBlank, isBreak, isNameChar, isNameStart, LPAREN, NL, PIPE, RPAREN, SEMI } from './scanner.js';
import {
  bit,
  CASE,
  COMPOUND,
  COPROC,
  DO,
  DONE,
  ELIF,
  ELSE,
  ESAC,
  FI,
  FOR,
  FUNCTION,
  IF,
  IN,
  LBRACE_WORD,
  OPEN_TEST,
  RBRACE_WORD,
  SELECT,
  THEN,
  UNTIL,
  WHILE,
} from './reserved.js';
import { CASE_ITEM, CLOSE_PAREN, StatementReader } from './statements.js';
import { UNQUOTED } from './words.js';

const CLOSERS: ReadonlyMap<number, string> = new Map([
  [THEN, 'then'],
  [FI, 'fi'],
  [DO, 'do'],
  [DONE, 'done'],
  [ESAC, 'esac'],
  [IN, 'in'],
  [RBRACE_WORD, '}'],
]);

/** Reads compound commands; `[[ ]]` is read by the last layer. */
export abstract class CompoundReader extends StatementReader {
  /** `[[ … ]]`, from after its `[[` to after its `]]`. */
  abstract testClause(): TestClause;

  /** A compound command starting with the reserved word `id` (at `this.pos`), with its redirections. */
  compound(id: number, start: number): Stmt {
    this.enter();
    this.pos = this.reservedEnd;
    let stmt: Stmt;
    switch (id) {
      case LBRACE_WORD:
        stmt = this.finish({ type: 'Block', Stmts: this.body(RBRACE_WORD) }, start);
        break;
      case IF:
        stmt = this.finish(this.ifClause(), start);
        break;
      case WHILE:
      case UNTIL: {
        const cond = this.body(DO);
        stmt = this.finish({ type: 'WhileClause', Until: id === UNTIL, Cond: cond, Do: this.body(DONE) }, start);
        break;
      }
      case FOR:
      case SELECT:
        stmt = this.forClause(id === SELECT, start);
        break;
      case CASE:
        stmt = this.caseClause(start);
        break;
      case OPEN_TEST:
        stmt = this.finish(this.testClause(), start);
        break;
      case FUNCTION:
        stmt = this.functionKeyword(start);
        break;
      case COPROC:
        stmt = this.coproc(start);
        break;
      default:
        this.fail('a reserved word that starts no command');
    }
    this.leave();
    return stmt;
  }

  /** A list that may not be empty, and the reserved word `end` that closes it (read too). */
  private body(end: number): Stmt[] {
    const stmts = this.list(bit(end), 0);
    if (stmts.length === 0) this.fail(`no command before ${CLOSERS.get(end) ?? 'the end'}`);
    this.expect(end);
    return stmts;
  }

  /** Reads the reserved word `id`, which must be at `this.pos`. */
  private expect(id: number): void {
    if (this.reserved() !== id)
      this.fail(`${CLOSERS.get(id) ?? 'a reserved word'} expected, ${this.describe(this.pos)} found`);
    this.pos = this.reservedEnd;
  }

  /** `(` at `this.pos`: bash's `(( … ))` when it closes with `))`, a subshell otherwise. */
  parenthesized(start: number): Stmt {
    if (this.ksh && this.at(this.step(this.pos)) === LPAREN) this.fail('(( in a ksh script');
    if (this.bash && this.at(this.step(this.pos)) === LPAREN) {
      const arithmetic = this.arithmeticCommand();
      if (arithmetic !== undefined) return this.finish(arithmetic, start);
    }
    this.enter();
    this.pos = this.step(this.pos);
    const stmts = this.list(0, CLOSE_PAREN);
    if (this.at(this.pos) !== RPAREN) this.fail('a ( without its )');
    if (stmts.length === 0) this.fail('an empty subshell');
    this.pos = this.step(this.pos);
    this.leave();
    return this.finish({ type: 'Subshell', Stmts: stmts }, start);
  }

  /** `if` after its reserved word, to after its `fi` (an `elif` is an `if` in the `Else` of the one before). */
  private ifClause(): IfClause {
    const cond = this.body(THEN);
    const then = this.list(bit(ELIF) | bit(ELSE) | bit(FI), 0);
    if (then.length === 0) this.fail('no command after then');
    const id = this.reserved();
    this.pos = this.reservedEnd;
    if (id === ELIF) {
      this.enter();
      const otherwise = this.ifClause();
      this.leave();
      return { type: 'IfClause', Cond: cond, Then: then, Else: otherwise };
    }
    if (id === ELSE) {
      const otherwise = this.body(FI);
      return { type: 'IfClause', Cond: cond, Then: then, Else: { type: 'IfClause', Cond: [], Then: otherwise } };
    }
    if (id !== FI) this.fail(`fi expected, ${this.describe(this.pos)} found`);
    return { type: 'IfClause', Cond: cond, Then: then };
  }

  /** `for`/`select` after the reserved word. */
  private forClause(select: boolean, start: number): Stmt {
    this.skipBlanks();
    let loop: WordIter | CStyleLoop;
    if (!select && this.bash && this.at(this.pos) === LPAREN && this.at(this.step(this.pos)) === LPAREN) {
      this.pos = this.step(this.step(this.pos));
      loop = this.cStyleLoop();
      this.skipBlanks();
      if (this.at(this.pos) === SEMI) this.pos = this.step(this.pos);
    } else {
      const nameStart = this.pos;
      let p = nameStart;
      if (!isNameStart(this.at(p))) this.fail('a for or select without a plain variable name');
      while (isNameChar(this.at(p))) p = this.step(p);
      if (!isBreak(this.at(p))) this.fail('a for or select without a plain variable name');
      this.pos = p;
      const items: Word[] = [];
      this.skipLines();
      if (this.reserved() === IN) {
        this.pos = this.reservedEnd;
        for (;;) {
          this.skipSpace();
          const c = this.at(this.pos);
          if (c === NL) {
            this.newline();
            break;
          }
          if (c === SEMI) {
            this.pos = this.step(this.pos);
            break;
          }
          const item = this.word(UNQUOTED);
          if (item.Parts.length === 0) this.fail(`unexpected ${this.describe(this.pos)} in a for list`);
          items.push(item);
        }
      } else if (this.at(this.pos) === SEMI) {
        this.pos = this.step(this.pos);
      }
      loop = { type: 'WordIter', Name: { type: 'Lit', Value: this.cooked(nameStart, p) }, Items: items };
    }
    this.skipLines();
    const id = this.reserved();
    // Bash also takes `{ …; }` for `do …; done`.
    if (id !== DO && !(id === LBRACE_WORD && this.bash)) this.fail(`do expected, ${this.describe(this.pos)} found`);
    this.pos = this.reservedEnd;
    const body = this.body(id === DO ? DONE : RBRACE_WORD);
    return this.finish({ type: 'ForClause', Select: select, Loop: loop, Do: body }, start);
  }

  /** `case WORD in … esac` after `case`. */
  private caseClause(start: number): Stmt {
    this.skipBlanks();
    const subject = this.plainWord('case');
    this.skipLines();
    this.expect(IN);
    const items: CaseItem[] = [];
    for (;;) {
      this.skipLines();
      if (this.reserved() === ESAC) {
        this.pos = this.reservedEnd;
        break;
      }
      if (this.at(this.pos) === EOF) this.fail('a case without its esac');
      if (this.at(this.pos) === LPAREN) {
        this.pos = this.step(this.pos);
        this.skipBlanks();
      }
      const patterns: Word[] = [];
      for (;;) {
        patterns.push(this.plainWord('case pattern'));
        this.skipBlanks();
        const c = this.at(this.pos);
        this.pos = this.step(this.pos);
        if (c === RPAREN) break;
        if (c !== PIPE) this.fail(`) expected after a case pattern, ${this.describe(this.pos - 1)} found`);
        this.skipBlanks();
      }
      const stmts = this.list(bit(ESAC), CASE_ITEM);
      let op = this.caseEnd();
      if (op === 0) {
        if (this.reserved() !== ESAC) this.fail(`;; or esac expected, ${this.describe(this.pos)} found`);
        op = OP.caseBreak;
      } else {
        this.pos = this.step(this.step(this.pos));
        if (op === OP.caseResume) this.pos = this.step(this.pos);
      }
      items.push({ type: 'CaseItem', Op: op, Patterns: patterns, Stmts: stmts });
    }
    return this.finish({ type: 'CaseClause', Word: subject, Items: items }, start);
  }

  /** A word that must be there (a `#` would start a comment instead). */
  private plainWord(what: string): Word {
    if (this.at(this.pos) === HASH) this.fail(`a ${what} word expected, a comment found`);
    const word = this.word(UNQUOTED);
    if (word.Parts.length === 0) this.fail(`a ${what} word expected, ${this.describe(this.pos)} found`);
    return word;
  }

  /** bash's `function NAME [()] body` after `function`. */
  private functionKeyword(start: number): Stmt {
    this.skipBlanks();
    const name = this.plainWord('function name');
    const [part] = name.Parts;
    if (name.Parts.length !== 1 || part?.type !== 'Lit' || part.Value.includes('\\')) {
      this.fail('a function name that is not plain text');
    }
    this.skipBlanks();
    if (this.at(this.pos) === LPAREN) {
      this.pos = this.step(this.pos);
      this.skipBlanks();
      if (this.at(this.pos) !== RPAREN) this.fail('a ( after a function name without its )');
      this.pos = this.step(this.pos);
    }
    return this.stmt({ type: 'FuncDecl', Name: part, Body: this.functionBody() }, [], start);
  }

  /**
   * bash's `coproc`: a compound command, `NAME` and a compound command, or a simple command (whose first words may
   * be assignments: `coproc X=1 cmd` runs `cmd`).
   */
  private coproc(start: number): Stmt {
    this.skipBlanks();
    let name: Word | undefined;
    if (!this.startsCompound()) {
      const nameStart = this.pos;
      let p = nameStart;
      if (isNameStart(this.at(p))) {
        while (isNameChar(this.at(p))) p = this.step(p);
        if (isBlank(this.at(p))) {
          this.pos = p;
          this.skipBlanks();
          if (this.startsCompound())
            name = { type: 'Word', Parts: [{ type: 'Lit', Value: this.cooked(nameStart, p) }] };
          else this.pos = nameStart;
        }
      }
    }
    const id = this.reserved();
    if (id === FUNCTION || id === COPROC) this.fail('coproc of a function definition or another coproc');
    const inner = this.command();
    return this.stmt({ type: 'CoprocClause', ...(name === undefined ? {} : { Name: name }), Stmt: inner }, [], start);
  }

  /** Whether a compound command starts at `this.pos`. */
  private startsCompound(): boolean {
    const id = this.reserved();
    return COMPOUND.has(id) || (id === 0 && this.at(this.pos) === LPAREN);
  }
}
