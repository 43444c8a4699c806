/**
 * Every entry of every program table, checked through the analysis itself: for each entry a line whose parts
 * show the fact the entry states (a wrapper's command is a part, an option takes a value, a file operand keeps
 * a reader off standard input, …), so a wrong or dead entry fails here by name.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeShell, basename, type ShellPart } from '../../../../src/policy/shell/analyze.js';
import {
  CHANGES_DIRECTORY,
  CODE_BUILTINS,
  EARLY_EXIT,
  FAMILIES,
  FILE_READERS,
  FIND_ACTIONS,
  familyPrograms,
  GIT_GLOBAL_FLAGS,
  GIT_NO_INPUT,
  INPUT_RULES,
  INTERPRETERS,
  NAME_BUILTINS,
  NO_INPUT,
  type OptionSpec,
  PART_READERS,
  SHELL_LONG,
  SHELLS,
  STATE_BUILTINS,
  WRAPPERS,
  type WrapperSpec,
} from '../../../../src/policy/shell/programs/index.js';

/** A line read as the bash tool hands it over, with the questions the tests ask of its parts. */
function read(line: string) {
  const parts: readonly ShellPart[] = analyzeShell(line, 'bash');
  const named = (program: string): ShellPart[] =>
    parts.filter((p) => p.program !== undefined && basename(p.program) === program);
  return {
    line,
    parts,
    /** The parts that run `rm -rf /`. */
    rm: parts.filter((p) => p.program === 'rm' && p.args.join(' ') === '-rf /'),
    named,
    /** The reason of the first part that runs code the analysis cannot see. */
    code: parts.find((p) => p.opaque?.kind === 'code')?.opaque?.reason,
  };
}

/** The words after which the persistent bash tool's next line would be read by the command instead of bash. */
const READS_INPUT = /may read (part of )?standard input/;
const READS_PART = /may read part of standard input/;

/** Whether the analysis takes `command` to read standard input: it is opaque with more lines after it. */
function readsInput(command: string): boolean {
  return read(`${command}\necho next`).parts.some((p) => READS_INPUT.test(p.opaque?.reason ?? ''));
}

/** One option of a table, and the words that give it (`v` as its value when it takes one). */
interface OptionProbe {
  readonly option: string;
  readonly kind: 'value' | 'flag' | 'attached' | 'opaque' | 'optional';
  readonly words: string;
}

/** Every option an `OptionSpec` lists, short and long. */
function optionProbes(spec: OptionSpec | undefined): OptionProbe[] {
  const short = (letters: string | undefined, kind: OptionProbe['kind']): OptionProbe[] =>
    [...(letters ?? '')].map((letter) => ({
      option: `-${letter}`,
      kind,
      words: kind === 'value' ? `-${letter} v` : kind === 'attached' ? `-${letter}v` : `-${letter}`,
    }));
  const long = Object.entries(spec?.long ?? {}).map(
    ([name, kind]): OptionProbe => ({
      option: `--${name}`,
      kind,
      words: kind === 'value' ? `--${name} v` : kind === 'optional' ? `--${name}=v` : `--${name}`,
    }),
  );
  return [
    ...short(spec?.value, 'value'),
    ...short(spec?.flag, 'flag'),
    ...short(spec?.attached, 'attached'),
    ...short(spec?.opaque, 'opaque'),
    ...long,
  ];
}

/** Whether a program is installed here. */
function has(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
}

/** The program word of a wrapper: bash's `time` keyword is not the program, `\time` is. */
function programWord(name: string): string {
  return name === 'time' ? '\\time' : name;
}

/** The operands a wrapper takes before its command (`timeout 1`, `chroot 1`). */
function leading(spec: WrapperSpec): string {
  return ' 1'.repeat(spec.leading ?? 0);
}

