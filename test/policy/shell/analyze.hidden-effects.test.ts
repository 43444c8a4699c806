/**
 * What a line does beyond the words an allow rule looks at, each found by a red-team round against the shell
 * analysis: a variable set by a `for`/`select` loop, a `{NAME}>` redirection, `printf -vNAME`, `wait -p NAME` or
 * `coproc NAME` (`HOME` or `PATH`
 * pointed elsewhere makes `git status` or `ls` run another file's code, then and in every later call of the
 * persistent shell); a file read through `< FILE`; an abbreviated long option of a wrapper (`env --ch=/`);
 * `env` assignments after `--` or starting with `=`; the file `script` writes; `select` reading the script's own
 * input. Each line was allowed (or, for the deny policy, not denied) before its fix. What bash does with the line
 * is checked against bash itself where it decides the attack.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { policyGate } from '../../../src/index.js';
import { analyzeShell } from '../../../src/policy/shell/analyze.js';
import { bashVerdict, bashVerdicts } from '../../helpers/shell.js';

const verdict = bashVerdict;
const verdicts = bashVerdicts;

/** What bash prints for a line (run in a scratch environment, nothing outside it touched). */
function bash(line: string): string {
  const run = spawnSync('bash', ['-c', line], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  return run.stdout.trim();
}

const readOnly = policyGate({ version: 1, extends: ['gate-audit:read-only-shell'], default: 'deny' });
const gitRead = policyGate({
  version: 1,
  default: 'deny',
  rules: [
    {
      id: 'git',
      tools: ['bash'],
      when: [{ arg: 'command', shell: { program: ['git'], args: { first: '^(status|log|diff)$' } } }],
      verdict: 'allow',
    },
    {
      id: 'printf',
      tools: ['bash'],
      when: [{ arg: 'command', shell: { program: ['printf', 'true'] } }],
      verdict: 'allow',
    },
  ],
});
const workspaceReads = policyGate({
  version: 1,
  default: 'deny',
  rules: [
    {
      id: 'read',
      tools: ['bash'],
      when: [
        {
          arg: 'command',
          shell: {
            program: ['cat', 'grep', 'ls', 'env', 'sudo'],
            args: { path: { under: ['/workspace'], cwd: '/workspace' } },
          },
        },
      ],
      verdict: 'allow',
    },
  ],
});
const vended = policyGate({ version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' });

describe('analyzeShell, on what a line sets, reads or writes beyond its words', () => {
  describe('when a line assigns a variable', () => {
    it('a loop variable, a descriptor variable and printf -vNAME are assignments an allow must list', () => {
      expect(
        verdicts(readOnly, [
          'git status',
          'for HOME in "$PWD"; do git status; done',
          'for PATH in "$PWD/bin:$PATH"; do ls; done',
          'true {HOME}>/dev/null; git status',
        ]),
      ).toEqual({
        'git status': 'allow',
        'for HOME in "$PWD"; do git status; done': 'deny',
        'for PATH in "$PWD/bin:$PATH"; do ls; done': 'deny',
        'true {HOME}>/dev/null; git status': 'deny',
      });
      expect(
        verdicts(gitRead, [
          'printf -v x %s y',
          'printf x',
          'printf -vHOME /workspace; git status',
          'for HOME in x; do git --config-env=core.fsmonitor=HOME status; done',
        ]),
      ).toEqual({
        'printf -v x %s y': 'deny',
        'printf x': 'allow',
        'printf -vHOME /workspace; git status': 'deny',
        'for HOME in x; do git --config-env=core.fsmonitor=HOME status; done': 'deny',
      });
      expect(analyzeShell('for HOME in x; do :; done', 'bash').flatMap((p) => p.assigns)).toEqual(['HOME']);
      expect(analyzeShell('printf -vHOME x', 'bash')[0]?.assigns).toEqual(['HOME']);
      expect(analyzeShell('true {HOME}>/dev/null', 'bash').flatMap((p) => p.assigns)).toEqual(['HOME']);
      expect(
        verdicts(readOnly, [
          'sleep 0 & wait -n -p HOME; git status',
          'coproc HOME { true; }; git status',
          'wait -npHOME',
        ]),
      ).toEqual({
        'sleep 0 & wait -n -p HOME; git status': 'deny',
        'coproc HOME { true; }; git status': 'deny',
        'wait -npHOME': 'deny',
      });
      expect(analyzeShell('wait -n -p HOME', 'bash')[0]?.assigns).toEqual(['HOME']);
      expect(analyzeShell('wait -npHOME', 'bash')[0]?.assigns).toEqual(['HOME']);
      expect(analyzeShell('wait -- -p HOME', 'bash')[0]?.assigns).toEqual([]);
      expect(analyzeShell('coproc HOME { true; }', 'bash')[0]?.assigns).toEqual(['HOME', 'HOME_PID']);
      expect(analyzeShell('coproc true', 'bash')[0]?.assigns).toEqual(['COPROC', 'COPROC_PID']);
      expect(bash('sleep 0 & wait -p HOME $!; echo "$HOME"')).toMatch(/^\d+$/);
      // The coprocess waits on its input (closed when bash exits): bash unsets the name once a coprocess ended, so
      // one that could end first would make this a race.
      expect(bash('coproc HOME { read -r _; }; echo "$HOME"')).toMatch(/^\d+$/);
      // What bash does: each sets HOME, and the loop's value stays set after it.
      expect(bash('for HOME in /x; do :; done; echo "$HOME"')).toBe('/x');
      expect(bash('true {HOME}>/dev/null; echo "$HOME"')).toMatch(/^\d+$/);
      expect(bash('printf -vHOME /y; echo "$HOME"')).toBe('/y');
    });

    it('a ${NAME=…} or ${NAME:=…} expansion assigns NAME: state, or code for a variable that changes how bash reads', () => {
      expect(analyzeShell('echo ${X:=1}', 'bash')[0]?.opaque?.kind).toBe('state');
      expect(analyzeShell('echo ${X=1}', 'bash')[0]?.opaque?.kind).toBe('state');
      expect(analyzeShell('echo ${X:-1}', 'bash')[0]?.opaque).toBeUndefined();
      expect(analyzeShell('echo ${POSIXLY_CORRECT:=1}', 'bash')[0]?.opaque?.kind).toBe('code');
      expect(analyzeShell('BASH_COMPAT=31 true', 'bash')[0]?.opaque?.kind).toBe('code');
      // The second line runs its $( ) in POSIX mode only, which the first line turned on: neither is allowed.
      const posix = `echo \${POSIXLY_CORRECT:=1}\necho "\${HOME-"'"'}"'}"'$(touch x)' #'`;
      expect(verdicts(readOnly, ['echo ${POSIXLY_CORRECT:=1}', 'true ${POSIXLY_CORRECT=}', posix])).toEqual({
        'echo ${POSIXLY_CORRECT:=1}': 'ask',
        'true ${POSIXLY_CORRECT=}': 'ask',
        [posix]: 'ask',
      });
      expect(bash('echo ${X:=1} >/dev/null; echo "$X"')).toBe('1');
    });

    it('every -v of printf, -p of wait, the name after getopts -- and xargs --process-slot-var are assignments', () => {
      const assigns = (line: string): string[] => analyzeShell(line, 'bash').flatMap((p) => p.assigns);
      expect(assigns('printf -v a -v HOME x')).toEqual(['a', 'HOME']);
      expect(assigns('printf -va -vHOME x')).toEqual(['a', 'HOME']);
      expect(assigns('wait -p a -n -p HOME')).toEqual(['a', 'HOME']);
      expect(assigns('getopts -- a HOME -a')).toEqual(['HOME']);
      expect(assigns('echo | xargs --process-slot-var=GIT_DIR git status')).toEqual(['GIT_DIR']);
      expect(assigns('echo | xargs --proc=HOME git status')).toEqual(['HOME']);
      expect(bash('printf -v a -v HOME /y x; echo "$HOME"')).toBe('/y');
    });

    it('SHELL, which script, flock and su run their script with, is a variable whose value runs code; an assignment alone is state', () => {
      const vended = policyGate({ version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' });
      const polyglot = `x='\\'';import os;os.system("rm -rf /x")#'`;
      expect(
        verdicts(vended, [
          `SHELL=/usr/bin/python3; script -qc '${polyglot}' /dev/null`,
          `for SHELL in /usr/bin/python3; do script -qc '${polyglot}' /dev/null; done`,
          'SHELL=/usr/bin/python3',
          'PATH=/tmp/evil:$PATH',
          'x=1',
        ]),
      ).toEqual({
        [`SHELL=/usr/bin/python3; script -qc '${polyglot}' /dev/null`]: 'deny',
        [`for SHELL in /usr/bin/python3; do script -qc '${polyglot}' /dev/null; done`]: 'deny',
        'SHELL=/usr/bin/python3': 'deny',
        'PATH=/tmp/evil:$PATH': 'ask',
        'x=1': 'ask',
      });
      expect(analyzeShell('x=1', 'bash')[0]?.opaque?.kind).toBe('state');
      expect(analyzeShell('SHELL=/bin/sh', 'bash')[0]?.opaque?.kind).toBe('code');
    });
  });

  describe('when a line reads a file through <', () => {
    it('a file read through < is judged as an operand of the part', () => {
      expect(
        verdicts(workspaceReads, [
          'cat /workspace/a',
          'cat < /workspace/a',
          'cat < /etc/shadow',
          'grep -e x < /etc/shadow',
          'ls /workspace/a 3</etc/shadow',
          '{ cat; } < /etc/shadow',
          'cat <> /etc/shadow',
        ]),
      ).toEqual({
        'cat /workspace/a': 'allow',
        'cat < /workspace/a': 'allow',
        'cat < /etc/shadow': 'deny',
        'grep -e x < /etc/shadow': 'deny',
        'ls /workspace/a 3</etc/shadow': 'deny',
        '{ cat; } < /etc/shadow': 'deny',
        'cat <> /etc/shadow': 'deny',
      });
      expect(analyzeShell('cat < "$F"', 'bash')[0]?.reads).toEqual([undefined]);
      // `<>` opens the file for reading too: judged as read even where the rule lets the part write it.
      const writesAnywhere = policyGate({
        version: 1,
        default: 'deny',
        rules: [
          {
            id: 'r',
            tools: ['bash'],
            when: [
              {
                arg: 'command',
                shell: {
                  program: ['cat'],
                  args: { path: { under: ['/workspace'] } },
                  writesTo: { path: { under: ['/'] } },
                },
              },
            ],
            verdict: 'allow',
          },
        ],
      });
      expect(verdicts(writesAnywhere, ['cat 3<> /workspace/a', 'cat 3<> /etc/shadow'])).toEqual({
        'cat 3<> /workspace/a': 'allow',
        'cat 3<> /etc/shadow': 'deny',
      });
    });
  });

  describe('when a wrapper or shell runs the command', () => {
    it('an abbreviated long option of a wrapper is the option it stands for', () => {
      expect(
        verdicts(workspaceReads, [
          'env ls a',
          'env --ch=/ ls etc',
          'env --chdir=/ ls etc',
          'sudo --chd=/ ls etc',
          'sudo --chr=/jail ls a',
        ]),
      ).toEqual({
        'env ls a': 'allow',
        'env --ch=/ ls etc': 'deny',
        'env --chdir=/ ls etc': 'deny',
        'sudo --chd=/ ls etc': 'deny',
        'sudo --chr=/jail ls a': 'deny',
      });
      // GNU time's --output, abbreviated, is a file written like -o.
      expect(verdicts(vended, ['command time -o /etc/x true', 'command time --out=/etc/x true'])).toEqual({
        'command time -o /etc/x true': 'deny',
        'command time --out=/etc/x true': 'deny',
      });
      expect(bash('env --ch=/ pwd')).toBe('/');
    });

    it('env takes assignments after -- and words starting with =, and runs the word after them', () => {
      expect(
        verdicts(vended, [
          'rm -rf /',
          'env -- A=1 rm -rf /',
          'env =x rm -rf /',
          'env -i -- A=1 rm -rf /',
          'sudo -- A=1 rm -rf /',
        ]),
      ).toEqual({
        'rm -rf /': 'deny',
        'env -- A=1 rm -rf /': 'deny',
        'env =x rm -rf /': 'deny',
        'env -i -- A=1 rm -rf /': 'deny',
        'sudo -- A=1 rm -rf /': 'deny',
      });
      expect(bash('env -- A=1 printenv A')).toBe('1');
      expect(bash('env =x echo ran')).toBe('ran');
    });

    it('time followed by a word starting with - is also the program time (POSIX mode), whose command is a part', () => {
      const denyRm = policyGate({
        version: 1,
        default: 'allow',
        rules: [{ id: 'rm', tools: ['bash'], when: [{ arg: 'command', shell: { program: ['rm'] } }], verdict: 'deny' }],
      });
      expect(verdicts(denyRm, ['time ls', 'time -f %e rm x', 'time -p ls'])).toEqual({
        'time ls': 'allow',
        'time -f %e rm x': 'deny',
        'time -p ls': 'allow',
      });
      // Read twice, a word's substitutions are counted once (else the line would not account for them: opaque).
      expect(analyzeShell('time echo $(ls)', 'bash').some((p) => p.opaque !== undefined)).toBe(false);
      expect(analyzeShell('time -f %e echo $(ls)', 'bash').some((p) => p.opaque !== undefined)).toBe(false);
      // Where GNU time is installed, bash in POSIX mode (set on an earlier line) runs it.
      if (existsSync('/usr/bin/time')) expect(bash('set -o posix\ntime -f %e echo ran 2>/dev/null')).toBe('ran');
    });

    it('a script given to flock, script or su is read as bash and as sh; a shell the line chooses otherwise is opaque', () => {
      const denyRm = policyGate({
        version: 1,
        default: 'allow',
        rules: [{ id: 'rm', tools: ['bash'], when: [{ arg: 'command', shell: { program: ['rm'] } }], verdict: 'deny' }],
      });
      // dash reads $'\' as $ and a quoted backslash: the rm that bash reads inside a string runs.
      const dashOnly = `flock /tmp/lk -c "echo $'\\' ; rm V ; echo ' #'"`;
      expect(
        verdicts(denyRm, [
          dashOnly,
          'flock /tmp/lk -c ls',
          "su -s /bin/sh -c \"echo $'\\\\' ; rm V ; echo ' #'\" root",
        ]),
      ).toEqual({
        [dashOnly]: 'deny',
        'flock /tmp/lk -c ls': 'allow',
        "su -s /bin/sh -c \"echo $'\\\\' ; rm V ; echo ' #'\" root": 'deny',
      });
      expect(analyzeShell('SHELL=/bin/zsh flock f -c ls', 'bash')[0]?.opaque?.kind).toBe('code');
      expect(analyzeShell('su -s /usr/bin/python3 -c ls root', 'bash')[0]?.opaque?.kind).toBe('code');
      expect(analyzeShell('su -s /bin/bash -c ls root', 'bash')[0]?.opaque).toBeUndefined();
    });

    it('an option given twice where the program takes the last: the analysis does not guess which (code: denied)', () => {
      const vended = policyGate({ version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' });
      expect(
        verdicts(vended, [
          "su -c ls --command 'rm -rf /x' root",
          "script -c ls --command 'rm -rf /x' /dev/null",
          'echo reset | xargs -I X -i git {} --hard',
          'su -s /bin/bash --shell /usr/bin/python3 -c ls root',
        ]),
      ).toEqual({
        "su -c ls --command 'rm -rf /x' root": 'deny',
        "script -c ls --command 'rm -rf /x' /dev/null": 'deny',
        'echo reset | xargs -I X -i git {} --hard': 'deny',
        'su -s /bin/bash --shell /usr/bin/python3 -c ls root': 'deny',
      });
      // Given twice under one name, the value read is the last, as the program takes it.
      expect(analyzeShell('su -s /bin/sh -s /bin/bash -c ls root', 'bash')[0]?.opaque).toBeUndefined();
      // Every log file script is given is a file it writes.
      expect(analyzeShell('script -q -O /etc/cron.d/x -O /dev/null -c true', 'bash')[0]?.writes).toEqual([
        '/etc/cron.d/x',
        '/dev/null',
        'typescript',
      ]);
      expect(verdict(vended, 'script -q -O /etc/cron.d/x -O /dev/null -c true')).toBe('deny');
      // What script does (util-linux): both logs are written. With -O it writes no ./typescript, which the analysis
      // still counts (one file too many is refused more, never less).
      if (existsSync('/usr/bin/script')) {
        expect(bash('cd "$(mktemp -d)" && script -q -O a -O b -c true >/dev/null && ls')).toBe('a\nb');
      }
    });
  });

  describe('when a program writes files of its own', () => {
    it('script writes its output file (the operand, else ./typescript) and its log files', () => {
      expect(analyzeShell('script -qc true /etc/cron.d/x', 'bash')[0]?.writes).toEqual(['/etc/cron.d/x']);
      expect(analyzeShell('script -q -c true', 'bash')[0]?.writes).toEqual(['typescript']);
      expect(analyzeShell('script -O /etc/x -q -c true out', 'bash')[0]?.writes).toEqual(['/etc/x', 'out']);
      expect(
        verdicts(vended, [
          'script -qc true /tmp/x',
          'script -qc true /etc/cron.d/x',
          'script --log-out /etc/x -qc true',
        ]),
      ).toEqual({
        'script -qc true /tmp/x': 'allow',
        'script -qc true /etc/cron.d/x': 'deny',
        'script --log-out /etc/x -qc true': 'deny',
      });
    });
  });

  describe('when a read-only program is pointed at code to run', () => {
    it('the read-only preset asks for rg running a hostname program (ripgrep 14 runs --hostname-bin for hyperlinks)', () => {
      expect(
        verdicts(readOnly, [
          'rg x .',
          'rg --hostname-bin=./bin/x --hyperlink-format=default x .',
          'rg --hostname-b ./x x',
        ]),
      ).toEqual({
        'rg x .': 'allow',
        'rg --hostname-bin=./bin/x --hyperlink-format=default x .': 'ask',
        'rg --hostname-b ./x x': 'ask',
      });
    });

    it('the read-only preset asks for git pointed at another repository', () => {
      expect(
        verdicts(readOnly, [
          'git status',
          'git --git-dir=evil status',
          'git --work-tree=w status',
          'git -C sub status',
        ]),
      ).toEqual({
        'git status': 'allow',
        'git --git-dir=evil status': 'ask',
        'git --work-tree=w status': 'ask',
        'git -C sub status': 'ask',
      });
    });
  });

  describe('when bash reads the line differently than it looks', () => {
    it('select reads its answers from the script the bash tool feeds it, so the line is opaque', () => {
      const line = "select x in a; do break; done\necho '\nrm -rf /tmp/victim\n'";
      const parts = analyzeShell(line, 'bash');
      expect(parts.every((p) => p.opaque?.kind === 'code')).toBe(true);
      expect(verdict(readOnly, line)).not.toBe('allow');
      // Redirected, select reads the file instead: nothing of the script is taken.
      expect(
        analyzeShell('select x in a; do break; done < /dev/null', 'bash').some((p) => p.opaque !== undefined),
      ).toBe(false);
    });

    it('a here-document inside backquotes makes the line opaque (bash ends the backquotes at a backquote in its body)', () => {
      const lines = [
        "echo `cat <<'EOF'\n'`; touch pwned; echo `'\nEOF\n`",
        "case `cat <<'EOF'\n'`$(touch pwned)`'\nEOF\n` in *) cat a;; esac",
      ];
      for (const line of lines) {
        expect(analyzeShell(line, 'bash').every((p) => p.opaque?.kind === 'code')).toBe(true);
        expect(verdict(readOnly, line)).not.toBe('allow');
      }
      // What bash does with the first: the backquotes end inside the body, and `echo ran` runs.
      expect(bash("echo `cat <<'EOF'\n'`; echo ran; echo `'\nEOF\n`")).toMatch(/ran/);
      // In $( ), a here-document is read as the parser reads it.
      expect(analyzeShell("echo $(cat <<'EOF'\nhello\nEOF\n)", 'bash').some((p) => p.opaque !== undefined)).toBe(false);
    });
  });
});
