/**
 * What a command line runs: every part (simple command) that would run, with its program, its words, the
 * environment names it sets and the files it writes, each word either known exactly or unknown.
 *
 * The analysis never drops code. Parts are found across lists, pipelines, subshells, groups, loops,
 * conditionals, function bodies, command and process substitutions (in any word: quotes, assignments,
 * parameter expansions, here-documents), `coproc`, `time`, and the literal scripts given to a shell, to
 * `eval` or to a wrapper (`sudo`, `env`, `xargs`, `find -exec`, …), each wrapper being a part too. A part
 * is opaque when what it runs cannot be known (a program that is not a literal, code fed to a shell, an
 * arithmetic or name operand that is not a plain number or identifier) or when it changes what later
 * commands run (`cd`, `alias`, `set`, `export`, …). A line the parser refuses, a NUL byte, or a
 * substitution that the parts found do not account for makes the whole line one opaque part.
 */
import {
  CHANGES_DIRECTORY,
  CODE_BUILTINS,
  FIND_ACTIONS,
  INTERPRETERS,
  type InterpreterSpec,
  leavesInput,
  NAME_BUILTINS,
  PART_READERS,
  readShellOptions,
  scanOptions,
  SHELLS,
  STATE_BUILTINS,
  stopsEarly,
  WRAPPERS,
  xargsReplace,
} from './programs/index.js';
import { type Dialect, type GoNode, kind, list, node, num, parseShell, ShellSyntaxError, text } from './syntax.js';
import { OP } from './reader/nodes.js';
import {
  countSubstitutionMarks,
  decodeAnsiC,
  isPattern,
  mayContinueComment,
  unescapeDouble,
  unescapeUnquoted,
} from './words.js';
import { ownEntry } from '../own-entry.js';

/** Why a part cannot be judged on its words: `code` runs code that cannot be seen, `state` changes later calls. */
export interface Opacity {
  /** `code`: what runs is unknown; `state`: the words are known but it changes what later commands run. */
  readonly kind: 'code' | 'state';
  /** Why, in a few words. */
  readonly reason: string;
}

/** One simple command that would run. Words are `undefined` when not known exactly. */
export interface ShellPart {
  /** The program word as written (a path or a name); `undefined` when the part has no program. */
  readonly program: string | undefined;
  /** The words after the program. */
  readonly args: readonly (string | undefined)[];
  /** More operands that are not known follow (`xargs`, `find -exec … {} +`). */
  readonly moreArgs: boolean;
  /** Environment names the part sets (prefix assignments, `env NAME=`, assignment-only commands, `read`). */
  readonly assigns: readonly string[];
  /** Files the part writes through redirections (`undefined`: a target that is not known). */
  readonly writes: readonly (string | undefined)[];
  /** Files the part reads through input redirections (`< FILE`, `<> FILE`; `undefined`: not known). */
  readonly reads: readonly (string | undefined)[];
  /** Whether relative paths cannot be resolved against the condition's `cwd` (the line changes directory). */
  readonly cwdUnknown: boolean;
  /** Set when the part is opaque. */
  readonly opaque: Opacity | undefined;
}

interface MutablePart {
  program: string | undefined;
  args: (string | undefined)[];
  moreArgs: boolean;
  assigns: string[];
  writes: (string | undefined)[];
  reads: (string | undefined)[];
  cwdUnknown: boolean;
  opaque: Opacity | undefined;
}

/** Inherited from enclosing redirections: files written and read, and opacity. */
interface Context {
  readonly writes: readonly (string | undefined)[];
  readonly reads?: readonly (string | undefined)[];
  readonly opaque: Opacity | undefined;
  /** Whether standard input comes from a pipe or a redirection rather than from the shell's own input. */
  readonly input?: boolean;
}

const MAX_DEPTH = 8;
const MAX_PARTS = 2000;

/** A gap in the analysis: the whole line becomes opaque. */
class Gap extends Error {}

/** Collects opacity found while reading words. */
class Sink {
  opaque: Opacity | undefined;

  mark(kind: Opacity['kind'], reason: string): void {
    if (this.opaque === undefined || (this.opaque.kind === 'state' && kind === 'code')) this.opaque = { kind, reason };
  }
}

function merge(a: Opacity | undefined, b: Opacity | undefined): Opacity | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.kind === 'code' || b.kind === 'state' ? a : b;
}

const INPUT_OPS = new Set<number>([OP.in, OP.readWrite, OP.heredoc, OP.heredocTabs, OP.herestring]);
const WRITE_OPS = new Set<number>([OP.out, OP.append, OP.readWrite, OP.clobber, OP.all, OP.appendAll]);
// Test operators that evaluate their operands as arithmetic, and those that take a variable name.
const ARITH_TESTS = new Set([116, 117, 118, 119, 120, 121]);
const NAME_TESTS = new Set([110, 111]);
const PARAM_TRANSFORM = OP.at;
// `${x=…}` and `${x:=…}`: the expansion assigns `x` when it is unset (or empty).
const PARAM_ASSIGN = new Set<number>([OP.assign, OP.colonAssign]);
// Pipe operators of a `BinaryCmd` (`|`, `|&`).
const PIPE = OP.pipe;
const PIPE_ALL = OP.pipeAll;

const INTEGER = /^[-+]?(0[xX][0-9a-fA-F]+|[0-9]+|[0-9]+#[0-9a-zA-Z@_]+)$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ARITH_WORDS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/**
 * Variables whose value a shell runs as code (prompts with `xtrace`, the startup file of a child shell,
 * shell options that turn those on, functions imported from the environment).
 */
const CODE_VARIABLES = new Set([
  'BASH_ENV',
  'ENV',
  'PS0',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  // Change how bash reads the rest of its script: POSIX mode (`time -f` runs /usr/bin/time, quotes inside
  // `"${…}"` read otherwise) and another version's rules.
  'POSIXLY_CORRECT',
  'BASH_COMPAT',
  // The shell `script -c`, `flock -c` and `su` run their script with (read here as bash and as sh).
  'SHELL',
]);

function isCodeVariable(name: string): boolean {
  return CODE_VARIABLES.has(name) || name.startsWith('BASH_FUNC_');
}

/**
 * Quoted text as pattern matching sees it: every character neutral except those that may close or split
 * a pattern opened outside the quotes (`]`, `}`, `,`, `.`), kept so that such a word is never read as a
 * literal (a false pattern only makes the word unknown).
 */
function maskQuoted(raw: string): string {
  return raw.replace(/[^\]},.]/g, 'a');
}

/** The last path segment of a program word. */
export function basename(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash === -1 ? program : program.slice(slash + 1);
}

class Analysis {
  readonly parts: MutablePart[] = [];
  substitutions = { parens: 0, backquotes: 0 };
  /** Whether a part may read the shell's own input (the persistent bash tool reads its script there). */
  readsInput = false;
  /** Whether such a part may also stop reading before the end of that input (`head -c N`, `read -n N`). */
  readsPart = false;

  /** Set when a here-document may end elsewhere for bash than for the parser. */
  heredocHazard: string | undefined;

  /** How many backquoted substitutions the analysis is inside. */
  backquotes = 0;

  constructor(
    readonly dialect: Dialect,
    readonly depth: number,
    readonly source: string,
  ) {}

