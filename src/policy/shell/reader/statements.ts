/**
 * Statements: lists (`;`, `&`, line breaks), `&&`/`||`, pipelines (`|`, `|&`) with bash's `!` and `time` before
 * them, and simple commands with their assignments, words and redirections (`declare`-like commands read their
 * operands as assignments, `let` its operands as arithmetic, as bash does). Compound commands are read by the next
 * layer.
 */
import type { Assign, BinaryCmd, Command, File, Redirect, Stmt, Word } from './nodes.js';
import { OP } from './nodes.js';
import { RedirectReader } from './redirects.js';
import {
  AMP,
  BACKSLASH,
  DOLLAR,
  DQUOTE,
  EOF,
  GT,
  HASH,
  isBreak,
  LPAREN,
  NL,
  PIPE,
  RPAREN,
  SEMI,
  SQUOTE,
} from './scanner.js';
import { BANG_WORD, BASH_ONLY, bit, COMPOUND, COPROC, FUNCTION, NAMES, RESERVED, TIME } from './reserved.js';
import { UNQUOTED } from './words.js';

/** The first characters of reserved words (1). */
const KEYWORD_START = new Uint8Array(128);
for (const name of RESERVED.keys()) KEYWORD_START[name.charCodeAt(0)] = 1;

/** A list ends at a `)`. */
export const CLOSE_PAREN = 1;
/** A list ends at a case item's `;;`, `;&` or `;;&`. */
export const CASE_ITEM = 2;

const PLAIN = 0;
const DECLARATION = 1;
const LET = 2;
const DECLARATIONS = {
  bash: new Set(['declare', 'typeset', 'local', 'export', 'readonly']),
  sh: new Set(['export', 'readonly', 'local']),
};

/** Reads statements; compound commands are abstract here. */
export abstract class StatementReader extends RedirectReader {
  private _reservedAt = -1;
  private _reservedId = 0;
  /** Where the reserved word last found ends. */
  reservedEnd = 0;

  /** A compound command starting with the reserved word `id` at `start`, with its trailing redirections. */
  abstract compound(id: number, start: number): Stmt;
  /** A command starting with `(`: a subshell, or bash's `(( … ))`. */
  abstract parenthesized(start: number): Stmt;

  /** The reserved word at `this.pos` as a command's first word (0 for none); `reservedEnd` is set to its end. */
  reserved(): number {
    const start = this.pos;
    if (this._reservedAt === start) return this._reservedId;
    let p = start;
    // Most first words start with a letter no reserved word starts with.
    const first = this.at(start);
    if (first >= 0 && first < 128 && KEYWORD_START[first] === 0) {
      this._reservedAt = start;
      this._reservedId = 0;
      this.reservedEnd = start;
      return 0;
    }
    for (let n = 0; n < 9; n += 1) {
      const c = this.at(p);
      if (!((c >= 97 && c <= 122) || c === 123 || c === 125 || c === 91 || c === 93 || c === 33)) break;
      p = this.step(p);
    }
    let id = p === start ? 0 : (RESERVED.get(this.cooked(start, p)) ?? 0);
    if (id !== 0 && !isBreak(this.at(p))) id = 0;
    if (id !== 0 && !this.bash && BASH_ONLY.has(id)) id = 0;
    // `!(…)` is an extended glob in bash (with extglob on; with it off bash reads `! (…)`: a pattern covers both).
    if (id === BANG_WORD && this.bash && this.at(p) === LPAREN) id = 0;
    if (this.ksh && (id === BANG_WORD ? this.at(p) === LPAREN : this.cooked(start, p) === '[[')) {
      this.fail('!( or [[ in a ksh script');
    }
    this._reservedAt = start;
    this._reservedId = id;
    this.reservedEnd = p;
    return id;
  }

  /** The whole text: its statements, every here-document read. */
  file(): File {
    const stmts = this.list(0, 0);
    if (this.pos < this.limit) this.fail(`unexpected ${this.describe(this.pos)}`);
    if (this.pending.length > 0) this.fail('a here-document without its body');
    return { type: 'File', Stmts: stmts };
  }

