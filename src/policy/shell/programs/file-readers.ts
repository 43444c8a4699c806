/**
 * Programs that read files or their standard input: file readers read the files named as operands (the input
 * only without one, or for `-`), and part readers may stop reading their input before its end (`head -c`, `dd`,
 * `grep -m`, `sed q`). Both matter for the persistent bash tool, whose script is that input: a command that
 * reads it takes the lines after its own, and one that stops part-way leaves bash reading from the middle.
 */
import { scanOptions } from './options.js';
import type { FileReaderSpec, ProgramFamily } from './specs.js';

const grep: FileReaderSpec = {
  pattern: ['-e', '-f', '--regexp', '--file'],
  options: {
    value: 'efmABCdD',
    flag: 'EFGPiyvwxcLlnhHoqsbrRUzZaTI',
    long: {
      regexp: 'value',
      file: 'value',
      'max-count': 'value',
      context: 'value',
      'after-context': 'value',
      'before-context': 'value',
      include: 'value',
      exclude: 'value',
      'exclude-dir': 'value',
      color: 'optional',
      colour: 'optional',
      recursive: 'flag',
      'line-number': 'flag',
      'ignore-case': 'flag',
      'files-with-matches': 'flag',
      count: 'flag',
      'invert-match': 'flag',
      'word-regexp': 'flag',
      'fixed-strings': 'flag',
      'extended-regexp': 'flag',
      'no-filename': 'flag',
      'with-filename': 'flag',
      quiet: 'flag',
      'only-matching': 'flag',
    },
  },
};

/** More file readers: the pattern, script or filter comes first unless an option gives it. */
const MORE_READERS: Readonly<Record<string, FileReaderSpec>> = {
  egrep: grep,
  fgrep: grep,
  sed: {
    pattern: ['-e', '-f', '--expression', '--file'],
    options: {
      value: 'efl',
      attached: 'i',
      flag: 'nrEsuz',
      long: {
        expression: 'value',
        file: 'value',
        'line-length': 'value',
        quiet: 'flag',
        silent: 'flag',
        'in-place': 'optional',
        'regexp-extended': 'flag',
        separate: 'flag',
        'null-data': 'flag',
        'zero-terminated': 'flag',
        debug: 'flag',
        posix: 'flag',
        sandbox: 'flag',
        unbuffered: 'flag',
        'follow-symlinks': 'flag',
      },
    },
  },
  rg: {
    pattern: ['-e', '-f', '--regexp', '--file'],
    options: {
      value: 'ABCefgmMtTjErd',
      flag: 'iIsSnNwvxclLoqpuUHzaF0',
      long: {
        regexp: 'value',
        file: 'value',
        glob: 'value',
        iglob: 'value',
        type: 'value',
        'type-not': 'value',
        'max-count': 'value',
        'max-depth': 'value',
        context: 'value',
        'after-context': 'value',
        'before-context': 'value',
        replace: 'value',
        color: 'value',
        pre: 'value',
        'pre-glob': 'value',
        'search-zip': 'flag',
        'line-number': 'flag',
        'ignore-case': 'flag',
        'smart-case': 'flag',
        'files-with-matches': 'flag',
        count: 'flag',
        'fixed-strings': 'flag',
        'word-regexp': 'flag',
        'invert-match': 'flag',
        'only-matching': 'flag',
        hidden: 'flag',
        'no-ignore': 'flag',
        json: 'flag',
        quiet: 'flag',
        'no-heading': 'flag',
        heading: 'flag',
      },
    },
  },
  awk: { pattern: ['-f', '--file'], options: { value: 'fFv', long: { file: 'value' } } },
  jq: {
    pattern: ['-f', '--from-file'],
    options: {
      value: 'fL',
      flag: 'cCMajrSesRh',
      opaque: 'n',
      long: {
        'from-file': 'value',
        indent: 'value',
        tab: 'flag',
        'raw-output': 'flag',
        'compact-output': 'flag',
        'sort-keys': 'flag',
        slurp: 'flag',
        'raw-input': 'flag',
        'exit-status': 'flag',
        'ascii-output': 'flag',
        'join-output': 'flag',
        'color-output': 'flag',
        'monochrome-output': 'flag',
        seq: 'flag',
        stream: 'flag',
        arg: 'opaque',
        argjson: 'opaque',
        slurpfile: 'opaque',
        rawfile: 'opaque',
        args: 'opaque',
        jsonargs: 'opaque',
        'null-input': 'opaque',
      },
    },
  },
  od: { options: { value: 'AjNStw', flag: 'bcdfilosxv' } },
  // cmp FILE1 [FILE2]: a missing FILE2 is the input, so two operands are needed (as for a pattern).
  cmp: { pattern: [], options: { value: 'inI', flag: 'bls' } },
  xxd: { options: { value: 'cglos', flag: 'abeEiprRuv' } },
};

