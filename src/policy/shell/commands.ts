/**
 * Programs that run other code: wrappers (what they run is a part too), shells (a literal script is looked
 * through) and interpreters (code fed on their input is opaque). Tables only; `analyze.ts` applies them.
 */
import type { OptionSpec } from './options.js';
import type { Dialect } from './syntax.js';

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

const plain: WrapperSpec = { kind: 'program', options: {} };
const startsShell: WrapperSpec = { kind: 'program', options: {}, shellWhenEmpty: true };

/** Wrappers by program basename. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    kind: 'program',
    options: {
      value: 'CDgpRrTtUu',
      flag: 'AbEHKklnPSVv',
      opaque: 'hise',
      env: true,
      long: {
        user: 'value',
        group: 'value',
        chdir: 'value',
        prompt: 'value',
        'close-from': 'value',
        role: 'value',
        type: 'value',
        'other-user': 'value',
        'command-timeout': 'value',
        host: 'value',
        chroot: 'value',
        askpass: 'flag',
        background: 'flag',
        bell: 'flag',
        'preserve-env': 'optional',
        'preserve-groups': 'flag',
        'set-home': 'flag',
        'non-interactive': 'flag',
        stdin: 'flag',
        'reset-timestamp': 'flag',
        'remove-timestamp': 'flag',
        list: 'flag',
        validate: 'flag',
        shell: 'opaque',
        login: 'opaque',
        edit: 'opaque',
        help: 'opaque',
        version: 'opaque',
      },
    },
    stateOptions: ['-D', '--chdir', '-R', '--chroot'],
  },
  doas: { kind: 'program', options: { value: 'uC', flag: 'nL', opaque: 's' } },
  env: {
    kind: 'program',
    options: {
      value: 'uC',
      flag: 'i0v',
      opaque: 'S',
      env: true,
      dash: true,
      long: {
        'ignore-environment': 'flag',
        null: 'flag',
        debug: 'flag',
        unset: 'value',
        chdir: 'value',
        'split-string': 'opaque',
        'block-signal': 'optional',
        'default-signal': 'optional',
        'ignore-signal': 'optional',
        'list-signal-handling': 'flag',
      },
    },
    stateOptions: ['-C', '--chdir'],
  },
  command: { kind: 'program', options: { flag: 'pvV' } },
  builtin: plain,
  exec: { kind: 'program', options: { value: 'a', flag: 'cl' } },
  nice: { kind: 'program', options: { value: 'n', digits: true, long: { adjustment: 'value' } } },
  nohup: plain,
  timeout: {
    kind: 'program',
    leading: 1,
    options: {
      value: 'ks',
      flag: 'v',
      long: {
        'kill-after': 'value',
        signal: 'value',
        foreground: 'flag',
        'preserve-status': 'flag',
        verbose: 'flag',
      },
    },
  },
  time: {
    kind: 'program',
    options: {
      value: 'fo',
      flag: 'pavq',
      long: { format: 'value', output: 'value', portability: 'flag', append: 'flag', verbose: 'flag', quiet: 'flag' },
    },
    writeOptions: ['-o', '--output'],
  },
  stdbuf: { kind: 'program', options: { value: 'ioe', long: { input: 'value', output: 'value', error: 'value' } } },
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
  busybox: plain,
  find: { kind: 'find' },
  su: {
    kind: 'script',
    scriptOnly: true,
    userOperands: {},
    scriptOptions: ['-c', '--command', '--session-command'],
    options: {
      value: 'cgGsw',
      flag: 'lmpPf',
      dash: true,
      long: {
        command: 'value',
        'session-command': 'value',
        group: 'value',
        'supp-group': 'value',
        shell: 'value',
        'whitelist-environment': 'value',
        login: 'flag',
        'preserve-environment': 'flag',
        pty: 'flag',
        fast: 'flag',
      },
    },
  },
  runuser: {
    kind: 'script',
    userOperands: { unless: ['-u', '--user'] },
    scriptOptions: ['-c', '--command', '--session-command'],
    options: {
      value: 'ucgGsw',
      flag: 'lmpPf',
      dash: true,
      long: {
        user: 'value',
        command: 'value',
        'session-command': 'value',
        group: 'value',
        'supp-group': 'value',
        shell: 'value',
        login: 'flag',
        'preserve-environment': 'flag',
        pty: 'flag',
      },
    },
  },
  script: {
    kind: 'script',
    scriptOnly: true,
    scriptOptions: ['-c', '--command'],
    writeOptions: ['-O', '--log-out', '-B', '--log-io', '-I', '--log-in', '-T', '--log-timing'],
    writesOperand: 'typescript',
    options: {
      value: 'cEIOBTm',
      attached: 't',
      flag: 'aefqkh',
      long: {
        command: 'value',
        echo: 'value',
        'log-in': 'value',
        'log-out': 'value',
        'log-io': 'value',
        'log-timing': 'value',
        'logging-format': 'value',
        'output-limit': 'value',
        append: 'flag',
        return: 'flag',
        flush: 'flag',
        force: 'flag',
        quiet: 'flag',
        timing: 'optional',
      },
    },
  },
  flock: {
    kind: 'script',
    leading: 1,
    scriptOptions: ['-c', '--command'],
    options: {
      value: 'wEc',
      flag: 'sxenuoFv',
      long: {
        timeout: 'value',
        'conflict-exit-code': 'value',
        command: 'value',
        shared: 'flag',
        exclusive: 'flag',
        nonblock: 'flag',
        unlock: 'flag',
        close: 'flag',
        'no-fork': 'flag',
        verbose: 'flag',
      },
    },
  },
  watch: {
    kind: 'join',
    options: {
      value: 'nq',
      attached: 'd',
      flag: 'bceghtxprw',
      long: {
        interval: 'value',
        differences: 'optional',
        exec: 'flag',
        beep: 'flag',
        errexit: 'flag',
        chgexit: 'flag',
        'no-title': 'flag',
        color: 'flag',
        'no-wrap': 'flag',
        precise: 'flag',
      },
    },
  },
  setsid: { kind: 'program', options: { flag: 'cfw', long: { ctty: 'flag', fork: 'flag', wait: 'flag' } } },
  chroot: {
    kind: 'program',
    leading: 1,
    shellWhenEmpty: true,
    options: { long: { userspec: 'value', groups: 'value', 'skip-chdir': 'flag' } },
    changesRoot: true,
  },
  ionice: { kind: 'program', options: { value: 'cn', flag: 't' }, noCommandOptions: ['-p', '-P', '-u'] },
  taskset: { kind: 'program', leading: 1, options: { flag: 'acp' }, noCommandOptions: ['-p'] },
  chrt: { kind: 'program', leading: 1, options: { value: 'T', flag: 'abdefimoRrv' }, noCommandOptions: ['-p', '-m'] },
  unbuffer: plain,
  fakeroot: startsShell,
  catchsegv: plain,
  torsocks: plain,
  proxychains: plain,
  proxychains4: plain,
  'dbus-run-session': plain,
  nsenter: startsShell,
  unshare: startsShell,
  strace: plain,
  ltrace: plain,
  valgrind: plain,
  numactl: plain,
  firejail: startsShell,
  proot: startsShell,
  rlwrap: plain,
  pkexec: startsShell,
  // zsh precommand modifiers (a zsh -c script is read as bash): the program is the next word.
  noglob: plain,
  nocorrect: plain,
  '-': plain,
  sg: { kind: 'opaque', reason: 'sg runs its command through a shell' },
  newgrp: { kind: 'opaque', reason: 'newgrp runs a shell reading its input' },
  at: { kind: 'opaque', reason: 'at runs commands read from its input or a file later' },
  batch: { kind: 'opaque', reason: 'batch runs commands read from its input later' },
  parallel: { kind: 'opaque', reason: 'parallel runs commands built from its input' },
};

/** A shell: the dialect its scripts are parsed in (none: a language this analysis cannot read). */
export interface ShellSpec {
  /** The dialect of its scripts. */
  readonly dialect?: Dialect;
  /** zsh: parsed as bash only when the script has none of zsh's code-running expansions. */
  readonly zsh?: boolean;
}

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

