/**
 * The reader's tree written back as text in one canonical form, so a test states what was read in a line: words as
 * written (quotes, expansions), operators between statements inside `⟨ ⟩` (so `⟨a && b⟩ || c` shows the grouping),
 * compound bodies inside `[ ]`, arithmetic and `[[ ]]` fully parenthesised, `decl:` and `let:` before a command read
 * as a declaration or `let`, a here-document's body after its delimiter inside `⟪ ⟫`.
 */
import { readShell } from '../../../../src/policy/shell/reader/index.js';
import type {
  ArithmExpr,
  Assign,
  Command,
  Dialect,
  ParamExp,
  Redirect,
  Stmt,
  TestExpr,
  Word,
  WordPart,
} from '../../../../src/policy/shell/reader/index.js';
import { OP } from '../../../../src/policy/shell/reader/index.js';

const REDIRECTS: Record<number, string> = {
  [OP.out]: '>',
  [OP.append]: '>>',
  [OP.in]: '<',
  [OP.readWrite]: '<>',
  [OP.dupIn]: '<&',
  [OP.dupOut]: '>&',
  [OP.clobber]: '>|',
  [OP.heredoc]: '<<',
  [OP.heredocTabs]: '<<-',
  [OP.herestring]: '<<<',
  [OP.all]: '&>',
  [OP.appendAll]: '&>>',
};
const EXPANSIONS: Record<number, string> = {
  [OP.plus]: '+',
  [OP.colonPlus]: ':+',
  [OP.minus]: '-',
  [OP.colonMinus]: ':-',
  [OP.quest]: '?',
  [OP.colonQuest]: ':?',
  [OP.assign]: '=',
  [OP.colonAssign]: ':=',
  [OP.percent]: '%',
  [OP.doublePercent]: '%%',
  [OP.hash]: '#',
  [OP.doubleHash]: '##',
  [OP.caret]: '^',
  [OP.doubleCaret]: '^^',
  [OP.comma]: ',',
  [OP.doubleComma]: ',,',
  [OP.at]: '@',
};
const ARITHMETIC: Record<number, string> = {
  68: '+',
  70: '-',
  38: '*',
  85: '/',
  76: '%',
  39: '**',
  40: '==',
  41: '!=',
  42: '<=',
  43: '>=',
  56: '<',
  54: '>',
  9: '&',
  12: '|',
  80: '^',
  61: '<<',
  55: '>>',
  10: '&&',
  11: '||',
  82: ',',
  72: '?',
  87: ':',
  74: '=',
  44: '+=',
  45: '-=',
  46: '*=',
  34: '!',
  35: '~',
  36: '++',
  37: '--',
};

/** Reads a line and writes its tree back (see the module comment). */
export function render(line: string, dialect: Dialect = 'bash'): string {
  return stmts(readShell(line, dialect).Stmts);
}

function stmts(list: readonly Stmt[]): string {
  return list.map(stmt).join('; ');
}

function stmt(s: Stmt): string {
  const body = [s.Cmd === undefined ? '' : command(s.Cmd), ...s.Redirs.map(redirect)].filter((t) => t !== '');
  return `${s.Negated ? '! ' : ''}${body.join(' ')}${s.Background ? ' &' : ''}`;
}

function redirect(r: Redirect): string {
  const doc = r.Hdoc === undefined ? '' : `⟪${word(r.Hdoc)}⟫`;
  return `${r.N?.Value ?? ''}${REDIRECTS[r.Op] ?? `?${r.Op}`}${r.Word === undefined ? '' : word(r.Word)}${doc}`;
}

