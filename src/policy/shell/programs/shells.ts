/**
 * Shells: a literal script given with `-c` is read in the shell's dialect and its commands are parts of the
 * line (`bash -c 'rm x'` runs `rm`); a shell reading a script file or its input runs code no one sees, and a
 * shell whose language this analysis cannot read (`fish`, `csh`, …) is opaque. zsh scripts are read as bash
 * only when they hold none of zsh's own code-running expansions.
 */
import { ownEntry } from '../../own-entry.js';
import type { ProgramFamily, ShellSpec } from './specs.js';

/** Shells by program basename. */
export const SHELLS: Readonly<Record<string, ShellSpec>> = {
  bash: { dialect: 'bash' },
  rbash: { dialect: 'bash' },
  sh: { dialect: 'sh' },
  dash: { dialect: 'sh' },
  ash: { dialect: 'sh' },
  hush: { dialect: 'sh' },
  posh: { dialect: 'sh' },
  yash: { dialect: 'sh' },
  ksh: { dialect: 'mksh' },
  ksh93: { dialect: 'mksh' },
  mksh: { dialect: 'mksh' },
  lksh: { dialect: 'mksh' },
  oksh: { dialect: 'mksh' },
  pdksh: { dialect: 'mksh' },
  zsh: { dialect: 'bash', zsh: true },
  fish: {},
  csh: {},
  tcsh: {},
  xonsh: {},
  nu: {},
  elvish: {},
};

/** The long options of bash (the only shell with any), and whether each takes a value. */
export const SHELL_LONG: Readonly<Record<string, 'value' | 'flag'>> = {
  rcfile: 'value',
  'init-file': 'value',
  norc: 'flag',
  noprofile: 'flag',
  posix: 'flag',
  login: 'flag',
  restricted: 'flag',
  verbose: 'flag',
  noediting: 'flag',
  debugger: 'flag',
  'dump-strings': 'flag',
  'dump-po-strings': 'flag',
  'pretty-print': 'flag',
  help: 'flag',
  version: 'flag',
};

/** A shell's options as read: whether it runs a `-c` script and where its operands start, or why it is opaque. */
export type ShellOptions = { readonly command: boolean; readonly next: number } | { readonly opaque: string };

/**
 * Reads a shell's options: `-c` (a script follows the options), `-s`/`-i` (commands from its input), `-o`/`-O`
 * (take a value), other letters as flags, bash's long options; `--` or `-` ends them.
 *
 * @param name - the shell's basename, for the reason
 * @param args - its words, `undefined` for a word that is not a literal
 * @returns whether a script is given with `-c` and the index of the first operand, or why the part is opaque
 */
export function readShellOptions(name: string, args: readonly (string | undefined)[]): ShellOptions {
  let command = false;
  let i = 0;
  for (; i < args.length; i += 1) {
    const word = args[i];
    if (word === undefined) return { opaque: `${name} options that are not literals` };
    if (word === '--' || word === '-') {
      i += 1;
      break;
    }
    if (word.startsWith('--')) {
      const option = word.slice(2).split('=')[0] ?? '';
      const known = ownEntry(SHELL_LONG, option);
      if (known === undefined) return { opaque: `${name} option --${option} is not known` };
      if (known === 'value' && !word.includes('=')) i += 1;
      continue;
    }
    if (/^[-+]/.test(word) && word.length > 1) {
      const letters = word.slice(1);
      let takesValue = 0;
      for (const letter of letters) {
        if (letter === 'c' && word.startsWith('-')) command = true;
        else if (letter === 's' || letter === 'i')
          return { opaque: `${name} -${letter} reads commands from its input` };
        else if (letter === 'o' || letter === 'O') takesValue += 1;
        else if (!/[a-zA-Z]/.test(letter)) return { opaque: `${name} option ${word} is not known` };
      }
      i += takesValue;
      continue;
    }
    break;
  }
  return { command, next: i };
}

/** The shells. */
export const shells: ProgramFamily = {
  title: 'Shells',
  summary:
    "a literal `-c` script is read in the shell's dialect (bash, sh or mksh) and its commands are parts of the line; a script file, commands read from the input, or a language the analysis cannot read is opaque.",
  shells: SHELLS,
};
