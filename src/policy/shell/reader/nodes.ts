/**
 * The syntax tree the shell reader builds: plain objects, each with a `type` naming its kind. The kinds, their field
 * names and the operator numbers are those of mvdan/sh's `syntax` package, which the walk (`analyze.ts`) was first
 * written against, so that the walk reads this tree as it read that one. Only what the walk and the reader's tests
 * need is kept: no positions but a statement's start.
 */

/** The shell a line is read as: bash 5.2, or POSIX sh as dash reads it (`mksh` is refused). */
export type Dialect = 'bash' | 'sh' | 'mksh';

/** Operators, numbered as mvdan/sh numbers its tokens. */
export const OP = {
  // Lists and pipes (BinaryCmd).
  andList: 10,
  orList: 11,
  pipe: 12,
  pipeAll: 13,
  // Case item terminators.
  caseBreak: 30,
  caseFall: 31,
  caseResume: 32,
  // Redirections.
  out: 54,
  append: 55,
  in: 56,
  readWrite: 57,
  dupIn: 58,
  dupOut: 59,
  clobber: 60,
  heredoc: 61,
  heredocTabs: 62,
  herestring: 63,
  all: 64,
  appendAll: 65,
  // Process substitutions.
  procIn: 66,
  procOut: 67,
  // `${x…}` expansion operators.
  plus: 68,
  colonPlus: 69,
  minus: 70,
  colonMinus: 71,
  quest: 72,
  colonQuest: 73,
  assign: 74,
  colonAssign: 75,
  percent: 76,
  doublePercent: 77,
  hash: 78,
  doubleHash: 79,
  caret: 80,
  doubleCaret: 81,
  comma: 82,
  doubleComma: 83,
  at: 84,
  star: 38,
  // `[[ ]]` operators.
  not: 34,
  match: 40,
  noMatch: 41,
  matchShort: 74,
  regexMatch: 112,
  before: 56,
  after: 54,
} as const;

/** `[[ ]]` unary operators by name (`-e` … `-R`), numbered from mvdan/sh's `-e`. */
export const UNARY_TESTS: ReadonlyMap<string, number> = new Map([
  ...['-e', '-f', '-d', '-c', '-b', '-p', '-S', '-L', '-k', '-g', '-u', '-G', '-O', '-N', '-r', '-w', '-x', '-s']
    .concat(['-t', '-z', '-n', '-o', '-v', '-R'])
    .map((name, i): [string, number] => [name, 88 + i]),
  // Older spellings: `-a` of `-e`, `-h` of `-L`.
  ['-a', 88],
  ['-h', 95],
]);

/** `[[ ]]` binary operators written as words (`-nt` … `-ge`, `=`, `==`, `!=`, `=~`). */
export const BINARY_TESTS: ReadonlyMap<string, number> = new Map([
  ['=~', OP.regexMatch],
  ['-nt', 113],
  ['-ot', 114],
  ['-ef', 115],
  ['-eq', 116],
  ['-ne', 117],
  ['-le', 118],
  ['-ge', 119],
  ['-lt', 120],
  ['-gt', 121],
  ['=', OP.matchShort],
  ['==', OP.match],
  ['!=', OP.noMatch],
]);

