/**
 * Programs that run a command as another user or group: `sudo`, `doas` and `pkexec` run the program in their
 * words; `su` and `runuser` run a shell script given with `-c` (read as bash and as sh, since the user's shell
 * runs it), or hand the words after the user to that shell; `sg` and `newgrp` run a shell whose script cannot be
 * seen. Their options decide where the command starts, which shell runs it (`su -s`), and whether it runs in
 * another directory or root (`sudo -D`, `sudo -R`).
 */
import type { ProgramFamily, WrapperSpec } from './specs.js';

/** Privilege wrappers by program basename. */
export const PRIVILEGE_WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
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
  pkexec: { kind: 'program', options: {}, shellWhenEmpty: true },
  sg: { kind: 'opaque', reason: 'sg runs its command through a shell' },
  newgrp: { kind: 'opaque', reason: 'newgrp runs a shell reading its input' },
};

/** The privilege wrappers. */
export const privilege: ProgramFamily = {
  title: 'Privilege',
  summary:
    'the program or `-c` script run as another user is a part of its own (a script read as bash and as sh); `sg`, `newgrp`, `su` without `-c`, `su USER ARGS…` and a shell chosen on the line (`su -s`) make the part opaque.',
  wrappers: PRIVILEGE_WRAPPERS,
};
