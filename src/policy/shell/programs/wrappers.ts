/**
 * Wrappers: programs that run the program named in their words (`env`, `nice`, `nohup`, `timeout`, `stdbuf`,
 * `setsid`, `flock`, `chroot`, tracers, sandboxes, zsh's precommand modifiers, …) and the few that run code
 * no one can see (`at`, `parallel`). What a wrapper runs is a part of its own, so a policy judges `rm` in
 * `timeout 5 rm -rf /` as it judges `rm -rf /`; for that the analysis must know each wrapper's options (which
 * take a value) and operands (`timeout DURATION`) to find where the command starts. An option not in the table
 * makes the part opaque. The privilege wrappers (`sudo`, `su`, …), `xargs`, `find` and the builtins
 * `command`/`builtin`/`exec` have modules of their own.
 */
import type { ProgramFamily, WrapperSpec } from './specs.js';

const plain: WrapperSpec = { kind: 'program', options: {} };
const startsShell: WrapperSpec = { kind: 'program', options: {}, shellWhenEmpty: true };

/** Wrappers by program basename. */
export const WRAPPER_PROGRAMS: Readonly<Record<string, WrapperSpec>> = {
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
  setsid: { kind: 'program', options: { flag: 'cfw', long: { ctty: 'flag', fork: 'flag', wait: 'flag' } } },
  // -p PID, -P PGID, -u UID: the operands after them are more ids, nothing is run.
  ionice: { kind: 'program', options: { value: 'cnpPu', flag: 't' }, noCommandOptions: ['-p', '-P', '-u'] },
  taskset: { kind: 'program', leading: 1, options: { flag: 'acp' }, noCommandOptions: ['-p'] },
  // -p: the operands are a priority and a process id, nothing is run; -m only prints the priority ranges.
  chrt: {
    kind: 'program',
    leading: 1,
    options: { value: 'T', flag: 'abdefimopRrv' },
    noCommandOptions: ['-p', '-m'],
  },
  chroot: {
    kind: 'program',
    leading: 1,
    shellWhenEmpty: true,
    options: { long: { userspec: 'value', groups: 'value', 'skip-chdir': 'flag' } },
    changesRoot: true,
  },
  busybox: plain,
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
  noglob: plain,
  nocorrect: plain,
  '-': plain,
  at: { kind: 'opaque', reason: 'at runs commands read from its input or a file later' },
  batch: { kind: 'opaque', reason: 'batch runs commands read from its input later' },
  parallel: { kind: 'opaque', reason: 'parallel runs commands built from its input' },
};

/** The wrappers, and the ones among them that never read standard input themselves. */
export const wrappers: ProgramFamily = {
  title: 'Wrappers',
  summary:
    'the program each runs (after its options and operands, `timeout 5 rm` runs `rm`) is a part of its own; an unknown option, or a wrapper that runs code it does not show (`at`, `parallel`), makes the part opaque.',
  wrappers: WRAPPER_PROGRAMS,
  noInput: ['env', 'time', 'nice', 'nohup', 'timeout', 'stdbuf'],
};
