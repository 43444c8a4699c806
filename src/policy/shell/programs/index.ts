/**
 * What the shell analysis knows about programs, joined from one module per family: each program's facts are
 * written once, in its family's module, and the tables the walk in `analyze.ts` reads are built here from the
 * families (a program named by two families is an error when this module loads). `docs/shell-programs.md` is
 * generated from `FAMILIES` (`npm run docs:programs`).
 */
import { ownEntry } from '../../own-entry.js';
import { builtins } from './builtins.js';
import { fileReaders, readsOnlyFiles } from './file-readers.js';
import { find } from './find.js';
import { git } from './git.js';
import { interpreters } from './interpreters.js';
import { noInput } from './no-input.js';
import { privilege } from './privilege.js';
import { shells } from './shells.js';
import type { FileReaderSpec, InputRule, InterpreterSpec, ProgramFamily, ShellSpec, WrapperSpec } from './specs.js';
import { wrappers } from './wrappers.js';
import { xargs } from './xargs.js';

/** The families, in the order the generated list shows them. */
export const FAMILIES: readonly ProgramFamily[] = [
  wrappers,
  privilege,
  xargs,
  find,
  shells,
  interpreters,
  builtins,
  git,
  fileReaders,
  noInput,
];

/**
 * The names a family holds in its tables, each once, in the order written.
 *
 * @param family - one family
 * @returns its program and builtin names
 */
export function familyPrograms(family: ProgramFamily): readonly string[] {
  const tables = [
    family.wrappers,
    family.shells,
    family.interpreters,
    family.fileReaders,
    family.inputRules,
    family.stateBuiltins,
    family.codeBuiltins,
    family.earlyExit,
  ];
  const names = [
    ...tables.flatMap((table) => Object.keys(table ?? {})),
    ...(family.noInput ?? []),
    ...(family.partReaders ?? []),
  ];
  return [...new Set(names)];
}

/** The families' entries of one table joined (the check below keeps each name to one family). */
function join<T>(pick: (family: ProgramFamily) => Readonly<Record<string, T>> | undefined): Record<string, T> {
  const joined: Record<string, T> = {};
  for (const family of FAMILIES) Object.assign(joined, pick(family) ?? {});
  return joined;
}

/** The families' names of one list joined. */
function joinNames(pick: (family: ProgramFamily) => readonly string[] | undefined): ReadonlySet<string> {
  return new Set(FAMILIES.flatMap((family) => pick(family) ?? []));
}

/** Each program's facts live in one family: a name two families give is a mistake in the tables. */
function checkOneFamilyEach(): void {
  const owner = new Map<string, string>();
  for (const family of FAMILIES) {
    for (const name of familyPrograms(family)) {
      const other = owner.get(name);
      if (other !== undefined) {
        throw new Error(`program=${name}, families=${other}/${family.title} | a program's facts live in one family`);
      }
      owner.set(name, family.title);
    }
  }
}
checkOneFamilyEach();

/** Programs that run other programs (wrappers, privilege, `xargs`, `find`, builtins), by basename. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = join((family) => family.wrappers);

/** Shells by program basename. */
export const SHELLS: Readonly<Record<string, ShellSpec>> = join((family) => family.shells);

/** Interpreters by program basename. */
export const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = join((family) => family.interpreters);

/** File readers by program basename. */
export const FILE_READERS: Readonly<Record<string, FileReaderSpec>> = join((family) => family.fileReaders);

/** Programs whose words decide whether they read standard input (`xargs -a`, `dd if=`, `git status`). */
export const INPUT_RULES: Readonly<Record<string, InputRule>> = join((family) => family.inputRules);

/**
 * Programs and builtins that never read their standard input, whatever their words (wrappers: what they run
 * is judged on its own).
 */
export const NO_INPUT: ReadonlySet<string> = joinNames((family) => family.noInput);

/**
 * Programs that may stop reading their standard input before its end: byte counts (`head -c`, `dd`, `read
 * -n`), a first match or line (`grep -m`, `sed q`, `awk exit`, `jq input`). Given the bash tool's input,
 * they may take part of a line and leave the rest to bash. Programs that read to the end (`cat`, `wc`,
 * `sort`) only block until the tool's time-out, which restarts the shell.
 */
export const PART_READERS: ReadonlySet<string> = joinNames((family) => family.partReaders);

/** Part readers that read to the end of their input unless one of these options stops them early. */
export const EARLY_EXIT: Readonly<Record<string, readonly string[]>> = join((family) => family.earlyExit);

export { BUILTIN_WRAPPERS, CHANGES_DIRECTORY, CODE_BUILTINS, NAME_BUILTINS, STATE_BUILTINS } from './builtins.js';
export { FIND_ACTIONS } from './find.js';
export { GIT_GLOBAL_FLAGS, GIT_NO_INPUT } from './git.js';
export { readShellOptions, SHELL_LONG } from './shells.js';
export { xargsReplace } from './xargs.js';
export { scanOptions } from './options.js';
export type { LongKind, OptionSpec, ScannedOptions } from './options.js';
export type { ShellOptions } from './shells.js';
export type {
  FileReaderSpec,
  InputRule,
  InterpreterSpec,
  ProgramFamily,
  ShellDialect,
  ShellSpec,
  WrapperSpec,
} from './specs.js';

/** `-`, and any path through /dev or /proc (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`), may be the input. */
const STDIN_PATH = /(^|\/)(dev|proc)(\/|$)/;

/**
 * Whether a program is known not to read its standard input: one that never does, one whose rule says its
 * words keep it off the input, or a file reader given files (not `-`). Anything else may read the shell's own
 * input.
 *
 * @param name - the program's basename
 * @param args - its words, `undefined` for a word that is not a literal
 * @returns whether it leaves standard input alone
 */
export function leavesInput(name: string, args: readonly (string | undefined)[]): boolean {
  if (NO_INPUT.has(name)) return true;
  if (!args.every((a): a is string => a !== undefined && a !== '-' && !STDIN_PATH.test(a))) return false;
  const rule = ownEntry(INPUT_RULES, name);
  if (rule !== undefined) return rule(args);
  const reader = ownEntry(FILE_READERS, name);
  return reader !== undefined && readsOnlyFiles(reader, args);
}

/**
 * Whether a part reader may stop before the end of its input: always, unless it has early-exit options, and
 * then only given one (or a word that is not a literal).
 *
 * @param name - the program's basename
 * @param args - its words, `undefined` for a word that is not a literal
 * @returns whether it may stop part-way
 */
export function stopsEarly(name: string, args: readonly (string | undefined)[]): boolean {
  const early = ownEntry(EARLY_EXIT, name);
  if (early === undefined) return true;
  return args.some((word) => {
    if (word === undefined) return true;
    if (word.startsWith('--')) {
      const option = word.split('=')[0] ?? word;
      return option.length > 2 && early.some((o) => o.startsWith(option));
    }
    return word.startsWith('-') && early.some((o) => o.length === 2 && word.includes(o[1] ?? ''));
  });
}
