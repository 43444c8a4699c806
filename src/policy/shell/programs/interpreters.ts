/**
 * Interpreters of other languages (Python, Node, Perl, Ruby, PHP, Lua, R, …): code given inline (`-c`, `-e`) or
 * a script file is judged by the part's words, but code read from the input (a pipe, a here-document, no
 * operand) is opaque, and so is any option the table does not know, since it may take the code.
 */
import type { InterpreterSpec, ProgramFamily } from './specs.js';

const python: InterpreterSpec = {
  options: { value: 'cmWXQ', flag: 'bBdEhIOqsSuvVx3PR', opaque: 'i', long: { version: 'flag', help: 'flag' } },
  code: ['-c', '-m', '--version', '--help', '-h', '-V'],
};
const node: InterpreterSpec = {
  options: {
    value: 'eprC',
    flag: 'chv',
    opaque: 'i',
    long: {
      eval: 'value',
      print: 'value',
      require: 'value',
      import: 'value',
      loader: 'value',
      'experimental-loader': 'value',
      'input-type': 'value',
      conditions: 'value',
      check: 'flag',
      test: 'flag',
      watch: 'flag',
      version: 'flag',
      help: 'flag',
      'enable-source-maps': 'flag',
      'no-warnings': 'flag',
      'no-deprecation': 'flag',
      'experimental-strip-types': 'flag',
      'experimental-vm-modules': 'flag',
      interactive: 'opaque',
    },
  },
  code: ['-e', '-p', '--eval', '--print', '-v', '--version', '-h', '--help', '--test'],
};
const perl: InterpreterSpec = {
  options: { value: 'eEIMm', attached: '0CdDFilx', flag: 'acnpsStTuUvwWXh' },
  code: ['-e', '-E', '-v', '-h'],
};
const ruby: InterpreterSpec = {
  options: { value: 'eIrCE', attached: '0FiKTxW', flag: 'acdlnpsSvwyh', long: { version: 'flag', help: 'flag' } },
  code: ['-e', '-v', '--version', '-h', '--help'],
};
const php: InterpreterSpec = {
  options: { value: 'rBREFfcdzt', flag: 'hiIlmnqsvwHe', opaque: 'aS' },
  code: ['-r', '-B', '-R', '-E', '-F', '-f', '-v', '-h', '-i', '-m', '-l'],
};
const lua: InterpreterSpec = { options: { value: 'el', flag: 'vEW', opaque: 'i' }, code: ['-e', '-v'] };
const opaqueOptions: InterpreterSpec = { options: {}, code: [] };

/** Interpreters by program basename. */
export const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = {
  python,
  python2: python,
  python3: python,
  pypy: python,
  pypy3: python,
  ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`python3.${i}`, python])),
  node,
  nodejs: node,
  bun: opaqueOptions,
  deno: opaqueOptions,
  perl,
  ruby,
  irb: opaqueOptions,
  php,
  lua,
  luajit: lua,
  'lua5.1': lua,
  'lua5.3': lua,
  'lua5.4': lua,
  tclsh: opaqueOptions,
  wish: opaqueOptions,
  Rscript: { options: { value: 'e' }, code: ['-e'] },
  R: opaqueOptions,
  osascript: { options: { value: 'el' }, code: ['-e'] },
  pwsh: opaqueOptions,
  powershell: opaqueOptions,
  jshell: opaqueOptions,
  gdb: opaqueOptions,
};

/** The interpreters. */
export const interpreters: ProgramFamily = {
  title: 'Interpreters',
  summary:
    'given code inline (`-c`, `-e`) or a script file, the part is judged by its words; code from the input, or an option the table does not know, is opaque.',
  interpreters: INTERPRETERS,
};