  /** The source's lines without leading tabs, sorted: a prefix look-up is a binary search. */
  private _sortedLines: readonly string[] | undefined;

  /**
   * Why a here-document may end elsewhere for bash than for the parser, if it may: bash joins
   * backslash-newlines in an unquoted body before it looks for the terminator (`EO\⏎F` ends it), and inside
   * `$( )` it ends the body at a line that starts with the delimiter (`EOF)`). Any line that starts with the
   * delimiter but is not it, or any backslash-newline with an unquoted here-document, makes the line opaque.
   */
  heredocEnd(word: { text: string; quoted: boolean } | undefined): string | undefined {
    if (word === undefined) return 'a here-document delimiter that is not plain text';
    if (!word.quoted && this.source.includes('\\\n')) {
      return 'a backslash-newline with an unquoted here-document (bash joins the lines of its body before it looks for the end)';
    }
    this._sortedLines ??= this.source
      .split('\n')
      .map((line) => line.replace(/^\t+/, ''))
      .sort();
    const lines = this._sortedLines;
    // The first line greater than the delimiter: if it starts with it, a line starts with it and is not it.
    let low = 0;
    let high = lines.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((lines[middle] ?? '') <= word.text) low = middle + 1;
      else high = middle;
    }
    if (lines[low]?.startsWith(word.text) === true) {
      return `a line starts with the here-document delimiter ${JSON.stringify(word.text)} but is not it (bash may end the here-document there)`;
    }
    return undefined;
  }

  push(part: MutablePart): MutablePart {
    if (this.parts.length >= MAX_PARTS) throw new Gap('too many parts');
    this.parts.push(part);
    return part;
  }

  newPart(context: Context, opaque?: Opacity): MutablePart {
    return this.push({
      program: undefined,
      args: [],
      moreArgs: false,
      assigns: [],
      writes: [...context.writes],
      reads: [...(context.reads ?? [])],
      cwdUnknown: false,
      opaque: merge(context.opaque, opaque),
    });
  }

  // --- statements -------------------------------------------------------------------------------------

  statements(statements: unknown, context: Context): void {
    for (const statement of list(statements)) this.statement(statement, context);
  }

  statement(statement: GoNode, outer: Context, afterTime = false): void {
    const sink = new Sink();
    const writes = [...outer.writes];
    const reads = [...(outer.reads ?? [])];
    let input = outer.input === true;
    const named: string[] = [];
    for (const redirect of list(statement.Redirs)) {
      this.redirect(redirect, writes, reads, sink);
      const effect = inputRedirect(redirect);
      if (effect !== undefined) input = effect === 'file';
      // `{NAME}>file` opens a new descriptor and assigns its number to NAME, as `NAME=…` would.
      const descriptor = text(node(redirect.N)?.Value);
      if (descriptor.startsWith('{')) {
        const name = descriptor.slice(1, -1);
        if (descriptor.endsWith('}') && IDENTIFIER.test(name)) named.push(name);
        else sink.mark('code', `a descriptor variable that is not a plain name (${descriptor}) may run code`);
      }
    }
    const context: Context = { writes, reads, opaque: merge(outer.opaque, sink.opaque), input };
    if (named.length > 0) this.newPart(context).assigns = named;
    const command = node(statement.Cmd);
    if (command === undefined) {
      this.newPart(context);
      return;
    }
    if (afterTime && kind(command) === 'CallExpr') this.call(command, context, true);
    else if (afterTime && kind(command) === 'BinaryCmd') this.binary(command, context, true);
    else this.command(command, context);
  }

  /** `a && b`, `a | b`, …; `afterTime`: the first command follows bash's `time`, which takes a `--`. */
  binary(command: GoNode, context: Context, afterTime: boolean): void {
    const pipe = num(command.Op) === PIPE || num(command.Op) === PIPE_ALL;
    for (const side of [command.X, command.Y]) {
      const statement = node(side);
      if (statement === undefined) throw new Gap('a command list without a side');
      // The right side of a pipe reads the pipe, not the shell's input.
      this.statement(
        statement,
        pipe && side === command.Y ? { ...context, input: true } : context,
        afterTime && side === command.X,
      );
    }
  }

  redirect(redirect: GoNode, writes: (string | undefined)[], reads: (string | undefined)[], sink: Sink): void {
    const op = num(redirect.Op);
    const hdoc = node(redirect.Hdoc);
    if (hdoc !== undefined) this.word(hdoc, sink);
    if (op === OP.heredoc || op === OP.heredocTabs) {
      // The word is the delimiter, never expanded.
      const target = node(redirect.Word);
      this.heredocHazard ??= this.heredocEnd(target === undefined ? undefined : delimiter(target));
      // Bash ends a backquoted substitution at its first unescaped backquote before it reads any here-document
      // in it, so a backquote in the body ends the substitution there and the rest of the body runs as commands.
      this.heredocHazard ??=
        this.backquotes > 0
          ? 'a here-document inside backquotes (bash ends them at a backquote in its body)'
          : undefined;
      return;
    }
    const target = node(redirect.Word);
    const value = target === undefined ? undefined : this.word(target, sink);
    // `< <(ls)`, `> >(cmd)`: a pipe to commands that are parts of their own (read above); no file, no network.
    const alone = target === undefined ? [] : list(target.Parts);
    if (value === undefined && alone.length === 1 && kind(alone[0] as GoNode) === 'ProcSubst') return;
    // A here-string is the command's standard input, whatever its value: no file and no connection (what runs
    // inside it, `<<< "$(ls)"`, was read with the word).
    if (op === OP.herestring) return;
    if (value === undefined) {
      sink.mark('code', 'a redirection target that is not a literal (it may be a network connection)');
      if (op !== OP.in && op !== OP.dupIn) writes.push(undefined);
      if (op === OP.in || op === OP.readWrite) reads.push(undefined);
      return;
    }
    if (/^\/dev\/(tcp|udp)\//.test(value)) {
      sink.mark('code', `a network connection (${value})`);
    }
    if (WRITE_OPS.has(op) || (op === OP.dupOut && !/^(\d+|-)$/.test(value))) writes.push(value);
    if (op === OP.in || op === OP.readWrite) reads.push(value);
  }

  command(command: GoNode, context: Context): void {
    switch (kind(command)) {
      case 'CallExpr':
        this.call(command, context);
        return;
      case 'BinaryCmd':
        this.binary(command, context, false);
        return;
      case 'Subshell':
      case 'Block':
        this.statements(command.Stmts, context);
        return;
      case 'IfClause': {
        let clause: GoNode | undefined = command;
        while (clause !== undefined) {
          this.statements(clause.Cond, context);
          this.statements(clause.Then, context);
          clause = node(clause.Else);
        }
        return;
      }
      case 'WhileClause':
        this.statements(command.Cond, context);
        this.statements(command.Do, context);
        return;
      case 'ForClause': {
        const loop = node(command.Loop);
        const sink = new Sink();
        let variable: string | undefined;
        if (loop !== undefined && kind(loop) === 'WordIter') {
          for (const item of list(loop.Items)) this.word(item, sink);
          variable = text(node(loop.Name)?.Value);
        } else if (loop !== undefined && kind(loop) === 'CStyleLoop') {
          for (const expr of [loop.Init, loop.Cond, loop.Post]) {
            const arithmetic = node(expr);
            if (arithmetic !== undefined) this.arithmetic(arithmetic, sink);
          }
        } else if (loop !== undefined) {
          throw new Gap(`an unknown loop (${kind(loop)})`);
        }
        const inner = { ...context, opaque: merge(context.opaque, sink.opaque) };
        // The loop assigns its variable as `NAME=…` would (`for HOME in …` sets an exported HOME for the
        // commands in the loop, and it stays set after it).
        if (sink.opaque !== undefined || variable !== undefined)
          this.newPart(inner).assigns = variable === undefined ? [] : [variable];
        // `select` reads its answers from the shell's standard input, a line at a time.
        if (command.Select === true && context.input !== true) {
          this.readsInput = true;
          this.readsPart = true;
        }
        this.statements(command.Do, inner);
        return;
      }
      case 'CaseClause': {
        const sink = new Sink();
        const subject = node(command.Word);
        if (subject !== undefined) this.word(subject, sink);
        for (const item of list(command.Items)) for (const pattern of list(item.Patterns)) this.word(pattern, sink);
        const inner = { ...context, opaque: merge(context.opaque, sink.opaque) };
        if (sink.opaque !== undefined) this.newPart(inner);
        for (const item of list(command.Items)) this.statements(item.Stmts, inner);
        return;
      }
      case 'FuncDecl': {
        const name = text(node(command.Name)?.Value);
        this.newPart(context, {
          kind: 'state',
          reason: `defines function ${name}, which changes what later commands run`,
        });
        const body = node(command.Body);
        if (body !== undefined) this.statement(body, context);
        return;
      }
      case 'ArithmCmd': {
        const sink = new Sink();
        const expr = node(command.X);
        if (expr !== undefined) this.arithmetic(expr, sink);
        const part = this.newPart(context, sink.opaque);
        part.program = '((';
        return;
      }
      case 'TestClause': {
        const sink = new Sink();
        const args: (string | undefined)[] = [];
        const expr = node(command.X);
        if (expr !== undefined) this.test(expr, sink, args);
        const part = this.newPart(context, sink.opaque);
        part.program = '[[';
        part.args = args;
        return;
      }
      case 'DeclClause':
        this.declaration(command, context);
        return;
      case 'LetClause': {
        const sink = new Sink();
        for (const expr of list(command.Exprs)) this.arithmetic(expr, sink);
        const part = this.newPart(context, merge(sink.opaque, { kind: 'code', reason: CODE_BUILTINS.let ?? '' }));
        part.program = 'let';
        return;
      }
      case 'TimeClause': {
        const part = this.newPart(context);
        part.program = 'time';
        if (command.PosixFormat === true) part.args = ['-p'];
        const inner = node(command.Stmt);
        // Bash's `time` keyword takes `--` (after `-p` too): the parser reads it as the program.
        if (inner !== undefined) this.statement(inner, context, true);
        // In POSIX mode (`set -o posix`, a line before may have set it) `time` followed by a word starting with
        // `-` is no keyword: the program `time` runs (`time -f %e rm x` runs rm). Both readings are parts.
        const call = inner === undefined ? undefined : node(inner.Cmd);
        const args = call !== undefined && kind(call) === 'CallExpr' ? list(call.Args) : [];
        const lead = list(args[0]?.Parts);
        const dash = lead.length === 1 && kind(lead[0]!) === 'Lit' ? text(lead[0]!.Value) : '';
        if (dash.startsWith('-') && dash !== '--') {
          // Its words were read once already (with what runs inside them): read again, they are not counted twice.
          const counted = { ...this.substitutions };
          const words = args.map((w) => this.word(w, new Sink()));
          this.substitutions = counted;
          this.simple(['time', ...words], [], context, 0);
        }
        return;
      }
      case 'CoprocClause': {
        const sink = new Sink();
        const name = node(command.Name);
        // `coproc NAME …` assigns NAME (its descriptors) and NAME_PID; without a name, COPROC.
        const variable = name === undefined ? 'COPROC' : this.word(name, sink);
        const part = this.newPart(context, sink.opaque);
        part.program = 'coproc';
        if (variable === undefined || !IDENTIFIER.test(variable)) {
          this.mark(part, 'code', 'a coproc name that is not a plain name may run code');
        } else {
          part.assigns = [variable, `${variable}_PID`];
        }
        const inner = node(command.Stmt);
        // `coproc X=1 rm …`: bash reads X=1 as an assignment before the program; the parser reads it as the program.
        const call = inner === undefined ? undefined : node(inner.Cmd);
        const first = call !== undefined && kind(call) === 'CallExpr' ? list(call.Args)[0] : undefined;
        const lead = first === undefined ? undefined : list(first.Parts)[0];
        if (lead !== undefined && kind(lead) === 'Lit' && /^[A-Za-z_][A-Za-z0-9_]*(\[|\+?=)/.test(text(lead.Value))) {
          throw new Gap('a coproc whose command starts with an assignment (bash runs the word after it)');
        }
        if (inner !== undefined) this.statement(inner, context);
        return;
      }
      default:
        throw new Gap(`a command of an unknown kind (${kind(command)})`);
    }
  }

  declaration(command: GoNode, context: Context): void {
    const sink = new Sink();
    const variant = text(node(command.Variant)?.Value);
    const args: (string | undefined)[] = [];
    const assigns: string[] = [];
    for (const assign of list(command.Args)) {
      const name = node(assign.Name);
      if (name === undefined) {
        // An option (`-a`) or a word that is not an assignment.
        const value = node(assign.Value);
        const word = value === undefined ? undefined : this.word(value, sink);
        args.push(word);
        if (word === undefined || !/^[-+][a-zA-Z]+$/.test(word)) {
          sink.mark('code', `a ${variant} operand that is not a plain name may run code`);
        } else if (/[in]/.test(word.slice(1))) {
          sink.mark('code', `${variant} ${word} makes later assignments evaluate arithmetic or names`);
        }
        continue;
      }
      assigns.push(text(name.Value));
      args.push(text(name.Value));
      this.assignmentValue(assign, sink);
    }
    const part = this.newPart(context, sink.opaque);
    part.program = variant;
    part.args = args;
    part.assigns = assigns;
    const state = ownEntry(STATE_BUILTINS, variant) ?? 'changes variables of later commands';
    part.opaque = merge(part.opaque, { kind: 'state', reason: `${variant} ${state}` });
  }

  assignmentValue(assign: GoNode, sink: Sink): void {
    const index = node(assign.Index);
    if (index !== undefined) this.arithmetic(index, sink);
    const value = node(assign.Value);
    if (value !== undefined) this.word(value, sink);
    const array = node(assign.Array);
    if (array !== undefined) {
      for (const element of list(array.Elems)) {
        const elementIndex = node(element.Index);
        if (elementIndex !== undefined) this.arithmetic(elementIndex, sink);
        const elementValue = node(element.Value);
        if (elementValue !== undefined) this.word(elementValue, sink);
      }
    }
  }

  call(command: GoNode, context: Context, afterTime = false): void {
    const sink = new Sink();
    const assigns: string[] = [];
    for (const assign of list(command.Assigns)) {
      const name = node(assign.Name);
      if (name === undefined) throw new Gap('an assignment without a name');
      assigns.push(text(name.Value));
      this.assignmentValue(assign, sink);
    }
    const words = list(command.Args).map((w) => this.word(w, sink));
    if (afterTime && words[0] === '--') words.shift();
    const inner: Context = { ...context, opaque: merge(context.opaque, sink.opaque) };
    if (words.length === 0) {
      const part = this.newPart(inner);
      part.assigns = assigns;
      // Without a command, the assignments stay in the shell: every later command (and call) sees them.
      if (assigns.length > 0) this.mark(part, 'state', `sets ${assigns.join(', ')} for later commands`);
      return;
    }
    this.simple(words, assigns, inner, 0);
  }

  // --- simple commands, wrappers, shells ---------------------------------------------------------------

  /** One simple command (and what it runs, for wrappers and shells). */
  simple(words: readonly (string | undefined)[], assigns: readonly string[], context: Context, hops: number): void {
    if (hops > 16) throw new Gap('too many nested wrappers');
    const part = this.newPart(context);
    const [program, ...args] = words;
    part.args = args;
    part.assigns = [...assigns];
    if (program === undefined) {
      part.opaque = merge(part.opaque, { kind: 'code', reason: 'its program is not a literal' });
      return;
    }
    part.program = program;
    const name = basename(program);
    if (context.input !== true && !leavesInput(name, args)) {
      this.readsInput = true;
      if (PART_READERS.has(name) && stopsEarly(name, args)) this.readsPart = true;
    }
    const builtin = !program.includes('/');
    if (builtin && this.builtin(name, part, context)) return;
    const wrapper = ownEntry(WRAPPERS, name);
    if (wrapper !== undefined) {
      this.wrapper(name, part, context, hops);
      return;
    }
    const shell = ownEntry(SHELLS, name);
    if (shell !== undefined) {
      this.shell(name, args, part, context);
      return;
    }
    const interpreter = ownEntry(INTERPRETERS, name);
    if (interpreter !== undefined) this.interpreter(name, interpreter, args, part);
  }

  mark(part: MutablePart, kind: Opacity['kind'], reason: string): void {
    part.opaque = merge(part.opaque, { kind, reason });
  }

  /** Handles a builtin; returns true when handled. */
  builtin(name: string, part: MutablePart, context: Context): boolean {
    const args = part.args;
    const code = ownEntry(CODE_BUILTINS, name);
    if (code !== undefined) {
      this.mark(part, 'code', `${name} ${code}`);
      return true;
    }
    switch (name) {
      case 'eval': {
        if (args.some((a) => a === undefined)) {
          this.mark(part, 'code', 'eval of words that are not literals');
          return true;
        }
        this.script(args.join(' '), this.dialect, context, part, 'eval');
        return true;
      }
      case 'trap':
        if (args.some((a) => a === undefined || !/^-[lp]$/.test(a)))
          this.mark(part, 'code', 'trap sets code to run later');
        return true;
      case 'alias':
        if (args.some((a) => a === undefined || a.includes('=')))
          this.mark(part, 'code', 'alias defines code to run later');
        return true;
      case 'bind':
        this.mark(
          part,
          args.some((a) => a === undefined || /^-[a-zA-Z]*x/.test(a)) ? 'code' : 'state',
          'bind changes key bindings',
        );
        return true;
      case 'complete':
      case 'compgen':
        if (args.some((a) => a === undefined || /^-[a-zA-Z]*[CF]/.test(a))) {
          this.mark(part, 'code', `${name} -C/-F runs code`);
        } else if (name === 'complete') this.mark(part, 'state', 'complete changes completions');
        return true;
      case 'mapfile':
      case 'readarray':
        this.readNames(part, { value: 'dnOsuCc', flag: 't' }, '-C', `${name} -C runs code`);
        return true;
      case 'read':
        this.readNames(part, { value: 'adinNptu', flag: 'ers' }, undefined, '');
        return true;
      case 'getopts': {
        // `getopts [--] OPTSTRING NAME`.
        const name = args[0] === '--' ? args[2] : args[1];
        if (name === undefined || !IDENTIFIER.test(name))
          this.mark(part, 'code', 'a getopts name that is not a plain name');
        else part.assigns.push(name);
        return true;
      }
      case 'printf':
        this.printf(part);
        return true;
      case 'test':
      case '[':
        this.testBuiltin(part);
        return true;
      case 'kill':
      case 'wait':
        if (args.some((a) => a === undefined || a.includes('['))) {
          this.mark(part, 'code', `${name} evaluates operands that are not plain as arithmetic`);
        }
        // `wait -p NAME` (or `-pNAME`, or in a group of flags) assigns the id of the job it waited for to NAME.
        if (name === 'wait') this.waitVariable(part);
        return true;
      case 'exec':
      case 'command':
      case 'builtin':
        // Wrappers that are builtins: handled with the wrappers (exec without a program is state).
        return false;
      default:
        break;
    }
    const state = ownEntry(STATE_BUILTINS, name);
    if (state !== undefined) {
      if (NAME_BUILTINS.has(name)) this.nameOperands(part, name);
      if (CHANGES_DIRECTORY.has(name)) part.cwdUnknown = true;
      this.mark(part, 'state', `${name} ${state}`);
      return true;
    }
    return false;
  }

  /**
   * The variables `wait -p` assigns, from its options (`-f`, `-n`, `-p NAME`, clustered or not, until `--` or an
   * operand): the last `-p` wins, so each name given is counted.
   */
  waitVariable(part: MutablePart): void {
    for (const name of scanOptions(part.args, { value: 'p', flag: 'fn' }).values.get('-p') ?? []) {
      if (name === undefined || !IDENTIFIER.test(name)) {
        this.mark(part, 'code', 'wait -p with a name that is not a plain name may run code');
        return;
      }
      part.assigns.push(name);
    }
  }

  /** `export`/`declare`/`unset` written as a plain command: every operand a name (or `name=value`) or an option. */
  nameOperands(part: MutablePart, name: string): void {
    for (const arg of part.args) {
      if (arg === undefined) {
        this.mark(part, 'code', `a ${name} operand that is not a literal may run code`);
        return;
      }
      if (/^[-+][a-zA-Z]+$/.test(arg)) {
        if (name !== 'unset' && /[in]/.test(arg.slice(1))) {
          this.mark(part, 'code', `${name} ${arg} makes later assignments evaluate arithmetic or names`);
        }
        continue;
      }
      const eq = arg.indexOf('=');
      const variable = eq === -1 ? arg : arg.slice(0, eq);
      if (!IDENTIFIER.test(variable)) {
        this.mark(part, 'code', `a ${name} operand that is not a plain name may run code`);
        return;
      }
      if (name !== 'unset') part.assigns.push(variable);
    }
  }

  readNames(part: MutablePart, spec: { value: string; flag: string }, codeFlag: string | undefined, why: string): void {
    const scanned = scanOptions(part.args, spec);
    if (scanned.opaque !== undefined) {
      this.mark(part, 'code', `${part.program ?? ''}: ${scanned.opaque}`);
      return;
    }
    if (codeFlag !== undefined && scanned.seen.has(codeFlag)) {
      this.mark(part, 'code', why);
      return;
    }
    const arrayName = scanned.seen.get('-a');
    const names = [...(scanned.seen.has('-a') ? [arrayName] : []), ...part.args.slice(scanned.next)];
    for (const name of names) {
      if (name === undefined || !IDENTIFIER.test(name)) {
        this.mark(part, 'code', 'a variable name that is not a plain name may run code');
        return;
      }
      part.assigns.push(name);
    }
  }

  printf(part: MutablePart): void {
    const args = part.args;
    let i = 0;
    // `-v NAME` or, attached, `-vNAME`, as often as given (the last one wins: each name is counted).
    for (let option = args[0]; option !== undefined && option.startsWith('-v'); option = args[i]) {
      const name = option === '-v' ? args[i + 1] : option.slice(2);
      if (name === undefined || !IDENTIFIER.test(name)) {
        this.mark(part, 'code', 'printf -v with a name that is not a plain name may run code');
        return;
      }
      part.assigns.push(name);
      i += option === '-v' ? 2 : 1;
    }
    if (args[i] === undefined && i < args.length) {
      this.mark(part, 'code', 'printf options that are not literals');
      return;
    }
    if (args[i] === '--') i += 1;
    const format = args[i];
    if (format === undefined) {
      if (i < args.length) this.mark(part, 'code', 'a printf format that is not a literal may evaluate arithmetic');
      return;
    }
    // Numeric conversions evaluate their argument as arithmetic, which may run code.
    const numeric = /%[-+ #0'I]*(\*|\d+)?(\.(\*|\d+)?)?[hlLqjzt]*[diouxXeEfFgGaAc]|%\(|%[^%]*\*/.test(format);
    if (!numeric) return;
    for (const arg of args.slice(i + 1)) {
      if (arg === undefined || !/^\s*[-+]?[0-9][0-9a-fA-FxX.+-]*\s*$|^['"].?$/.test(arg)) {
        this.mark(part, 'code', 'a printf numeric conversion of an operand that is not a plain number may run code');
        return;
      }
    }
  }

  testBuiltin(part: MutablePart): void {
    const args = part.program === '[' && part.args.at(-1) === ']' ? part.args.slice(0, -1) : part.args;
    const unknown = args.some((a) => a === undefined);
    const risky = args.some((a) => a !== undefined && (ARITH_WORDS.has(a) || a === '-v' || a === '-R'));
    if (unknown && (risky || args.length > 2)) {
      this.mark(part, 'code', 'a test whose operands are not literals may evaluate arithmetic or names');
      return;
    }
    args.forEach((arg, i) => {
      if (arg !== undefined && ARITH_WORDS.has(arg)) {
        for (const operand of [args[i - 1], args[i + 1]]) {
          if (operand === undefined || !INTEGER.test(operand.trim())) {
            this.mark(part, 'code', `test ${arg} evaluates an operand that is not a plain number as arithmetic`);
          }
        }
      }
      if (arg === '-v' || arg === '-R') {
        const operand = args[i + 1];
        if (operand === undefined || !IDENTIFIER.test(operand)) {
          this.mark(part, 'code', `test ${arg} of an operand that is not a plain name may run code`);
        }
      }
    });
  }

  wrapper(name: string, part: MutablePart, context: Context, hops: number): void {
    const spec = ownEntry(WRAPPERS, name);
    if (spec === undefined) return;
    const args = part.args;
    if (spec.kind === 'find') {
      this.find(part, context, hops);
      return;
    }
    if (spec.kind === 'opaque') {
      this.mark(part, 'code', spec.reason ?? `${name} runs code that cannot be seen`);
      return;
    }
    const scanned = scanOptions(args, spec.options ?? {});
    if (scanned.opaque !== undefined) {
      this.mark(part, 'code', `${name}: ${scanned.opaque}`);
      return;
    }
    // A path the command names is not known where it runs in another directory or under another root.
    if (spec.changesRoot === true || spec.stateOptions?.some((o) => scanned.seen.has(o))) part.cwdUnknown = true;
    // Every file given: `script -O a -O b` writes both.
    for (const output of spec.writeOptions ?? []) part.writes.push(...(scanned.values.get(output) ?? []));
    if (spec.writesOperand !== undefined) {
      part.writes.push(scanned.next < args.length ? args[scanned.next] : spec.writesOperand);
    }
    if (spec.noCommandOptions?.some((o) => scanned.seen.has(o))) return;
    let start = scanned.next + (spec.leading ?? 0);
    if (spec.kind === 'script') {
      // su -c, script -c, flock -c, runuser -c: a shell script given as an option value, or a program.
      const users = spec.userOperands;
      const userMode = users !== undefined && !(users.unless ?? []).some((o) => scanned.seen.has(o));
      if (userMode) {
        // su [-] USER ARGS…: the words after the user go to the user's shell (a later -c wins).
        const rest = args.slice(scanned.next);
        if (rest.length > (rest[0] === '-' ? 2 : 1)) {
          this.mark(part, 'code', `${name} passes the words after the user to the user's shell`);
          return;
        }
      }
      const given = (spec.scriptOptions ?? []).filter((o) => scanned.seen.has(o));
      if (given.length > 1) {
        // The program runs the last one on the line (`su -c ls --command 'rm …'` runs rm); which that is, the
        // options as read do not keep.
        this.mark(part, 'code', `${name} is given its script twice (${given.join(', ')})`);
        return;
      }
      const option = given[0];
      if (option !== undefined) {
        const script = scanned.seen.get(option);
        if (script === undefined) this.mark(part, 'code', `${name} ${option} of a script that is not a literal`);
        else this.wrappedScript(name, script, scanned.seen, context, part, `${name} ${option}`);
        return;
      }
      if (spec.scriptOnly === true) {
        this.mark(part, 'code', `${name} without -c starts an interactive shell`);
        return;
      }
      if (userMode) {
        this.mark(part, 'code', `${name} without -c starts a shell reading its input`);
        return;
      }
      // flock FILE -c CMD (or --command CMD): the option may follow the lock file.
      const after = args[scanned.next + 1];
      if (spec.leading !== undefined && (after === '-c' || after === '--command')) {
        const script = args[scanned.next + 2];
        if (script === undefined) this.mark(part, 'code', `${name} -c of a script that is not a literal`);
        else this.wrappedScript(name, script, scanned.seen, context, part, `${name} -c`);
        return;
      }
    }
    if (name === 'busybox' && args[0] !== undefined && args[0].startsWith('-')) return;
    if (spec.kind === 'join') {
      // watch CMD…: the words are joined and run by sh -c, unless -x.
      const rest = args.slice(start);
      if (rest.length === 0) return;
      if (scanned.seen.has('-x') || scanned.seen.has('--exec')) {
        this.simple(rest, [], this.innerContext(part, context), hops + 1);
        return;
      }
      if (rest.some((w) => w === undefined)) {
        this.mark(part, 'code', `${name} of words that are not literals`);
        return;
      }
      this.script(rest.join(' '), 'sh', context, part, name);
      return;
    }
    if (start > args.length) start = args.length;
    const inner = args.slice(start);
    if (inner.length === 0) {
      if (spec.shellWhenEmpty === true) {
        this.mark(part, 'code', `${name} without a command runs a shell reading its input`);
      }
      if (name === 'exec') this.mark(part, 'state', 'exec without a program changes the shell itself');
      if (name === 'xargs') {
        // xargs with no command runs `echo` with the words it reads.
        const before = this.parts.length;
        this.simple(['echo'], [], this.innerContext(part, context), hops + 1);
        for (const p of this.parts.slice(before)) p.moreArgs = true;
      }
      return;
    }
    if (name === 'xargs') {
      this.xargs(scanned.seen, inner, part, context, hops);
      return;
    }
    const innerContext = this.innerContext(part, context);
    const before = this.parts.length;
    this.simple(inner, scanned.assigns, innerContext, hops + 1);
    if (part.cwdUnknown) for (const p of this.parts.slice(before)) p.cwdUnknown = true;
  }

  innerContext(part: MutablePart, context: Context): Context {
    return { writes: part.writes, reads: part.reads, opaque: context.opaque, input: context.input };
  }

  xargs(
    seen: ReadonlyMap<string, string | undefined>,
    inner: readonly (string | undefined)[],
    part: MutablePart,
    context: Context,
    hops: number,
  ): void {
    const replacing = xargsReplace(seen);
    if ('opaque' in replacing) {
      this.mark(part, 'code', replacing.opaque);
      return;
    }
    const replace = replacing.replace;
    const program = inner[0];
    if (program !== undefined && SHELLS[basename(program)] !== undefined) {
      this.mark(part, 'code', 'xargs runs a shell with operands read from its input');
    }
    // `--process-slot-var=NAME` sets NAME in the environment of each command it runs.
    const slot = seen.has('--process-slot-var') ? seen.get('--process-slot-var') : undefined;
    const assigns = slot === undefined ? [] : [slot];
    if (seen.has('--process-slot-var') && (slot === undefined || !/^[^=]+$/.test(slot))) {
      this.mark(part, 'code', 'xargs --process-slot-var with a name that is not a literal');
      return;
    }
    const words =
      replace === undefined ? inner : inner.map((w) => (w === undefined || w.includes(replace) ? undefined : w));
    if (words[0] === undefined) {
      this.mark(part, 'code', 'xargs runs a program read from its input');
      return;
    }
    const before = this.parts.length;
    this.simple(words, assigns, this.innerContext(part, context), hops + 1);
    const first = this.parts[before];
    if (first !== undefined) first.moreArgs = true;
  }

  find(part: MutablePart, context: Context, hops: number): void {
    const args = part.args;
    if (args.some((a) => a === undefined)) {
      this.mark(part, 'code', 'find with words that are not literals may run anything');
      return;
    }
    for (let i = 0; i < args.length; i += 1) {
      const word = args[i] ?? '';
      if (!FIND_ACTIONS.includes(word)) continue;
      const end = args.findIndex((a, j) => j > i && (a === ';' || a === '+'));
      if (end === -1) {
        this.mark(part, 'code', `find ${word} without its terminator`);
        return;
      }
      const words = args.slice(i + 1, end).map((w) => (w === undefined || w.includes('{}') ? undefined : w));
      if (words.length === 0) continue;
      const before = this.parts.length;
      const program = words[0];
      if (
        program !== undefined &&
        SHELLS[basename(program)] !== undefined &&
        args.slice(i + 1, end).some((w) => w?.includes('{}'))
      ) {
        this.mark(part, 'code', `find ${word} runs a shell with file names in its script`);
      }
      this.simple(words, [], this.innerContext(part, context), hops + 1);
      const first = this.parts[before];
      if (first !== undefined) first.moreArgs = true;
      i = end;
    }
  }

  shell(name: string, args: readonly (string | undefined)[], part: MutablePart, context: Context): void {
    const spec = ownEntry(SHELLS, name);
    if (spec === undefined) return;
    if (spec.dialect === undefined) {
      this.mark(part, 'code', `${name} runs a language this analysis cannot read`);
      return;
    }
    const options = readShellOptions(name, args);
    if ('opaque' in options) {
      this.mark(part, 'code', options.opaque);
      return;
    }
    const { command, next: i } = options;
    if (!command) {
      this.mark(
        part,
        'code',
        i < args.length
          ? `${name} runs a script file`
          : `${name} reads commands from its input (a pipe, a here-document or a file)`,
      );
      return;
    }
    if (i >= args.length) return; // `bash -c` without a script fails
    const script = args[i];
    if (script === undefined) {
      this.mark(part, 'code', `${name} -c of a script that is not a literal`);
      return;
    }
    if (spec.zsh === true && /[*?[(=~^#<>{]/.test(script)) {
      this.mark(part, 'code', 'a zsh script with glob qualifiers, = or process substitution may run code');
      return;
    }
    this.script(script, spec.dialect, context, part, `${name} -c`);
  }

  interpreter(name: string, spec: InterpreterSpec, args: readonly (string | undefined)[], part: MutablePart): void {
    const scanned = scanOptions(args, spec.options);
    if (scanned.opaque !== undefined) {
      this.mark(part, 'code', `${name}: ${scanned.opaque}`);
      return;
    }
    if (spec.code.some((o) => scanned.seen.has(o))) return;
    const operand = args[scanned.next];
    if (scanned.next >= args.length || operand === '-') {
      this.mark(part, 'code', `${name} reads code from its input (a pipe, a here-document or a file)`);
    }
  }

  /**
   * The script of `su -c`, `runuser -c`, `script -c` or `flock -c`: run by `$SHELL` (`script`, `flock`) or the
   * user's shell (`su -s` names one), not by this bash, so it is read as bash and as sh both (`$'…'` differs). A
   * shell set on the line (`SHELL=…`, `-s`) that is neither makes the part opaque: its language is not known.
   */
  wrappedScript(
    name: string,
    script: string,
    seen: ReadonlyMap<string, string | undefined>,
    context: Context,
    part: MutablePart,
    what: string,
  ): void {
    // Both `-s` and `--shell`: the program takes the last one on the line, so each must be one read here.
    const named = ['-s', '--shell'].filter((o) => seen.has(o)).map((o) => seen.get(o));
    const shells = part.assigns.includes('SHELL') ? [...named, undefined] : named;
    if (shells.some((s) => s === undefined || !['bash', 'sh', 'dash'].includes(basename(s)))) {
      this.mark(part, 'code', `${what}: the script runs in a shell the line chooses, whose language is not known`);
      return;
    }
    // The shell that runs the script is a part too: `flock F -c CMD` runs `$SHELL -c CMD` (`sh` without SHELL).
    const runner = this.newPart(this.innerContext(part, context));
    runner.program = named.at(-1) ?? 'sh';
    runner.args = ['-c', script];
    this.script(script, 'bash', context, part, what);
    this.script(script, 'sh', context, part, `${what} (read as sh)`);
  }

  /** A literal script given to a shell, `eval` or a wrapper: its parts join this line's. */
  script(source: string, dialect: Dialect, context: Context, part: MutablePart, what: string): void {
    if (this.depth + 1 > MAX_DEPTH) {
      this.mark(part, 'code', `${what}: scripts nested too deeply`);
      return;
    }
    const nested = analyzeSource(
      source,
      dialect,
      this.depth + 1,
      { writes: part.writes, reads: part.reads, opaque: context.opaque, input: context.input },
      this,
    );
    for (const p of nested) {
      this.push({ ...p, args: [...p.args], assigns: [...p.assigns], writes: [...p.writes], reads: [...p.reads] });
    }
  }

  // --- words -------------------------------------------------------------------------------------------

  /** The literal value of a word, or `undefined`; visits every substitution inside it. */
  word(word: GoNode, sink: Sink): string | undefined {
    let value = '';
    let known = true;
    // The word as pattern matching sees it: unquoted text as written, quoted text masked (a quoted `{` or
    // `[` never opens a pattern, while a pattern opened outside quotes may go on across them).
    let skeleton = '';
    const parts = list(word.Parts);
    // A quoted part alone never forms a pattern: mask quoted text only in words of several parts.
    const mixed = parts.length > 1;
    for (let index = 0; index < parts.length; index += 1) {
      const part = parts[index] as GoNode;
      switch (kind(part)) {
        case 'Lit': {
          const raw = text(part.Value);
          skeleton += raw;
          value += unescapeUnquoted(raw);
          break;
        }
        case 'SglQuoted': {
          const raw = text(part.Value);
          if (mixed) skeleton += maskQuoted(raw);
          if (part.Dollar === true) {
            const decoded = decodeAnsiC(raw);
            if (decoded === undefined) known = false;
            else value += decoded;
          } else value += raw;
          break;
        }
        case 'DblQuoted': {
          if (part.Dollar === true) known = false;
          for (const inner of list(part.Parts)) {
            if (kind(inner) === 'Lit') {
              const raw = text(inner.Value);
              if (mixed) skeleton += maskQuoted(raw);
              value += unescapeDouble(raw);
            } else {
              this.wordPart(inner, sink);
              known = false;
            }
          }
          break;
        }
        default:
          this.wordPart(part, sink);
          known = false;
      }
    }
    if (known && isPattern(skeleton, parts.length > 0 && kind(parts[0] as GoNode) === 'Lit')) known = false;
    return known ? value : undefined;
  }

  wordPart(part: GoNode, sink: Sink): void {
    switch (kind(part)) {
      case 'ParamExp':
        this.parameter(part, sink);
        return;
      case 'CmdSubst':
        if (part.Backquotes === true) {
          this.substitutions.backquotes += 2;
          this.backquotes += 1;
          try {
            this.statements(part.Stmts, { writes: [], opaque: undefined });
          } finally {
            this.backquotes -= 1;
          }
          return;
        }
        this.substitutions.parens += 1;
        this.statements(part.Stmts, { writes: [], opaque: undefined });
        return;
      case 'ProcSubst':
        this.substitutions.parens += 1;
        this.statements(part.Stmts, { writes: [], opaque: undefined });
        return;
      case 'ArithmExp': {
        if (part.Bracket !== true) this.substitutions.parens += 1;
        const expr = node(part.X);
        if (expr !== undefined) this.arithmetic(expr, sink);
        return;
      }
      case 'ExtGlob':
      case 'BraceExp':
      case 'Lit':
        return;
      default:
        throw new Gap(`a word part of an unknown kind (${kind(part)})`);
    }
  }

  parameter(part: GoNode, sink: Sink): void {
    const index = node(part.Index);
    // A word index is read once (read twice, a substitution in it, `${a[$(pwd)]}`, counted twice).
    const word = index !== undefined && kind(index) === 'Word';
    const indexValue = word ? this.word(index, sink) : undefined;
    const indexAll = word && ['@', '*'].includes(indexValue ?? '');
    if (part.Excl === true && num(part.Names) === 0 && (index === undefined || !indexAll)) {
      sink.mark('code', 'an indirect expansion ${!…} may run code');
    }
    if (index !== undefined && !indexAll) {
      if (word) this.arithmeticValue(indexValue, sink);
      else this.arithmetic(index, sink);
    }
    const slice = node(part.Slice);
    if (slice !== undefined) {
      for (const bound of [slice.Offset, slice.Length]) {
        const expr = node(bound);
        if (expr !== undefined) this.arithmetic(expr, sink);
      }
    }
    const repl = node(part.Repl);
    if (repl !== undefined) {
      for (const w of [repl.Orig, repl.With]) {
        const inner = node(w);
        if (inner !== undefined) this.word(inner, sink);
      }
    }
    const exp = node(part.Exp);
    if (exp !== undefined) {
      const inner = node(exp.Word);
      const value = inner === undefined ? undefined : this.word(inner, sink);
      if (num(exp.Op) === PARAM_TRANSFORM && (value === undefined || value.includes('P'))) {
        sink.mark('code', 'a prompt expansion ${…@P} may run code');
      }
      if (PARAM_ASSIGN.has(num(exp.Op))) {
        // An assignment made by expanding a word, which the persistent shell keeps for later commands.
        const name = text(node(part.Param)?.Value);
        if (isCodeVariable(name)) sink.mark('code', `\${${name}=…} sets ${name}, which changes how bash runs code`);
        else sink.mark('state', `\${${name}=…} assigns ${name} for later commands`);
      }
    }
  }

  /** Arithmetic: only plain numbers and operators; a variable or any other word may evaluate code. */
  /** An arithmetic operand read as a word: anything but an integer may run code (`a[$(cmd)]`, a name holding code). */
  arithmeticValue(value: string | undefined, sink: Sink): void {
    if (value === undefined || !INTEGER.test(value)) {
      sink.mark(
        'code',
        `arithmetic on ${value === undefined ? 'a value that is not a literal' : `"${value}"`}, which may run code`,
      );
    }
  }

  arithmetic(expr: GoNode, sink: Sink): void {
    switch (kind(expr)) {
      case 'Word':
        this.arithmeticValue(this.word(expr, sink), sink);
        return;
      case 'BinaryArithm':
        for (const side of [expr.X, expr.Y]) {
          const inner = node(side);
          if (inner !== undefined) this.arithmetic(inner, sink);
        }
        return;
      case 'UnaryArithm':
      case 'ParenArithm': {
        const inner = node(expr.X);
        if (inner !== undefined) this.arithmetic(inner, sink);
        return;
      }
      default:
        throw new Gap(`an arithmetic expression of an unknown kind (${kind(expr)})`);
    }
  }

  test(expr: GoNode, sink: Sink, words: (string | undefined)[]): void {
    switch (kind(expr)) {
      case 'Word':
        words.push(this.word(expr, sink));
        return;
      case 'BinaryTest': {
        const x = node(expr.X);
        const y = node(expr.Y);
        if (ARITH_TESTS.has(num(expr.Op))) {
          for (const side of [x, y]) {
            if (side !== undefined && kind(side) === 'Word') {
              const value = this.word(side, sink);
              words.push(value);
              if (value === undefined || !INTEGER.test(value.trim())) {
                sink.mark('code', '[[ … -eq … ]] evaluates an operand that is not a plain number as arithmetic');
              }
            } else if (side !== undefined) {
              this.test(side, sink, words);
            }
          }
          return;
        }
        if (x !== undefined) this.test(x, sink, words);
        if (y !== undefined) this.test(y, sink, words);
        return;
      }
      case 'UnaryTest': {
        const x = node(expr.X);
        if (NAME_TESTS.has(num(expr.Op)) && x !== undefined && kind(x) === 'Word') {
          const value = this.word(x, sink);
          words.push(value);
          if (value === undefined || !IDENTIFIER.test(value))
            sink.mark('code', '[[ -v ]] of an operand that is not a plain name may run code');
          return;
        }
        if (x !== undefined) this.test(x, sink, words);
        return;
      }
      case 'ParenTest': {
        const x = node(expr.X);
        if (x !== undefined) this.test(x, sink, words);
        return;
      }
      default:
        throw new Gap(`a test expression of an unknown kind (${kind(expr)})`);
    }
  }
}

function opaqueLine(reason: string, context?: Context): ShellPart[] {
  return [
    {
      program: undefined,
      args: [],
      moreArgs: false,
      assigns: [],
      writes: [...(context?.writes ?? [])],
      reads: [...(context?.reads ?? [])],
      cwdUnknown: true,
      opaque: { kind: 'code', reason },
    },
  ];
}

/** A here-document delimiter as written: its text, and whether any of it is quoted (then the body is not expanded). */
function delimiter(word: GoNode): { text: string; quoted: boolean } | undefined {
  let value = '';
  let quoted = false;
  for (const part of list(word.Parts)) {
    const raw = text(part.Value);
    if (kind(part) === 'Lit') {
      if (raw.includes('\\')) quoted = true;
      value += unescapeUnquoted(raw);
    } else if (kind(part) === 'SglQuoted' && part.Dollar !== true) {
      quoted = true;
      value += raw;
    } else if (kind(part) === 'DblQuoted' && part.Dollar !== true && list(part.Parts).every((p) => kind(p) === 'Lit')) {
      quoted = true;
      for (const inner of list(part.Parts)) value += unescapeDouble(text(inner.Value));
    } else return undefined;
  }
  return { text: value, quoted };
}

/**
 * What a redirection does to the command's standard input: `file` for `<`, `<>`, a here-document or a
 * here-string; `dup` when fd 0 becomes a copy of another descriptor (`<&5`, `0>&5`), which may be the shell's
 * own input; `undefined` when it leaves fd 0 alone.
 */
function inputRedirect(redirect: GoNode): 'file' | 'dup' | undefined {
  const op = num(redirect.Op);
  const fd = node(redirect.N);
  const zero = fd !== undefined && text(fd.Value) === '0';
  if (INPUT_OPS.has(op)) return fd === undefined || zero ? 'file' : undefined;
  if (op === OP.dupIn) return fd === undefined || zero ? 'dup' : undefined;
  if (op === OP.dupOut) return zero ? 'dup' : undefined;
  return undefined;
}

/**
 * The persistent bash tool writes each line to the standard input of one bash, which reads its script from
 * there as it runs: a command that reads that input takes the text after its own line, so what bash runs
 * next is not what the line says. Returns a reason when a top-level command may read that input and text
 * follows on a later line, or when it may stop reading part-way (the tool ends every line with its own
 * `echo "<sentinel>"` line: a command that takes part of it leaves bash inside a quote, and the next call's
 * line is read from there).
 */
function readsScript(file: GoNode, analysis: Analysis, context: Context, source: string): string | undefined {
  let bytes: Buffer | undefined;
  for (const statement of list(file.Stmts)) {
    analysis.readsInput = false;
    analysis.statement(statement, context);
    if (analysis.readsPart) {
      return 'a command that may read part of standard input: the bash tool reads its script from that input and ends each line with a line of its own, so what bash runs next (in this call or the next) cannot be known';
    }
    if (!analysis.readsInput) continue;
    bytes ??= Buffer.from(source, 'utf8');
    const start = num(node(statement.Position)?.offs);
    const newline = bytes.indexOf(0x0a, Math.max(start, 0));
    if (newline !== -1 && /[^ \t\n]/.test(bytes.subarray(newline + 1).toString('latin1'))) {
      return 'a command that may read standard input is followed by more lines: the bash tool reads its script from that input, so what runs next cannot be known';
    }
  }
  return undefined;
}

function analyzeSource(
  source: string,
  dialect: Dialect,
  depth: number,
  context: Context,
  parent?: Analysis,
): ShellPart[] {
  if (source.includes('\0')) return opaqueLine('the line holds a NUL byte, which bash drops', context);
  if (source.includes('\r')) {
    return opaqueLine(
      'the line holds a carriage return, which bash reads as part of a word and the parser as a blank',
      context,
    );
  }
  let file: GoNode;
  try {
    file = parseShell(source, dialect);
  } catch (error) {
    const why = error instanceof ShellSyntaxError ? error.message : 'the line does not parse';
    return opaqueLine(`the line does not parse as ${dialect === 'sh' ? 'sh' : dialect} (${why})`, context);
  }
  const analysis = new Analysis(dialect, depth, source);
  try {
    if (depth === 0 && dialect === 'bash' && context.input !== true) {
      const reason = readsScript(file, analysis, context, source);
      if (reason !== undefined) return opaqueLine(reason, context);
    } else {
      analysis.statements(file.Stmts, context);
      if (parent !== undefined) {
        if (analysis.readsInput) parent.readsInput = true;
        if (analysis.readsPart) parent.readsPart = true;
      }
    }
  } catch (error) {
    if (error instanceof Gap) return opaqueLine(`the analysis cannot read ${error.message}`, context);
    return opaqueLine('the analysis failed on this line', context);
  }
  const marks = countSubstitutionMarks(source);
  if (marks.parens !== analysis.substitutions.parens || marks.backquotes !== analysis.substitutions.backquotes) {
    return opaqueLine(
      /\$\\\n/.test(source)
        ? 'a backslash-newline after $: bash joins the lines and reads a substitution the parser does not see'
        : 'the parts found do not account for every substitution in the line',
      context,
    );
  }
  if (mayContinueComment(source)) {
    return opaqueLine('a comment ends with a backslash, which bash does not read as a line continuation', context);
  }
  if (analysis.heredocHazard !== undefined) return opaqueLine(analysis.heredocHazard, context);
  const parts = analysis.parts.length === 0 ? [analysis.newPart(context)] : analysis.parts;
  for (const part of parts) {
    const variable = part.assigns.find(isCodeVariable);
    if (variable !== undefined) {
      part.opaque = merge(part.opaque, { kind: 'code', reason: `sets ${variable}, whose value a shell runs as code` });
    }
  }
  // A line that changes directory, or runs code that cannot be seen, leaves relative paths unknown.
  if (parts.some((p) => p.cwdUnknown || p.opaque?.kind === 'code')) for (const p of parts) p.cwdUnknown = true;
  return parts;
}

/**
 * Every part a command line would run.
 *
 * @param command - the line, as given to the shell tool
 * @param dialect - `sh` for a tool run by `sh`, `bash` for a tool run by bash
 * @returns at least one part; a line that cannot be read exactly is one opaque part
 */
export function analyzeShell(command: string, dialect: Dialect): readonly ShellPart[] {
  return analyzeSource(command, dialect, 0, { writes: [], opaque: undefined });
}