/** File readers by program basename. */
export const FILE_READERS: Readonly<Record<string, FileReaderSpec>> = {
  cat: { options: { flag: 'AbeEnstTuv', long: { 'show-all': 'flag', number: 'flag', 'number-nonblank': 'flag' } } },
  head: {
    options: { value: 'cn', flag: 'qvz', long: { bytes: 'value', lines: 'value', quiet: 'flag', verbose: 'flag' } },
  },
  tail: {
    options: { value: 'cns', flag: 'qvzF', long: { bytes: 'value', lines: 'value', quiet: 'flag', verbose: 'flag' } },
  },
  wc: { options: { flag: 'clmwL', long: { bytes: 'flag', chars: 'flag', lines: 'flag', words: 'flag' } } },
  grep,
  ...MORE_READERS,
};

const grepEarly = [
  '-m',
  '--max-count',
  '-q',
  '--quiet',
  '--silent',
  '-l',
  '--files-with-matches',
  '-L',
  '--files-without-match',
];

/**
 * Part readers that read to the end of their input unless one of these options stops them early (at a
 * count, the first match or the first file): without one they only block until the tool's time-out.
 */
export const EARLY_EXIT: Readonly<Record<string, readonly string[]>> = {
  grep: grepEarly,
  egrep: grepEarly,
  fgrep: grepEarly,
  rg: grepEarly,
};

/**
 * Whether a file reader given these words reads only files: every word an option, its value or an operand
 * (GNU getopt takes options after operands too), no value `-`, and an operand beyond the pattern.
 *
 * @param reader - the reader's table entry
 * @param args - its words, all literal, none `-` nor a path through `/dev` or `/proc`
 * @returns whether it leaves standard input alone
 */
export function readsOnlyFiles(reader: FileReaderSpec, args: readonly string[]): boolean {
  let i = 0;
  const operands: string[] = [];
  const seen = new Set<string>();
  while (i < args.length) {
    const scanned = scanOptions(args, reader.options, i);
    if (scanned.opaque !== undefined) return false;
    for (const [option, value] of scanned.seen) {
      if (value === '-') return false;
      seen.add(option);
    }
    i = scanned.next;
    const operand = args[i];
    if (operand !== undefined) operands.push(operand);
    i += 1;
  }
  const patternGiven = reader.pattern?.some((o) => seen.has(o)) ?? true;
  return operands.length > (patternGiven ? 0 : 1);
}

/** File readers and part readers. */
export const fileReaders: ProgramFamily = {
  title: 'File readers',
  summary:
    'given a file operand (beyond the pattern, for `grep`, `sed`, …) they leave standard input alone; part readers may stop reading it part-way (`grep`-likes only with `-m`, `-q`, `-l`), which makes a line opaque for the persistent bash tool.',
  fileReaders: FILE_READERS,
  partReaders: [
    'head',
    'dd',
    'line',
    'grep',
    'egrep',
    'fgrep',
    'rg',
    'sed',
    'awk',
    'gawk',
    'mawk',
    'nawk',
    'jq',
    'od',
    'cmp',
    'xxd',
    'hexdump',
    'hd',
  ],
  earlyExit: EARLY_EXIT,
  inputRules: {
    // dd reads its input unless given `if=FILE`.
    dd: (args) => args.some((a) => a.startsWith('if=') && a.length > 3),
  },
};