  /** A statement with its command and redirections. */
  stmt(cmd: Command | undefined, redirs: readonly Redirect[], start: number): Stmt {
    return {
      type: 'Stmt',
      Cmd: cmd,
      Redirs: redirs,
      Negated: false,
      Background: false,
      Position: { type: 'Pos', offs: this.offset(start) },
    };
  }

  /**
   * Statements up to the end, a reserved word of `stops`, or what `flags` name (a `)`, a case item's end), which
   * are left unread.
   */
  list(stops: number, flags: number): Stmt[] {
    const stmts: Stmt[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.at(this.pos);
      if (c === NL) {
        this.newline();
        continue;
      }
      if (c === EOF || (c === RPAREN && (flags & CLOSE_PAREN) !== 0)) break;
      if ((flags & CASE_ITEM) !== 0 && this.caseEnd() !== 0) break;
      const id = this.reserved();
      if (id !== 0 && (stops & bit(id)) !== 0) break;
      const stmt = this.andOr();
      stmts.push(stmt);
      this.skipSpace();
      const d = this.at(this.pos);
      if (d === AMP) {
        stmt.Background = true;
        this.pos = this.step(this.pos);
      } else if (d === SEMI && this.caseEnd() === 0) {
        this.pos = this.step(this.pos);
      } else if (!(d === NL || d === EOF || d === RPAREN || d === SEMI)) {
        this.fail(`unexpected ${this.describe(this.pos)}`);
      }
    }
    return stmts;
  }

  /** A case item's terminator at `this.pos` (`;;`, and bash's `;&`, `;;&`): its operator, or 0. */
  caseEnd(): number {
    if (this.at(this.pos) !== SEMI) return 0;
    const second = this.step(this.pos);
    if (this.at(second) === SEMI) return this.bash && this.at(this.step(second)) === AMP ? OP.caseResume : OP.caseBreak;
    return this.bash && this.at(second) === AMP ? OP.caseFall : 0;
  }

  /** Pipelines joined by `&&` and `||` (left to right). */
  private andOr(): Stmt {
    let left = this.pipeline();
    for (;;) {
      this.skipBlanks();
      const c = this.at(this.pos);
      const second = this.step(this.pos);
      if (!((c === AMP || c === PIPE) && this.at(second) === c)) return left;
      this.pos = this.step(second);
      this.skipLines();
      const right = this.pipeline();
      left = joined({ type: 'BinaryCmd', Op: c === AMP ? OP.andList : OP.orList, X: left, Y: right });
    }
  }

  /** A pipeline, with bash's `!` and `time` (any number, in any order) or dash's single `!` before it. */
  private pipeline(): Stmt {
    const start = this.pos;
    const id = this.reserved();
    if (id === BANG_WORD || id === TIME) {
      this.pos = this.reservedEnd;
      this.skipBlanks();
      let posix = false;
      if (id === TIME) {
        posix = this.option('-p');
        // Bash's `time` takes `--` (after `-p` too); the walk reads a first word `--` as that, so another is refused.
        this.option('--');
        if (this.dashDash()) this.fail('time followed by a command named --');
      }
      const c = this.at(this.pos);
      const empty = c === EOF || c === NL || c === SEMI || c === HASH;
      if (!this.bash && !empty && this.reserved() === BANG_WORD) this.fail('! twice in sh');
      this.enter();
      const inner = empty ? undefined : this.pipeline();
      this.leave();
      if (id === BANG_WORD) {
        const negated = inner ?? this.stmt(undefined, [], start);
        negated.Negated = !negated.Negated;
        return negated;
      }
      return this.stmt(
        { type: 'TimeClause', PosixFormat: posix, ...(inner === undefined ? {} : { Stmt: inner }) },
        [],
        start,
      );
    }
    let left = this.command();
    for (;;) {
      this.skipBlanks();
      const second = this.step(this.pos);
      if (this.at(this.pos) !== PIPE || this.at(second) === PIPE) return left;
      let op: number = OP.pipe;
      this.pos = second;
      if (this.at(second) === AMP) {
        if (!this.bash) this.fail('|& in sh');
        op = OP.pipeAll;
        this.pos = this.step(second);
      }
      this.skipLines();
      const right = this.command();
      left = joined({ type: 'BinaryCmd', Op: op, X: left, Y: right });
    }
  }