/** Literal text as written (escapes, quotes and line joins kept: the walk removes them). */
export type Lit = { readonly type: 'Lit'; readonly Value: string };
/** `'…'`, or `$'…'` when `Dollar`; `Value` is the text between the quotes as written. */
export type SglQuoted = { readonly type: 'SglQuoted'; readonly Value: string; readonly Dollar: boolean };
/** `"…"`, or `$"…"` when `Dollar`. */
export type DblQuoted = { readonly type: 'DblQuoted'; readonly Parts: readonly WordPart[]; readonly Dollar: boolean };
/** `$x`, `${x}` and every `${…}` form. */
export type ParamExp = {
  readonly type: 'ParamExp';
  /** `$x` without braces. */
  readonly Short: boolean;
  /** `${!x}` (or `${!x[@]}`, `${!prefix*}`). */
  readonly Excl: boolean;
  /** `${#x}`. */
  readonly Length: boolean;
  /** `${!prefix*}` / `${!prefix@}`: the operator's number, 0 otherwise. */
  readonly Names: number;
  readonly Param: Lit;
  readonly Index?: Word;
  readonly Slice?: Slice;
  readonly Repl?: Replace;
  readonly Exp?: Expansion;
};
/** `${x:offset:length}`. */
export type Slice = { readonly type: 'Slice'; readonly Offset?: ArithmExpr; readonly Length?: ArithmExpr };
/** `${x/orig/with}` (`All` for `//`). */
export type Replace = { readonly type: 'Replace'; readonly All: boolean; readonly Orig: Word; readonly With?: Word };
/** `${x-word}`, `${x#word}`, `${x@Q}`, …: the operator and its word. */
export type Expansion = { readonly type: 'Expansion'; readonly Op: number; readonly Word?: Word };
/** `$(…)`, or backquotes when `Backquotes`. */
export type CmdSubst = { readonly type: 'CmdSubst'; readonly Stmts: readonly Stmt[]; readonly Backquotes: boolean };
/** `<(…)` or `>(…)`. */
export type ProcSubst = { readonly type: 'ProcSubst'; readonly Op: number; readonly Stmts: readonly Stmt[] };
/** `$((…))`, or `$[…]` when `Bracket`. */
export type ArithmExp = { readonly type: 'ArithmExp'; readonly Bracket: boolean; readonly X?: ArithmExpr };
/** An extended glob `@(…)`, `*(…)`, `+(…)`, `?(…)`, `!(…)`; `Op` is the character code of its first character. */
export type ExtGlob = { readonly type: 'ExtGlob'; readonly Op: number; readonly Pattern: Lit };
/** One piece of a word. */
export type WordPart = Lit | SglQuoted | DblQuoted | ParamExp | CmdSubst | ProcSubst | ArithmExp | ExtGlob;
/** A shell word: its pieces, in order. */
export type Word = { readonly type: 'Word'; readonly Parts: readonly WordPart[] };

/** A binary arithmetic operation. */
export type BinaryArithm = {
  readonly type: 'BinaryArithm';
  readonly Op: number;
  readonly X: ArithmExpr;
  readonly Y: ArithmExpr;
};
/** A unary arithmetic operation (`Post` for `x++`, `x--`). */
export type UnaryArithm = {
  readonly type: 'UnaryArithm';
  readonly Op: number;
  readonly Post: boolean;
  readonly X: ArithmExpr;
};
/** `( … )` inside arithmetic. */
export type ParenArithm = { readonly type: 'ParenArithm'; readonly X: ArithmExpr };
/** An arithmetic expression: an operand is a word (a number, a name, an expansion). */
export type ArithmExpr = Word | BinaryArithm | UnaryArithm | ParenArithm;

/** A `[[ ]]` binary test (also `&&`, `||`). */
export type BinaryTest = {
  readonly type: 'BinaryTest';
  readonly Op: number;
  readonly X: TestExpr;
  readonly Y: TestExpr;
};
/** A `[[ ]]` unary test (also `!`). */
export type UnaryTest = { readonly type: 'UnaryTest'; readonly Op: number; readonly X: TestExpr };
/** `( … )` inside `[[ ]]`. */
export type ParenTest = { readonly type: 'ParenTest'; readonly X: TestExpr };
/** A `[[ ]]` expression. */
export type TestExpr = Word | BinaryTest | UnaryTest | ParenTest;

/** A redirection. `Hdoc` is the body of a here-document, set once the reader reaches it. */
export type Redirect = {
  readonly type: 'Redirect';
  readonly Op: number;
  /** The descriptor written before the operator: digits, or `{name}`. */
  readonly N?: Lit;
  /** The target; for a here-document, its delimiter. */
  readonly Word?: Word;
  Hdoc?: Word;
};

/** `name=value`, `name+=value`, `name[i]=value`, `name=(…)`; in a declaration, also a bare word (`Naked`). */
export type Assign = {
  readonly type: 'Assign';
  readonly Append: boolean;
  readonly Naked: boolean;
  readonly Name?: Lit;
  readonly Index?: Word;
  readonly Value?: Word;
  readonly Array?: ArrayExpr;
};
/** `(a [1]=b …)`. */
export type ArrayExpr = { readonly type: 'ArrayExpr'; readonly Elems: readonly ArrayElem[] };
/** One element of an array literal. */
export type ArrayElem = { readonly type: 'ArrayElem'; readonly Index?: Word; readonly Value?: Word };