/** An interpreter: options, and the options that give it its code inline (so it does not read its input). */
export interface InterpreterSpec {
  /** Its options. */
  readonly options: OptionSpec;
  /** Options that give the code (or a module) inline. */
  readonly code: readonly string[];
}

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

/**
 * Programs and builtins that never read their standard input, whatever their words (wrappers: what they run
 * is judged on its own). Not `date` (`-f -`), `hostname` (`-F`), `du` (`--files0-from=-`).
 */
export const NO_INPUT: ReadonlySet<string> = new Set([
  'ls',
  'pwd',
  'echo',
  'printf',
  'true',
  'false',
  ':',
  'mkdir',
  'touch',
  'whoami',
  'id',
  'uname',
  'sleep',
  'test',
  '[',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'stat',
  'df',
  'which',
  'type',
  'mktemp',
  'seq',
  'nproc',
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
  'env',
  'command',
  'builtin',
  'time',
  'nice',
  'nohup',
  'timeout',
  'stdbuf',
  'exit',
  'return',
  'break',
  'continue',
]);

/** A program that reads the files named as operands, and its standard input only without one (or for `-`). */
export interface FileReaderSpec {
  /** Its options. */
  readonly options: OptionSpec;
  /** Options that give the pattern, for programs whose first operand is a pattern otherwise (`grep`). */
  readonly pattern?: readonly string[];
}

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

/** git subcommands that never read standard input. */
export const GIT_NO_INPUT: ReadonlySet<string> = new Set([
  'status',
  'log',
  'diff',
  'show',
  'branch',
  'rev-parse',
  'ls-files',
]);

/** git global options that take no value. */
export const GIT_GLOBAL_FLAGS: ReadonlySet<string> = new Set(['-P', '-p', '--no-pager', '--paginate', '--bare']);

/**
 * Programs that may stop reading their standard input before its end: byte counts (`head -c`, `dd`, `read
 * -n`), a first match or line (`grep -m`, `sed q`, `awk exit`, `jq input`). Given the bash tool's input,
 * they may take part of a line and leave the rest to bash. Programs that read to the end (`cat`, `wc`,
 * `sort`) only block until the tool's time-out, which restarts the shell.
 */
export const PART_READERS: ReadonlySet<string> = new Set([
  'head',
  'dd',
  'read',
  'mapfile',
  'readarray',
  'line',
  'xargs',
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
]);

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