  /** Reads `text` as an unquoted word of its own at `this.pos` (an option of `time`); whether it was there. */
  private option(text: string): boolean {
    let p = this.pos;
    for (let i = 0; i < text.length; i += 1) {
      if (this.at(p) !== text.charCodeAt(i)) return false;
      p = this.step(p);
    }
    if (!isBreak(this.at(p))) return false;
    this.pos = p;
    this.skipBlanks();
    return true;
  }

  /** Whether the word at `this.pos` is `--` once quotes are removed (`"--"`, `'-'-`, `$'--'`). */
  private dashDash(): boolean {
    let p = this.pos;
    let dashes = 0;
    for (let c = this.at(p); !isBreak(c); c = this.at(p)) {
      if (c === 45) dashes += 1;
      else if (!(c === SQUOTE || c === DQUOTE || c === BACKSLASH || c === DOLLAR)) return false;
      p = this.step(p);
    }
    return dashes === 2;
  }

  /** One command: a compound command, a subshell, or a simple command. */
  command(): Stmt {
    const start = this.pos;
    const id = this.reserved();
    if (id !== 0) {
      if (COMPOUND.has(id) || id === FUNCTION || id === COPROC) return this.compound(id, start);
      // After a `|`, `time` is no reserved word: bash runs the program `time` (a `!` there does not parse).
      if (id === TIME) return this.simple(start);
      this.fail(`unexpected ${NAMES.get(id) ?? 'reserved word'}`);
    }
    if (this.at(start) === LPAREN) return this.parenthesized(start);
    return this.simple(start);
  }

