/**
 * Shell builtins, whose facts matter because they act on the shell itself: some change what later commands of
 * a persistent shell run (`cd`, `set`, `export`, …: the part is opaque *state*), some run words as code (`source`,
 * `let`, …: opaque *code*), and `command`, `builtin` and `exec` run the program named after them, as wrappers do.
 * Builtins whose words the walk reads one by one (`eval`, `trap`, `alias`, `read`, `printf`, `test`, …) are
 * handled in `analyze.ts`, which needs the walk to read them.
 */
import type { ProgramFamily, WrapperSpec } from './specs.js';

/** Builtins that run the program named in their words, by name. */
export const BUILTIN_WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  command: { kind: 'program', options: { flag: 'pvV' } },
  builtin: { kind: 'program', options: {} },
  exec: { kind: 'program', options: { value: 'a', flag: 'cl' } },
};

/** Builtins that change what later commands of a persistent shell run, each with why. */
export const STATE_BUILTINS: Readonly<Record<string, string>> = {
  cd: 'changes the directory later commands run in',
  pushd: 'changes the directory later commands run in',
  popd: 'changes the directory later commands run in',
  hash: 'changes which file a program name runs',
  enable: 'changes which builtins exist',
  set: 'changes shell options or positional parameters',
  shopt: 'changes shell options',
  unalias: 'changes aliases',
  umask: 'changes the mode of files created later',
  ulimit: 'changes resource limits',
  history: 'changes the history',
  export: 'changes the environment of later commands',
  declare: 'changes variables of later commands',
  typeset: 'changes variables of later commands',
  local: 'changes variables',
  readonly: 'changes variables of later commands',
  unset: 'changes variables or functions of later commands',
  shift: 'changes positional parameters',
};

/** State builtins that change the directory: relative paths of the line are not known after them. */
export const CHANGES_DIRECTORY: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd']);

/**
 * State builtins whose operands are variable names (`NAME` or `NAME=VALUE`) or options: any other operand may
 * run code (`export 'a[$(cmd)]'`), and `-i`/`-n` make later assignments evaluate arithmetic or names.
 */
export const NAME_BUILTINS: ReadonlySet<string> = new Set([
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'unset',
]);

/** Builtins whose words are code run now or later, each with why. */
export const CODE_BUILTINS: Readonly<Record<string, string>> = {
  source: 'runs a script file in this shell',
  '.': 'runs a script file in this shell',
  fc: 'runs commands from the history',
  let: 'evaluates arithmetic, which may run code',
  coproc: 'runs a command',
};

/** The builtins. */
export const builtins: ProgramFamily = {
  title: 'Builtins',
  summary:
    'those that change later commands (`cd`, `set`, `export`, …) are opaque *state*, those that run their words (`source`, `let`, …) opaque *code*; `command`, `builtin` and `exec` run the program after them as a part of its own; `eval`, `trap`, `alias`, `read`, `printf`, `test` and a few more have their words read one by one in the walk itself.',
  wrappers: BUILTIN_WRAPPERS,
  stateBuiltins: STATE_BUILTINS,
  codeBuiltins: CODE_BUILTINS,
  noInput: [
    'pwd',
    'echo',
    'printf',
    'true',
    'false',
    ':',
    'test',
    '[',
    'type',
    'cd',
    'pushd',
    'popd',
    'export',
    'declare',
    'typeset',
    'local',
    'readonly',
    'unset',
    'set',
    'shopt',
    'alias',
    'unalias',
    'hash',
    'umask',
    'ulimit',
    'shift',
    'getopts',
    'trap',
    'enable',
    'command',
    'builtin',
    'exit',
    'return',
    'break',
    'continue',
  ],
  partReaders: ['read', 'mapfile', 'readarray'],
};