function command(c: Command): string {
  switch (c.type) {
    case 'CallExpr':
      return [...c.Assigns.map(assign), ...c.Args.map(word)].join(' ');
    case 'BinaryCmd': {
      const op = { [OP.andList]: '&&', [OP.orList]: '||', [OP.pipe]: '|', [OP.pipeAll]: '|&' }[c.Op] ?? '?';
      return `⟨${stmt(c.X)} ${op} ${stmt(c.Y)}⟩`;
    }
    case 'Subshell':
      return `( ${stmts(c.Stmts)} )`;
    case 'Block':
      return `{ ${stmts(c.Stmts)}; }`;
    case 'IfClause': {
      let out = `if [${stmts(c.Cond)}] then [${stmts(c.Then)}]`;
      for (let e = c.Else; e !== undefined; e = e.Else) {
        out += e.Cond.length > 0 ? ` elif [${stmts(e.Cond)}] then [${stmts(e.Then)}]` : ` else [${stmts(e.Then)}]`;
      }
      return `${out} fi`;
    }
    case 'WhileClause':
      return `${c.Until ? 'until' : 'while'} [${stmts(c.Cond)}] do [${stmts(c.Do)}] done`;
    case 'ForClause': {
      const loop =
        c.Loop.type === 'WordIter'
          ? `${c.Loop.Name.Value}${c.Loop.Items.length > 0 ? ` in ${c.Loop.Items.map(word).join(' ')}` : ''}`
          : `((${[c.Loop.Init, c.Loop.Cond, c.Loop.Post].map((x) => (x === undefined ? '' : arith(x))).join('; ')}))`;
      return `${c.Select ? 'select' : 'for'} ${loop} do [${stmts(c.Do)}] done`;
    }
    case 'CaseClause': {
      const ops: Record<number, string> = { [OP.caseBreak]: ';;', [OP.caseFall]: ';&', [OP.caseResume]: ';;&' };
      const items = c.Items.map((i) => `${i.Patterns.map(word).join('|')}) [${stmts(i.Stmts)}] ${ops[i.Op] ?? '?'}`);
      return `case ${word(c.Word)} in ${items.join(' ')} esac`;
    }
    case 'FuncDecl':
      return `${c.Name.Value}() ${stmt(c.Body)}`;
    case 'ArithmCmd':
      return `((${c.X === undefined ? '' : arith(c.X)}))`;
    case 'TestClause':
      return `[[ ${test(c.X)} ]]`;
    case 'DeclClause':
      return `decl:${[c.Variant.Value, ...c.Args.map(assign)].join(' ')}`;
    case 'LetClause':
      return `let:${['let', ...c.Exprs.map(arith)].join(' ')}`;
    case 'TimeClause':
      return `time${c.PosixFormat ? ' -p' : ''}${c.Stmt === undefined ? '' : ` [${stmt(c.Stmt)}]`}`;
    case 'CoprocClause':
      return `coproc${c.Name === undefined ? '' : ` ${word(c.Name)}`} [${stmt(c.Stmt)}]`;
  }
}

function assign(a: Assign): string {
  if (a.Naked) return a.Name?.Value ?? (a.Value === undefined ? '' : word(a.Value));
  const index = a.Index === undefined ? '' : `[${word(a.Index)}]`;
  const array =
    a.Array === undefined
      ? ''
      : `(${a.Array.Elems.map((e) => `${e.Index === undefined ? '' : `[${word(e.Index)}]=`}${e.Value === undefined ? '' : word(e.Value)}`).join(' ')})`;
  return `${a.Name?.Value ?? '?'}${index}${a.Append ? '+=' : '='}${a.Value === undefined ? '' : word(a.Value)}${array}`;
}

/** A word as written, in canonical form. */
export function word(w: Word): string {
  return w.Parts.map(part).join('');
}