  /** The redirections after a compound command; nothing else may follow it. */
  finish(cmd: Command, start: number): Stmt {
    const redirs: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const op = this.redirectStart();
      if (op === -1) break;
      redirs.push(this.redirect(op));
    }
    const c = this.at(this.pos);
    if (!(isBreak(c) || c === HASH)) this.fail('a word after a compound command');
    return this.stmt(cmd, redirs, start);
  }

  /** A simple command (or a function definition `name() …`). */
  simple(start: number): Stmt {
    const assigns: Assign[] = [];
    const args: Word[] = [];
    const operands: Assign[] = [];
    const redirs: Redirect[] = [];
    let variant = PLAIN;
    for (;;) {
      this.skipBlanks();
      const c = this.at(this.pos);
      if (c === EOF || c === NL || c === SEMI || c === PIPE || c === RPAREN || c === HASH) break;
      if (c === AMP && !(this.bash && this.at(this.step(this.pos)) === GT)) break;
      const op = this.redirectStart();
      if (op !== -1) {
        redirs.push(this.redirect(op));
        continue;
      }
      if (c === LPAREN) {
        const [name] = args;
        const last = this.src.charAt(this.pos - 1);
        if (this.ksh && '@*+?!'.includes(last)) this.fail('an extended glob in a ksh script');
        if (args.length === 1 && name !== undefined && assigns.length === 0 && redirs.length === 0) {
          return this.functionDefinition(name, start);
        }
        this.fail('a ( inside a command (bash reads one only to define a function)');
      }
      if (args.length === 0 || variant === DECLARATION) {
        const nameEnd = this.assignmentEnd();
        if (nameEnd !== -1) {
          const assign = this.assignment(nameEnd, variant === DECLARATION);
          if (args.length === 0) assigns.push(assign);
          else operands.push(assign);
          continue;
        }
      }
      const word = this.word(UNQUOTED);
      if (word.Parts.length === 0) this.fail(`unexpected ${this.describe(this.pos)}`);
      if (args.length === 0 && assigns.length === 0 && redirs.length === 0) variant = this.variant(word);
      else if (variant === DECLARATION) operands.push(naked(word));
      args.push(word);
    }
    const [first] = args;
    if (first === undefined && assigns.length === 0) {
      if (redirs.length === 0) this.fail(`unexpected ${this.describe(this.pos)}`);
      return this.stmt(undefined, redirs, start);
    }
    if (variant === DECLARATION && first?.Parts[0]?.type === 'Lit') {
      return this.stmt({ type: 'DeclClause', Variant: first.Parts[0], Args: operands }, redirs, start);
    }
    if (variant === LET) return this.stmt({ type: 'LetClause', Exprs: args.slice(1) }, redirs, start);
    return this.stmt({ type: 'CallExpr', Assigns: assigns, Args: args }, redirs, start);
  }

  /** How bash reads the operands of a command whose first word is `word`. */
  private variant(word: Word): number {
    const [part] = word.Parts;
    if (word.Parts.length !== 1 || part?.type !== 'Lit') return PLAIN;
    if ((this.bash ? DECLARATIONS.bash : DECLARATIONS.sh).has(part.Value)) return DECLARATION;
    return this.bash && part.Value === 'let' ? LET : PLAIN;
  }

  /** `name() body`: `this.pos` at the `(`. The body must be a compound command. */
  private functionDefinition(name: Word, start: number): Stmt {
    const [part] = name.Parts;
    if (name.Parts.length !== 1 || part?.type !== 'Lit' || part.Value.includes('\\')) {
      this.fail('a function name that is not plain text');
    }
    this.pos = this.step(this.pos);
    this.skipBlanks();
    if (this.at(this.pos) !== RPAREN) this.fail('a ( after a command word without its )');
    this.pos = this.step(this.pos);
    return this.stmt({ type: 'FuncDecl', Name: part, Body: this.functionBody() }, [], start);
  }

  /** A function's body, after any line breaks: a compound command with its redirections. */
  functionBody(): Stmt {
    this.skipLines();
    const id = this.reserved();
    if (!(COMPOUND.has(id) || (id === 0 && this.at(this.pos) === LPAREN))) {
      this.fail('a function body that is not a compound command');
    }
    return this.command();
  }

  /**
   * Statements up to a `)`, which is read too: the inside of `$( )` or `<( )`. A here-document started inside must
   * end inside, and a line break inside may not read the bodies of here-documents started outside.
   */
  nestedStatements(): Stmt[] {
    const floor = this.docFloor;
    this.docFloor = this.pending.length;
    this.enter();
    const stmts = this.list(0, CLOSE_PAREN);
    if (this.at(this.pos) !== RPAREN) this.fail('a $( or <( without its )');
    if (this.pending.length > this.docFloor) this.fail('a here-document inside $( ) whose body is not inside it');
    this.pos = this.step(this.pos);
    this.leave();
    this.docFloor = floor;
    return stmts;
  }

  /** The character at `p`, for a message. */
  describe(p: number): string {
    const c = this.at(p);
    return c === EOF ? 'end of line' : c === NL ? 'line break' : JSON.stringify(this.src.charAt(p));
  }
}

/** The statement of two joined by an operator: it starts where the first does. */
function joined(cmd: BinaryCmd): Stmt {
  return { type: 'Stmt', Cmd: cmd, Redirs: [], Negated: false, Background: false, Position: cmd.X.Position };
}

/** A declaration operand that is not an assignment: a name alone, or any other word (an option, an expansion). */
function naked(word: Word): Assign {
  const [part] = word.Parts;
  if (word.Parts.length === 1 && part?.type === 'Lit' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(part.Value)) {
    return { type: 'Assign', Append: false, Naked: true, Name: part };
  }
  return { type: 'Assign', Append: false, Naked: true, Value: word };
}