/** A simple command: prefix assignments and words (its redirections are its statement's). */
export type CallExpr = {
  readonly type: 'CallExpr';
  readonly Assigns: readonly Assign[];
  readonly Args: readonly Word[];
};
/** `a && b`, `a || b`, `a | b`, `a |& b`. */
export type BinaryCmd = { readonly type: 'BinaryCmd'; readonly Op: number; readonly X: Stmt; readonly Y: Stmt };
/** `( … )`. */
export type Subshell = { readonly type: 'Subshell'; readonly Stmts: readonly Stmt[] };
/** `{ …; }`. */
export type Block = { readonly type: 'Block'; readonly Stmts: readonly Stmt[] };
/** `if`/`elif` (with `Cond`) or `else` (without). */
export type IfClause = {
  readonly type: 'IfClause';
  readonly Cond: readonly Stmt[];
  readonly Then: readonly Stmt[];
  readonly Else?: IfClause;
};
/** `while` or `until`. */
export type WhileClause = {
  readonly type: 'WhileClause';
  readonly Until: boolean;
  readonly Cond: readonly Stmt[];
  readonly Do: readonly Stmt[];
};
/** `for NAME in …` / `select NAME in …` (no `Items` without `in`). */
export type WordIter = { readonly type: 'WordIter'; readonly Name: Lit; readonly Items: readonly Word[] };
/** `for ((init; cond; post))`. */
export type CStyleLoop = {
  readonly type: 'CStyleLoop';
  readonly Init?: ArithmExpr;
  readonly Cond?: ArithmExpr;
  readonly Post?: ArithmExpr;
};
/** `for` or `select`. */
export type ForClause = {
  readonly type: 'ForClause';
  readonly Select: boolean;
  readonly Loop: WordIter | CStyleLoop;
  readonly Do: readonly Stmt[];
};
/** One `pattern) commands ;;` of a `case`. */
export type CaseItem = {
  readonly type: 'CaseItem';
  readonly Op: number;
  readonly Patterns: readonly Word[];
  readonly Stmts: readonly Stmt[];
};
/** `case WORD in … esac`. */
export type CaseClause = { readonly type: 'CaseClause'; readonly Word: Word; readonly Items: readonly CaseItem[] };
/** A function definition. */
export type FuncDecl = { readonly type: 'FuncDecl'; readonly Name: Lit; readonly Body: Stmt };
/** `(( … ))`. */
export type ArithmCmd = { readonly type: 'ArithmCmd'; readonly X?: ArithmExpr };
/** `[[ … ]]`. */
export type TestClause = { readonly type: 'TestClause'; readonly X: TestExpr };
/** `declare`, `local`, `export`, `readonly`, `typeset` with their operands as assignments. */
export type DeclClause = { readonly type: 'DeclClause'; readonly Variant: Lit; readonly Args: readonly Assign[] };
/** `let` with its operands. */
export type LetClause = { readonly type: 'LetClause'; readonly Exprs: readonly ArithmExpr[] };
/** bash's `time` keyword (`PosixFormat` for `-p`). */
export type TimeClause = { readonly type: 'TimeClause'; readonly PosixFormat: boolean; readonly Stmt?: Stmt };
/** bash's `coproc [NAME] command`. */
export type CoprocClause = { readonly type: 'CoprocClause'; readonly Name?: Word; readonly Stmt: Stmt };
/** A command of any kind. */
export type Command =
  | CallExpr
  | BinaryCmd
  | Subshell
  | Block
  | IfClause
  | WhileClause
  | ForClause
  | CaseClause
  | FuncDecl
  | ArithmCmd
  | TestClause
  | DeclClause
  | LetClause
  | TimeClause
  | CoprocClause;

/**
 * A statement: a command with its redirections, negation and background flag. `Position.offs` is the UTF-8 byte
 * offset of its first character in the line (inside backquotes: in the text bash reads once it has removed the
 * escapes, which is shorter than the line).
 */
export type Stmt = {
  readonly type: 'Stmt';
  Cmd?: Command;
  readonly Redirs: readonly Redirect[];
  Negated: boolean;
  Background: boolean;
  readonly Position: Pos;
};

/** Where a statement starts: a UTF-8 byte offset. */
export type Pos = { readonly type: 'Pos'; readonly offs: number };

/** A whole line (or script). */
export type File = { readonly type: 'File'; readonly Stmts: readonly Stmt[] };