function part(p: WordPart): string {
  switch (p.type) {
    case 'Lit':
      return p.Value;
    case 'SglQuoted':
      return `${p.Dollar ? '$' : ''}'${p.Value}'`;
    case 'DblQuoted':
      return `${p.Dollar ? '$' : ''}"${p.Parts.map(part).join('')}"`;
    case 'ParamExp':
      return parameter(p);
    case 'CmdSubst':
      return p.Backquotes ? `\`${stmts(p.Stmts)}\`` : `$(${stmts(p.Stmts)})`;
    case 'ProcSubst':
      return `${p.Op === OP.procIn ? '<' : '>'}(${stmts(p.Stmts)})`;
    case 'ArithmExp':
      return p.Bracket ? `$[${p.X === undefined ? '' : arith(p.X)}]` : `$((${p.X === undefined ? '' : arith(p.X)}))`;
    case 'ExtGlob':
      return `${String.fromCharCode(p.Op)}(${p.Pattern.Value})`;
  }
}

function parameter(p: ParamExp): string {
  if (p.Short) return `$${p.Param.Value}`;
  let out = `\${${p.Length ? '#' : ''}${p.Excl ? '!' : ''}${p.Param.Value}`;
  if (p.Names !== 0) out += p.Names === OP.star ? '*' : '@';
  if (p.Index !== undefined) out += `[${word(p.Index)}]`;
  if (p.Slice !== undefined) {
    out += `:${p.Slice.Offset === undefined ? '' : arith(p.Slice.Offset)}`;
    if (p.Slice.Length !== undefined) out += `:${arith(p.Slice.Length)}`;
  }
  if (p.Repl !== undefined) {
    out += `${p.Repl.All ? '//' : '/'}${word(p.Repl.Orig)}`;
    if (p.Repl.With !== undefined) out += `/${word(p.Repl.With)}`;
  }
  if (p.Exp !== undefined) out += `${EXPANSIONS[p.Exp.Op] ?? '?'}${p.Exp.Word === undefined ? '' : word(p.Exp.Word)}`;
  return `${out}}`;
}

/** An arithmetic expression, fully parenthesised. */
export function arith(x: ArithmExpr): string {
  switch (x.type) {
    case 'Word':
      return word(x);
    case 'BinaryArithm':
      return `(${arith(x.X)} ${ARITHMETIC[x.Op] ?? '?'} ${arith(x.Y)})`;
    case 'UnaryArithm':
      return x.Post ? `(${arith(x.X)}${ARITHMETIC[x.Op] ?? '?'})` : `(${ARITHMETIC[x.Op] ?? '?'}${arith(x.X)})`;
    case 'ParenArithm':
      return `(${arith(x.X)})`;
  }
}

function test(x: TestExpr): string {
  switch (x.type) {
    case 'Word':
      return word(x);
    case 'BinaryTest': {
      const op =
        x.Op === OP.andList
          ? '&&'
          : x.Op === OP.orList
            ? '||'
            : x.Op === OP.before
              ? '<'
              : x.Op === OP.after
                ? '>'
                : (binaryTestName(x.Op) ?? '?');
      return `(${test(x.X)} ${op} ${test(x.Y)})`;
    }
    case 'UnaryTest':
      return `(${x.Op === OP.not ? '!' : (unaryTestName(x.Op) ?? '?')} ${test(x.X)})`;
    case 'ParenTest':
      return `(${test(x.X)})`;
  }
}

const BINARY_NAMES: Record<number, string> = {
  [OP.regexMatch]: '=~',
  113: '-nt',
  114: '-ot',
  115: '-ef',
  116: '-eq',
  117: '-ne',
  118: '-le',
  119: '-ge',
  120: '-lt',
  121: '-gt',
  [OP.matchShort]: '=',
  [OP.match]: '==',
  [OP.noMatch]: '!=',
};

function binaryTestName(op: number): string | undefined {
  return BINARY_NAMES[op];
}

const UNARY_NAMES = [
  '-e',
  '-f',
  '-d',
  '-c',
  '-b',
  '-p',
  '-S',
  '-L',
  '-k',
  '-g',
  '-u',
  '-G',
  '-O',
  '-N',
  '-r',
  '-w',
].concat(['-x', '-s', '-t', '-z', '-n', '-o', '-v', '-R']);

function unaryTestName(op: number): string | undefined {
  return UNARY_NAMES[op - 88];
}
