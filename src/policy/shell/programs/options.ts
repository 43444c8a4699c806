/**
 * Reading a program's options as its table describes them (`OptionSpec`): where the program a wrapper runs
 * starts (`sudo`, `env`, `timeout`, …), whether an interpreter is given its code inline, which words of a file
 * reader are files. Unknown options and options that are not literal words make the part opaque: without
 * knowing whether an option takes a value, the command it runs (or the files it reads) cannot be located.
 */

import { ownEntry } from '../../own-entry.js';

/** What a long option does. `optional` takes a value only as `--name=value`. */
export type LongKind = 'value' | 'flag' | 'optional' | 'opaque';

/** The options of one program. */
export interface OptionSpec {
  /** Short letters that take a value (the rest of the word, or the next word). */
  readonly value?: string;
  /** Short letters that take no value. */
  readonly flag?: string;
  /** Short letters whose value is optional and only attached (`-i{}`, `-l5`). */
  readonly attached?: string;
  /** Short letters that make the part opaque (a login shell, an editor, a split string). */
  readonly opaque?: string;
  /** Long options, without the leading `--`. */
  readonly long?: Readonly<Record<string, LongKind>>;
  /** `-N` words are options (`nice -5`). */
  readonly digits?: boolean;
  /** `NAME=VALUE` words before the program are environment assignments (`env`, `sudo`). */
  readonly env?: boolean;
  /** A lone `-` is an option (`env -`). */
  readonly dash?: boolean;
}

/** Where the options end, what they said, and why the part is opaque when they cannot be read. */
export interface ScannedOptions {
  /** Index of the first word after the options. */
  readonly next: number;
  /** Options seen, by name (`-u`, `--user`), with their value when they take one (the last, when given twice). */
  readonly seen: ReadonlyMap<string, string | undefined>;
  /** Every value each option was given, in order (`-O a -O b`). */
  readonly values: ReadonlyMap<string, readonly (string | undefined)[]>;
  /** Environment names assigned among the options. */
  readonly assigns: readonly string[];
  /** Set when the options cannot be read exactly. */
  readonly opaque?: string;
}

/**
 * `NAME=VALUE` as `env` and `sudo` read it: any word with `=` that is not an option (names may hold `%`; GNU `env`
 * takes `=x` too, and runs the word after it).
 */
const ASSIGNMENT = /^(?!-)([^=]*)=/;

/**
 * What a long option is, and the full names it may stand for: getopt_long accepts any unambiguous prefix (an
 * ambiguous one is an error, and the program runs nothing). A prefix shared by options of different kinds is
 * unknown.
 */
function longOption(spec: OptionSpec, name: string): { kind: LongKind; names: readonly string[] } | undefined {
  const table = spec.long ?? {};
  const exact = ownEntry(table, name);
  if (exact !== undefined) return { kind: exact, names: [name] };
  const kinds = new Set<LongKind>();
  const names: string[] = [];
  for (const [option, kind] of Object.entries(table)) {
    if (option.startsWith(name)) {
      kinds.add(kind);
      names.push(option);
    }
  }
  const [kind] = kinds;
  return kinds.size === 1 && kind !== undefined ? { kind, names } : undefined;
}

/**
 * Reads options from `args` (the words after the program) until the first operand.
 *
 * @param args - the words, `undefined` for a word that is not a literal
 * @param spec - the program's options
 * @param start - where to start reading (options after an operand, for programs that permute them)
 */
export function scanOptions(args: readonly (string | undefined)[], spec: OptionSpec, start = 0): ScannedOptions {
  const seen = new Map<string, string | undefined>();
  const values = new Map<string, (string | undefined)[]>();
  const see = (option: string, value: string | undefined): void => {
    seen.set(option, value);
    values.set(option, [...(values.get(option) ?? []), value]);
  };
  const assigns: string[] = [];
  let i = start;
  const stop = (opaque: string): ScannedOptions => ({ next: i, seen, values, assigns, opaque });
  while (i < args.length) {
    const word = args[i];
    if (word === undefined) return stop('an option word that is not a literal');
    if (word === '--') {
      i += 1;
      // `env -- A=1 rm`: the assignments go on after `--` (any word with `=`, even one that starts with `-`).
      while (spec.env === true && args[i]?.includes('=') === true) {
        const assigned = args[i] ?? '';
        assigns.push(assigned.slice(0, assigned.indexOf('=')));
        i += 1;
      }
      return { next: i, seen, values, assigns };
    }
    const assignment = spec.env === true ? ASSIGNMENT.exec(word) : null;
    if (assignment !== null) {
      assigns.push(assignment[1] ?? '');
      i += 1;
      continue;
    }
    if (word === '-' && spec.dash === true) {
      see('-', undefined);
      i += 1;
      continue;
    }
    if (word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=');
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      const option = longOption(spec, name);
      if (option === undefined) return stop(`option --${name} is not known`);
      const kind = option.kind;
      if (kind === 'opaque') return stop(`option --${name}`);
      // Seen under every full name it may stand for: `env --ch=/` is `env --chdir=/`.
      let value: string | undefined;
      if (kind === 'value' && eq === -1) {
        value = args[i + 1];
        if (value === undefined && i + 1 < args.length) return stop(`the value of --${name} is not a literal`);
        i += 2;
      } else {
        value = eq === -1 ? undefined : word.slice(eq + 1);
        i += 1;
      }
      for (const full of option.names) see(`--${full}`, value);
      continue;
    }
    if (word.startsWith('-') && word.length > 1) {
      if (spec.digits === true && /^-\d+$/.test(word)) {
        i += 1;
        continue;
      }
      let consumedNext = false;
      for (let j = 1; j < word.length; j += 1) {
        const letter = word[j] ?? '';
        if ((spec.opaque ?? '').includes(letter)) return stop(`option -${letter}`);
        if ((spec.value ?? '').includes(letter)) {
          const rest = word.slice(j + 1);
          if (rest !== '') {
            see(`-${letter}`, rest);
          } else {
            const value = args[i + 1];
            if (value === undefined && i + 1 < args.length) return stop(`the value of -${letter} is not a literal`);
            see(`-${letter}`, value);
            consumedNext = true;
          }
          break;
        }
        if ((spec.attached ?? '').includes(letter)) {
          see(`-${letter}`, word.slice(j + 1));
          break;
        }
        if ((spec.flag ?? '').includes(letter)) {
          see(`-${letter}`, undefined);
          continue;
        }
        return stop(`option -${letter} is not known`);
      }
      i += consumedNext ? 2 : 1;
      continue;
    }
    break;
  }
  return { next: i, seen, values, assigns };
}
