/**
 * The shapes of the program tables, apart from the tables: every family module (`wrappers.ts`, `git.ts`, …)
 * fills some of them and `index.ts` joins the families, so the shapes sit where each of those imports them
 * without importing one another. Types only.
 */
import type { OptionSpec } from './options.js';

/**
 * The language a shell's scripts are read in. The same names as the parser's dialects, written here so the
 * tables stay data that never loads the parser.
 */
export type ShellDialect = 'bash' | 'sh' | 'mksh';

/** How a wrapper finds what it runs. */
export interface WrapperSpec {
  /**
   * `program`: the command follows the options (and `leading` operands); `script`: a shell script given
   * with an option (`su -c`); `join`: the words are joined into an `sh` script (`watch`); `find`:
   * `-exec … ;`; `opaque`: it runs code that cannot be seen.
   */
  readonly kind: 'program' | 'script' | 'join' | 'find' | 'opaque';
  /** Its options. */
  readonly options?: OptionSpec;
  /** Operands before the command (`timeout DURATION`, `chroot NEWROOT`). */
  readonly leading?: number;
  /** Options whose value is a shell script (`-c`, `--command`). */
  readonly scriptOptions?: readonly string[];
  /** For `script` wrappers: without a script option it starts an interactive shell. */
  readonly scriptOnly?: boolean;
  /** Options that mean nothing is run (`taskset -p`). */
  readonly noCommandOptions?: readonly string[];
  /** Options whose value is a file the wrapper writes (`time -o`). */
  readonly writeOptions?: readonly string[];
  /** The wrapper writes the file its first operand names, or this file when there is none (`script FILE`). */
  readonly writesOperand?: string;
  /** Options that change the directory the command runs in (`env -C`), or its root (`sudo -R`). */
  readonly stateOptions?: readonly string[];
  /**
   * It always runs its command under another root directory (`chroot NEWROOT`): a path the command names,
   * its program's included, is not the file the policy names.
   */
  readonly changesRoot?: boolean;
  /** For `opaque`: why. */
  readonly reason?: string;
  /** Without a command it starts a shell, which reads its script from its input (`unshare`, `chroot DIR`). */
  readonly shellWhenEmpty?: boolean;
  /**
   * `su`-style operands: `[-] USER [ARGS…]`, the words after the user passed to the user's shell; for
   * `runuser` only without the options listed here (`-u USER` runs a program instead).
   */
  readonly userOperands?: { readonly unless?: readonly string[] };
}

/** A shell: the dialect its scripts are parsed in (none: a language this analysis cannot read). */
export interface ShellSpec {
  /** The dialect of its scripts. */
  readonly dialect?: ShellDialect;
  /** zsh: parsed as bash only when the script has none of zsh's code-running expansions. */
  readonly zsh?: boolean;
}

/** An interpreter: options, and the options that give it its code inline (so it does not read its input). */
export interface InterpreterSpec {
  /** Its options. */
  readonly options: OptionSpec;
  /** Options that give the code (or a module) inline. */
  readonly code: readonly string[];
}

/** A program that reads the files named as operands, and its standard input only without one (or for `-`). */
export interface FileReaderSpec {
  /** Its options. */
  readonly options: OptionSpec;
  /** Options that give the pattern, for programs whose first operand is a pattern otherwise (`grep`). */
  readonly pattern?: readonly string[];
}

/**
 * Whether a program leaves standard input alone given these words (none of them `-` or a path through `/dev`
 * or `/proc`, and none unknown: those are checked before a rule is asked).
 */
export type InputRule = (args: readonly string[]) => boolean;

/**
 * One family of programs and what the analysis knows about each: the family module is the one place a
 * program's facts are written, `index.ts` joins the families into the tables the analysis reads, and the
 * list in `docs/shell-programs.md` is generated from the families.
 */
export interface ProgramFamily {
  /** The heading of the family in the generated list. */
  readonly title: string;
  /** What the analysis knows about the family's programs, in one line. */
  readonly summary: string;
  /** Programs that run other programs, by basename. */
  readonly wrappers?: Readonly<Record<string, WrapperSpec>>;
  /** Shells, by basename. */
  readonly shells?: Readonly<Record<string, ShellSpec>>;
  /** Interpreters, by basename. */
  readonly interpreters?: Readonly<Record<string, InterpreterSpec>>;
  /** Programs that read the files they name, and their standard input only without one. */
  readonly fileReaders?: Readonly<Record<string, FileReaderSpec>>;
  /** Programs whose words say whether they read standard input, each with its own rule. */
  readonly inputRules?: Readonly<Record<string, InputRule>>;
  /** Programs and builtins that never read standard input, whatever their words. */
  readonly noInput?: readonly string[];
  /** Programs that may stop reading standard input before its end (see `PART_READERS`). */
  readonly partReaders?: readonly string[];
  /** Part readers that read to the end unless given one of these options. */
  readonly earlyExit?: Readonly<Record<string, readonly string[]>>;
  /** Builtins that change what later commands run, each with why. */
  readonly stateBuiltins?: Readonly<Record<string, string>>;
  /** Builtins whose words are code run now or later, each with why. */
  readonly codeBuiltins?: Readonly<Record<string, string>>;
}
