/**
 * `xargs`: a wrapper whose command gets more operands read from its input, so its part has `moreArgs`, and
 * words holding the replace string (`-I {}`) are unknown. It reads its standard input unless given `-a FILE`,
 * and may stop reading part-way (`-n`, `-L`, `-E`), so the persistent bash tool's script is at risk.
 */
import type { ProgramFamily, WrapperSpec } from './specs.js';

/** The options that set the replace string: `-I STRING`, `-i[STRING]`, `--replace[=STRING]`. */
const REPLACE_OPTIONS = ['-I', '-i', '--replace'];

/** `xargs` as a wrapper. */
export const XARGS: Readonly<Record<string, WrapperSpec>> = {
  xargs: {
    kind: 'program',
    options: {
      value: 'adEILnPs',
      attached: 'eil',
      flag: '0rtpxo',
      long: {
        null: 'flag',
        'no-run-if-empty': 'flag',
        verbose: 'flag',
        interactive: 'flag',
        exit: 'flag',
        'open-tty': 'flag',
        'show-limits': 'flag',
        'arg-file': 'value',
        delimiter: 'value',
        'max-args': 'value',
        'max-procs': 'value',
        'max-chars': 'value',
        'process-slot-var': 'value',
        eof: 'optional',
        replace: 'optional',
        'max-lines': 'optional',
      },
    },
  },
};

/**
 * The replace string xargs puts the input in, from its options as read: `undefined` for none, `{}` for `-i` or
 * `--replace` without one; opaque when it cannot be known (given twice, xargs takes the last; not a literal).
 *
 * @param seen - the options xargs was given, with their values
 * @returns the replace string, or why it cannot be known
 */
export function xargsReplace(
  seen: ReadonlyMap<string, string | undefined>,
): { readonly replace: string | undefined } | { readonly opaque: string } {
  if (REPLACE_OPTIONS.filter((o) => seen.has(o)).length > 1) {
    // xargs takes the last of them, which the options as read do not keep.
    return { opaque: 'xargs is given its replace string twice' };
  }
  const replace = seen.has('-I')
    ? seen.get('-I')
    : seen.has('-i') || seen.has('--replace')
      ? seen.get('-i') || seen.get('--replace') || '{}'
      : undefined;
  if ((seen.has('-I') && replace === undefined) || replace === '') {
    return { opaque: 'xargs -I with a replacement that is not a literal' };
  }
  return { replace };
}

/** `xargs`. */
export const xargs: ProgramFamily = {
  title: 'xargs',
  summary:
    'its command is a part of its own with more operands from the input (words holding the `-I` string unknown); it reads standard input unless given `-a FILE`, and may stop part-way.',
  wrappers: XARGS,
  partReaders: ['xargs'],
  inputRules: {
    // Its command keeps the input: it is a part of its own.
    xargs: (args) => args.some((a) => a === '-a' || a.startsWith('--arg-file')),
  },
};