describe('the program tables', () => {
  describe('when the program families are read', () => {
    it('each has a title, a one-line summary and programs', () => {
      for (const family of FAMILIES) {
        expect(family.title).not.toBe('');
        expect(family.summary, family.title).not.toMatch(/\n/);
        expect(familyPrograms(family).length, family.title).toBeGreaterThan(0);
      }
    });

    it("hold each program's facts in one family", () => {
      const names = FAMILIES.flatMap(familyPrograms);
      expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    });

    it('are the whole of the tables the analysis reads', () => {
      const union = (pick: (f: (typeof FAMILIES)[number]) => object | readonly string[] | undefined): string[] =>
        FAMILIES.flatMap((f) => {
          const table = pick(f);
          return Array.isArray(table) ? (table as string[]) : Object.keys(table ?? {});
        }).sort();
      expect(Object.keys(WRAPPERS).sort()).toEqual(union((f) => f.wrappers));
      expect(Object.keys(SHELLS).sort()).toEqual(union((f) => f.shells));
      expect(Object.keys(INTERPRETERS).sort()).toEqual(union((f) => f.interpreters));
      expect(Object.keys(FILE_READERS).sort()).toEqual(union((f) => f.fileReaders));
      expect(Object.keys(INPUT_RULES).sort()).toEqual(union((f) => f.inputRules));
      expect(Object.keys(EARLY_EXIT).sort()).toEqual(union((f) => f.earlyExit));
      expect(Object.keys(STATE_BUILTINS).sort()).toEqual(union((f) => f.stateBuiltins));
      expect(Object.keys(CODE_BUILTINS).sort()).toEqual(union((f) => f.codeBuiltins));
      expect([...NO_INPUT].sort()).toEqual(union((f) => f.noInput));
      expect([...PART_READERS].sort()).toEqual(union((f) => f.partReaders));
    });
  });

  describe('when WRAPPERS lists a wrapper, what it runs is a part of its own', () => {
    // Standard input from a file: whether a wrapper (`xargs`) may take the bash tool's script is for PART_READERS.
    const wrapped = (line: string) => read(`${line} </dev/null`);
    /**
     * Each wrapper as its manual writes it, and what the line runs: `rm -rf /`, or code no one can see. Written
     * apart from the table, so an entry read wrong (an option's value, an operand before the command) fails here.
     */
    const usage: Readonly<Record<string, readonly [line: string, runs: 'rm' | 'code']>> = {
      nice: ['nice -n 5 rm -rf /', 'rm'],
      nohup: ['nohup rm -rf /', 'rm'],
      timeout: ['timeout -s KILL 5 rm -rf /', 'rm'],
      time: ['\\time -o times.txt rm -rf /', 'rm'],
      stdbuf: ['stdbuf -o L rm -rf /', 'rm'],
      env: ['env -u HOME LANG=C rm -rf /', 'rm'],
      setsid: ['setsid -f rm -rf /', 'rm'],
      ionice: ['ionice -c 3 -n 7 rm -rf /', 'rm'],
      taskset: ['taskset -c 0 rm -rf /', 'rm'],
      chrt: ['chrt -f 10 rm -rf /', 'rm'],
      chroot: ['chroot --userspec=1:1 /jail rm -rf /', 'rm'],
      busybox: ['busybox rm -rf /', 'rm'],
      script: ["script -q -c 'rm -rf /' /dev/null", 'rm'],
      flock: ['flock -w 5 /tmp/lock rm -rf /', 'rm'],
      watch: ['watch -n 5 rm -rf /', 'rm'],
      unbuffer: ['unbuffer rm -rf /', 'rm'],
      fakeroot: ['fakeroot rm -rf /', 'rm'],
      catchsegv: ['catchsegv rm -rf /', 'rm'],
      torsocks: ['torsocks rm -rf /', 'rm'],
      proxychains: ['proxychains rm -rf /', 'rm'],
      proxychains4: ['proxychains4 rm -rf /', 'rm'],
      'dbus-run-session': ['dbus-run-session rm -rf /', 'rm'],
      nsenter: ['nsenter rm -rf /', 'rm'],
      unshare: ['unshare rm -rf /', 'rm'],
      strace: ['strace rm -rf /', 'rm'],
      ltrace: ['ltrace rm -rf /', 'rm'],
      valgrind: ['valgrind rm -rf /', 'rm'],
      numactl: ['numactl rm -rf /', 'rm'],
      firejail: ['firejail rm -rf /', 'rm'],
      proot: ['proot rm -rf /', 'rm'],
      rlwrap: ['rlwrap rm -rf /', 'rm'],
      noglob: ['noglob rm -rf /', 'rm'],
      nocorrect: ['nocorrect rm -rf /', 'rm'],
      '-': ['- rm -rf /', 'rm'],
      at: ['at now', 'code'],
      batch: ['batch', 'code'],
      parallel: ['parallel rm ::: -rf /', 'code'],
      sudo: ['sudo -u root -E rm -rf /', 'rm'],
      doas: ['doas -u root rm -rf /', 'rm'],
      su: ["su -c 'rm -rf /' root", 'rm'],
      runuser: ['runuser -u root -- rm -rf /', 'rm'],
      pkexec: ['pkexec rm -rf /', 'rm'],
      sg: ["sg wheel 'rm -rf /'", 'code'],
      newgrp: ['newgrp wheel', 'code'],
      xargs: ['xargs -n 1 -P 4 rm -rf /', 'rm'],
      find: ["find . -name '*.tmp' -exec rm -rf / \\;", 'rm'],
      command: ['command -p rm -rf /', 'rm'],
      builtin: ['builtin rm -rf /', 'rm'],
      exec: ['exec -a name rm -rf /', 'rm'],
    };

    it('has a usage line for every wrapper', () => {
      expect(Object.keys(usage).sort()).toEqual(Object.keys(WRAPPERS).sort());
    });

    it.each(Object.keys(WRAPPERS))('%s as its manual writes it', (name) => {
      const [line, runs] = usage[name] ?? ['', 'rm'];
      const parts = wrapped(line);
      if (runs === 'rm') expect([parts.rm.length > 0, parts.code], line).toEqual([true, undefined]);
      else expect([parts.rm, parts.code !== undefined], line).toEqual([[], true]);
    });

    const program = Object.entries(WRAPPERS).filter(([, spec]) => spec.kind === 'program' || spec.kind === 'join');

    it.each(program)('%s runs the command after its options and operands', (name, spec) => {
      const word = programWord(name);
      const plain = wrapped(`${word}${leading(spec)} rm -rf /`);
      expect(plain.rm, plain.line).toHaveLength(1);
      // A wrapper that runs its command under another root: a path the command names is not the one written.
      expect(plain.rm[0]?.cwdUnknown, plain.line).toBe(spec.changesRoot === true);

      for (const probe of optionProbes(spec.options)) {
        const line = wrapped(`${word} ${probe.words}${leading(spec)} rm -rf /`);
        if (probe.kind === 'opaque') {
          expect(line.code, line.line).toMatch(new RegExp(`^${name}: option`));
        } else if (spec.noCommandOptions?.includes(probe.option) === true) {
          expect([line.rm, line.code], line.line).toEqual([[], undefined]);
        } else {
          expect(line.rm, line.line).toHaveLength(1);
          expect(line.rm[0]?.cwdUnknown, line.line).toBe(
            spec.changesRoot === true || spec.stateOptions?.includes(probe.option) === true,
          );
        }
        if (spec.writeOptions?.includes(probe.option) === true) {
          expect(
            line.named(name).some((p) => p.writes.includes('v')),
            line.line,
          ).toBe(true);
        }
      }

      // `NAME=VALUE` words before the command are assignments only for `env`-like wrappers (and in the script `watch`
      // joins its words into).
      const assigned = wrapped(`${word} A=1${leading(spec)} rm -rf /`);
      expect(
        assigned.parts.some((p) => p.program === 'rm' && p.assigns.includes('A')),
        assigned.line,
      ).toBe(spec.options?.env === true || spec.kind === 'join');
      // `-N` is an option only for `nice`-like wrappers.
      const digits = wrapped(`${word} -5${leading(spec)} rm -rf /`);
      expect(digits.rm.length, digits.line).toBe(spec.options?.digits === true ? 1 : 0);
      if (spec.options?.dash === true) expect(wrapped(`${word} -${leading(spec)} rm -rf /`).rm).toHaveLength(1);

      // Without a command: a shell reading its input, or nothing that runs code.
      const empty = wrapped(`${word}${leading(spec)}`);
      if (spec.shellWhenEmpty === true) expect(empty.code, empty.line).toMatch(/runs a shell reading its input/);
      else expect(empty.code, empty.line).toBeUndefined();
    });

    const script = Object.entries(WRAPPERS).filter(([, spec]) => spec.kind === 'script');

    it.each(script)('%s runs its -c script as a shell would (as bash and as sh)', (name, spec) => {
      for (const option of spec.scriptOptions ?? []) {
        const line = wrapped(`${name}${leading(spec)} ${option} 'rm -rf /'`);
        expect(line.rm, line.line).toHaveLength(2);
      }
      for (const probe of optionProbes(spec.options)) {
        if (spec.scriptOptions?.includes(probe.option) === true) continue;
        const line = wrapped(`${name} ${probe.words}${leading(spec)} -c 'rm -rf /'`);
        if (probe.option === '-s' || probe.option === '--shell') {
          // A shell named on the line runs the script, in a language not known.
          expect(line.code, line.line).toMatch(/a shell the line chooses/);
        } else {
          expect(line.rm, line.line).toHaveLength(2);
        }
        if (spec.writeOptions?.includes(probe.option) === true) {
          expect(line.named(name)[0]?.writes, line.line).toContain('v');
        }
      }
      if (spec.options?.dash === true) expect(wrapped(`${name} - -c 'rm -rf /'`).rm).toHaveLength(2);

      const empty = wrapped(`${name}${leading(spec)}`);
      if (spec.scriptOnly === true) expect(empty.code, empty.line).toMatch(/starts an interactive shell/);
      else if (spec.userOperands !== undefined)
        expect(empty.code, empty.line).toMatch(/starts a shell reading its input/);
      else expect(empty.code, empty.line).toBeUndefined();

      if (spec.userOperands !== undefined) {
        const words = wrapped(`${name} root x y`);
        expect(words.code, words.line).toMatch(/passes the words after the user to the user's shell/);
        for (const option of spec.userOperands.unless ?? []) {
          expect(wrapped(`${name} ${option} root rm -rf /`).rm).toHaveLength(1);
        }
      } else if (spec.scriptOnly !== true) {
        // Neither a user nor only a script: the command after the operands runs (`flock FILE CMD`).
        expect(wrapped(`${name}${leading(spec)} rm -rf /`).rm).toHaveLength(1);
      }
      if (spec.writesOperand !== undefined) {
        expect(wrapped(`${name} -c 'rm -rf /'`).named(name)[0]?.writes).toContain(spec.writesOperand);
        expect(wrapped(`${name} -c 'rm -rf /' out`).named(name)[0]?.writes).toContain('out');
      }
    });

    const opaque = Object.entries(WRAPPERS).filter(([, spec]) => spec.kind === 'opaque');

    it.each(opaque)('%s runs code no one can see', (name, spec) => {
      const line = wrapped(`${name} rm -rf /`);
      expect(line.named(name)[0]?.opaque).toEqual({ kind: 'code', reason: spec.reason });
    });

    const find = Object.entries(WRAPPERS).filter(([, spec]) => spec.kind === 'find');

    it.each(find)('%s runs the command of each exec action', (name) => {
      // The actions find's manual lists as running a command, and the table's.
      for (const action of new Set(['-exec', '-execdir', '-ok', '-okdir', ...FIND_ACTIONS])) {
        for (const end of ['\\;', '+']) {
          const line = wrapped(`${name} . -name x ${action} rm -rf / ${end}`);
          expect(line.rm, line.line).toHaveLength(1);
          expect(line.rm[0]?.moreArgs, line.line).toBe(true);
        }
      }
    });

    it.each(Object.entries(WRAPPERS))('%s gives meaning only to options it has', (name, spec) => {
      const known = optionProbes(spec.options).map((probe) => probe.option);
      const named = [
        ...(spec.noCommandOptions ?? []),
        ...(spec.stateOptions ?? []),
        ...(spec.writeOptions ?? []),
        ...(spec.scriptOptions ?? []),
        ...(spec.userOperands?.unless ?? []),
      ];
      expect(named.filter((option) => !known.includes(option))).toEqual([]);
    });

    const nothingRun = Object.entries(WRAPPERS).filter(
      ([name, spec]) => spec.noCommandOptions !== undefined && has(name),
    );

    it.each(nothingRun)(
      '%s runs nothing given an option the table says runs nothing (the real program)',
      (name, spec) => {
        for (const probe of optionProbes(spec.options)) {
          if (spec.noCommandOptions?.includes(probe.option) !== true) continue;
          const words = probe.kind === 'value' ? `${probe.option} 1` : probe.option;
          const line = `${name} ${words}${leading(spec)} echo RAN`;
          expect(spawnSync('sh', ['-c', line], { encoding: 'utf8' }).stdout, line).not.toContain('RAN');
          expect(wrapped(line).named('echo'), line).toEqual([]);
        }
      },
    );

    it('has no wrapper of another kind', () => {
      const kinds = new Set(Object.values(WRAPPERS).map((spec) => spec.kind));
      expect([...kinds].sort()).toEqual(['find', 'join', 'opaque', 'program', 'script']);
    });
  });

  describe('when SHELLS lists a shell, a literal -c script is read in its dialect', () => {
    it.each(Object.entries(SHELLS))('%s', (name, spec) => {
      const script = read(`${name} -c 'rm -rf /'`);
      if (spec.dialect === undefined) {
        expect([script.rm, script.code], script.line).toEqual([
          [],
          `${name} runs a language this analysis cannot read`,
        ]);
        return;
      }
      expect(script.rm, script.line).toHaveLength(1);
      const broken = read(`${name} -c 'if'`);
      expect(broken.code, broken.line).toMatch(`does not parse as ${spec.dialect} `);
      // `=ls` expands to a path in zsh (and zsh's globs run code): only zsh's scripts holding one are opaque.
      const zsh = read(`${name} -c 'echo =ls'`);
      expect(zsh.code !== undefined, zsh.line).toBe(spec.zsh === true);
    });

    it.each(Object.entries(SHELL_LONG))('bash --%s (%s)', (option, kind) => {
      const words = kind === 'value' ? `--${option} v` : `--${option}`;
      expect(read(`bash ${words} -c 'rm -rf /'`).rm).toHaveLength(1);
      // Read the other way, a script file would run instead of -c.
      const other = read(`bash ${kind === 'value' ? `--${option}` : `--${option} v`} -c 'rm -rf /'`);
      expect(other.code, other.line).toMatch(/runs a script file/);
    });
  });

  describe('when INTERPRETERS lists an interpreter, code from its input is opaque, inline code and script files are judged by their words', () => {
    /** Each interpreter's option for code on the command line, from its manual; none where the table knows none. */
    const python = '-c';
    const inline: Readonly<Record<string, string | undefined>> = {
      python,
      python2: python,
      python3: python,
      pypy: python,
      pypy3: python,
      ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`python3.${i}`, python])),
      node: '-e',
      nodejs: '-e',
      bun: undefined,
      deno: undefined,
      perl: '-e',
      ruby: '-e',
      irb: undefined,
      php: '-r',
      lua: '-e',
      luajit: '-e',
      'lua5.1': '-e',
      'lua5.3': '-e',
      'lua5.4': '-e',
      tclsh: undefined,
      wish: undefined,
      Rscript: '-e',
      R: undefined,
      osascript: '-e',
      pwsh: undefined,
      powershell: undefined,
      jshell: undefined,
      gdb: undefined,
    };

    it('knows the inline-code option of every interpreter', () => {
      expect(Object.keys(inline).sort()).toEqual(Object.keys(INTERPRETERS).sort());
    });

    it.each(Object.keys(INTERPRETERS))('%s given code inline', (name) => {
      const option = inline[name];
      if (option === undefined) {
        // No option of it is known, so code given on the command line cannot be told from code it reads.
        expect(read(`${name} -e x`).code).toBe(`${name}: option -e is not known`);
      } else {
        expect(read(`${name} ${option} x`).code).toBeUndefined();
      }
    });

    it.each(Object.entries(INTERPRETERS))('%s', (name, spec) => {
      for (const line of [name, `${name} -`]) expect(read(line).code, line).toMatch(/reads code from its input/);
      expect(read(`${name} script`).code).toBeUndefined();
      const probes = optionProbes(spec.options);
      for (const probe of probes) {
        const alone = read(`${name} ${probe.words}`);
        const withScript = read(`${name} ${probe.words} script`);
        if (probe.kind === 'opaque') {
          expect(withScript.code, withScript.line).toBe(`${name}: option ${probe.option}`);
        } else if (spec.code.includes(probe.option)) {
          // The code (or a module, or nothing to run) is given inline: nothing is read from the input.
          expect(alone.code, alone.line).toBeUndefined();
        } else {
          expect(alone.code, alone.line).toMatch(/reads code from its input/);
          expect(withScript.code, withScript.line).toBeUndefined();
        }
      }
      for (const option of spec.code) expect(probes.map((p) => p.option)).toContain(option);
      // An option the table does not know may take the code: opaque.
      const unknown = read(`${name} -Z script`);
      expect(unknown.code, unknown.line).toBe(`${name}: option -Z is not known`);
    });
  });

  describe('when NO_INPUT lists a program, a line may go on after it', () => {
    it.each([...NO_INPUT])('%s', (name) => {
      expect(readsInput(`command ${name}`)).toBe(false);
    });

    it('unlike a program that reads its input', () => {
      expect(readsInput('command cat')).toBe(true);
    });
  });

  describe('when FILE_READERS lists a reader given files to read, it leaves standard input alone', () => {
    /**
     * Each reader as its manual writes it, with an option, reading its input; a file operand more, it reads the
     * file. Written apart from the table: an option's value or a pattern option read wrong fails here.
     */
    const usage: Readonly<Record<string, string>> = {
      cat: 'cat -n',
      head: 'head -n 5',
      tail: 'tail -n 5',
      wc: 'wc -l',
      grep: 'grep -m 1 pattern',
      egrep: 'egrep -A 2 pattern',
      fgrep: 'fgrep -C 2 pattern',
      sed: 'sed -e 1d',
      rg: "rg -g '*.ts' pattern",
      awk: "awk -F : '{print $1}'",
      jq: 'jq -r .',
      od: 'od -A x',
      cmp: 'cmp -n 5 a',
      xxd: 'xxd -l 16',
    };

    it('has a usage line for every reader', () => {
      expect(Object.keys(usage).sort()).toEqual(Object.keys(FILE_READERS).sort());
    });

    it.each(Object.keys(FILE_READERS))('%s as its manual writes it', (name) => {
      const line = usage[name] ?? '';
      expect([readsInput(line), readsInput(`${line} file`)], line).toEqual([true, false]);
    });

    it.each(Object.entries(FILE_READERS))('%s', (name, spec) => {
      // A reader with a pattern (or two files to compare) reads its input with one operand fewer.
      const needed = spec.pattern === undefined ? 1 : 2;
      const operands = (n: number): string => ' a'.repeat(n);
      expect(readsInput(`${name}${operands(needed - 1)}`)).toBe(true);
      expect(readsInput(`${name}${operands(needed)}`)).toBe(false);
      expect(readsInput(`${name}${operands(needed - 1)} -`)).toBe(true);
      const known = optionProbes(spec.options).map((probe) => probe.option);
      expect((spec.pattern ?? []).filter((option) => !known.includes(option))).toEqual([]);
      for (const probe of optionProbes(spec.options)) {
        const before = `${name} ${probe.words}`;
        if (probe.kind === 'opaque') {
          expect(readsInput(`${before}${operands(needed)}`), before).toBe(true);
        } else if (probe.kind === 'value') {
          // The value is not a file; an option giving the pattern leaves only files as operands.
          expect(readsInput(`${before}${operands(needed - 1)}`), before).toBe(
            spec.pattern?.includes(probe.option) !== true,
          );
          expect(readsInput(`${before}${operands(needed)}`), before).toBe(false);
        } else {
          expect(readsInput(`${before}${operands(needed - 1)}`), before).toBe(true);
          expect(readsInput(`${before}${operands(needed)}`), before).toBe(false);
        }
      }
    });
  });

  describe('when INPUT_RULES lists a program, its words decide whether it reads standard input', () => {
    const probes: Readonly<Record<string, { readonly leaves: string; readonly reads: string }>> = {
      xargs: { leaves: 'xargs -a f echo', reads: 'xargs echo' },
      dd: { leaves: 'dd if=f of=g', reads: 'dd of=g' },
      git: { leaves: 'git status', reads: 'git apply' },
    };

    it('has a probe for every rule', () => {
      expect(Object.keys(probes).sort()).toEqual(Object.keys(INPUT_RULES).sort());
    });

    it.each(Object.keys(INPUT_RULES))('%s', (name) => {
      const probe = probes[name];
      expect([readsInput(probe?.leaves ?? ''), readsInput(probe?.reads ?? '')]).toEqual([false, true]);
    });

    it.each([...GIT_NO_INPUT])('git %s never reads it (unless told to with --stdin)', (subcommand) => {
      expect([readsInput(`git ${subcommand}`), readsInput(`git ${subcommand} --stdin`)]).toEqual([false, true]);
    });

    it.each([...GIT_GLOBAL_FLAGS])('git %s is a global option that takes no value', (flag) => {
      expect([readsInput(`git ${flag} status`), readsInput(`git ${flag} apply`)]).toEqual([false, true]);
    });
  });

  describe('when PART_READERS lists a program, it may stop reading standard input part-way, which is opaque on its own line', () => {
    it.each([...PART_READERS])('%s', (name) => {
      const alone = read(name);
      const early = EARLY_EXIT[name];
      expect(READS_PART.test(alone.code ?? ''), alone.line).toBe(early === undefined);
      for (const option of early ?? []) {
        const stopping = read(`${name} ${option} x`);
        expect(stopping.code, stopping.line).toMatch(READS_PART);
      }
    });

    it('unlike a program that reads to the end', () => {
      expect(read('cat').code).toBeUndefined();
    });

    it.each(Object.keys(EARLY_EXIT))('%s is a part reader', (name) => {
      expect(PART_READERS.has(name)).toBe(true);
    });
  });

  describe('when STATE_BUILTINS or CODE_BUILTINS lists a builtin, it changes later commands or runs its words', () => {
    it.each(Object.entries(STATE_BUILTINS))('%s %s', (name, why) => {
      for (const line of [name, `command ${name}`]) {
        expect(read(line).named(name)[0]?.opaque, line).toEqual({ kind: 'state', reason: `${name} ${why}` });
      }
      const after = read(`${name} x; ls`).named('ls')[0];
      expect(after?.cwdUnknown).toBe(CHANGES_DIRECTORY.has(name));
      // Operands of the variable builtins are names: anything else may run code.
      const operand = read(`command ${name} a-b`);
      expect(operand.code !== undefined, operand.line).toBe(NAME_BUILTINS.has(name));
    });

    it.each([...CHANGES_DIRECTORY, ...NAME_BUILTINS])('%s is a state builtin', (name) => {
      expect(Object.hasOwn(STATE_BUILTINS, name)).toBe(true);
    });

    it.each(Object.entries(CODE_BUILTINS))('%s %s', (name, why) => {
      expect(read(`command ${name} x`).named(name)[0]?.opaque).toEqual({ kind: 'code', reason: `${name} ${why}` });
    });
  });
});
