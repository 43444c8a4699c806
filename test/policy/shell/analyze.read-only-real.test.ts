/**
 * The programs read-only-shell adopted from Codex's lists, run for real: each line the preset allows, in a throwaway
 * directory with no network (`unshare -n`), must leave the directory tree as it was (files, their content, size,
 * mode, mtime and ctime) and run none of the programs a read-only command might reach for (decompressors, editors,
 * pagers, gpg, stubs on a PATH of its own). Each option the preset refuses must do what its rule says it does (write,
 * or run a program), so the refusal is not a guess; an option the binary here rejects is shown to fail. Needs root
 * (for `unshare -n`); skipped otherwise.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRAMS, type ProgramEntry } from './codex-cases.js';

/** Real programs the lines run (their own and those feeding a pipe). */
const REAL = ['base64', 'expr', 'paste', 'rev', 'numfmt', 'tac', 'file', 'uniq', 'git', 'cat'];
/** Programs a read-only command must not run: each is a stub that logs its run. */
const STUBS = [
  'gzip',
  'bzip2',
  'xz',
  'lzma',
  'zstd',
  'lzip',
  'lrzip',
  'lz4',
  'uncompress',
  'compress',
  '7z',
  'brotli',
  'gpg',
  'gpgsm',
  'less',
  'more',
  'pager',
  'vi',
  'vim',
  'nano',
  'editor',
];

function whereIs(program: string): string | undefined {
  const found = spawnSync('/bin/sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).stdout.trim();
  return found.startsWith('/') ? found : undefined;
}

const unshare = whereIs('unshare');
const canRun =
  process.getuid?.() === 0 &&
  unshare !== undefined &&
  REAL.every((p) => whereIs(p) !== undefined) &&
  spawnSync(unshare, ['-n', '--', 'true']).status === 0;

/** Every entry under `dir`: type, mode and, for a file, size, mtime, ctime and content hash (not directory times). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (path: string, name: string): void => {
    const stat = lstatSync(path, { bigint: true });
    if (stat.isDirectory()) {
      out.set(name, `dir ${stat.mode}`);
      for (const entry of readdirSync(path)) walk(join(path, entry), `${name}/${entry}`);
    } else if (stat.isFile()) {
      const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
      out.set(name, `file ${stat.mode} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs} ${hash}`);
    } else out.set(name, `other ${stat.mode}`);
  };
  walk(dir, '.');
  return out;
}

function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).sort();
}

/** What one line did. */
interface Outcome {
  readonly status: number | null;
  readonly changed: readonly string[];
  readonly ran: string;
  readonly stderr: string;
}

let base = '';
let caseNumber = 0;

function write(path: string, text: string | Buffer): void {
  writeFileSync(path, text);
}

/** Text files for the coreutils, file and its magic. */
function textFixture(dir: string): void {
  mkdirSync(dir);
  write(join(dir, 'a.txt'), 'b\na\na\n3 x\n10 y\n');
  write(join(dir, 'b.txt'), '1,2,3\n');
  write(join(dir, 'b64.txt'), 'aGVsbG8K\n');
  write(join(dir, 'nums.txt'), 'name size\nx 1024\ny 2048\n');
  write(join(dir, 'magic'), '0\tstring\thello\thello text\n');
  write(join(dir, 'list.txt'), 'a.txt\nb.txt\n');
  // A compress(1) header: the library hands this format to an outside decompressor.
  write(join(dir, 'a.Z'), Buffer.from([0x1f, 0x9d, 0x90, 0x61, 0x62, 0x63, 0x64]));
}

function git(dir: string, ...args: string[]): void {
  const run = spawnSync('git', args, { cwd: dir, env: setupEnv(), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} | ${run.stderr}`);
}

function setupEnv(): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/bin:/bin',
    HOME: join(base, 'home'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@example.org',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@example.org',
  };
}

/**
 * A repository: main with two commits, `feature` at the first (its upstream origin/main), a remote-tracking
 * origin/main, an untracked g.txt, and submodule.propagateBranches on (so --recurse-submodules creates).
 */
function gitFixture(dir: string): void {
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  write(join(dir, 'f.txt'), 'one\n');
  git(dir, 'add', 'f.txt');
  git(dir, 'commit', '-q', '-m', 'one');
  git(dir, 'branch', 'feature');
  write(join(dir, 'f.txt'), 'one\ntwo\n');
  git(dir, 'commit', '-q', '-a', '-m', 'two');
  git(dir, 'config', 'remote.origin.url', '/nonexistent');
  git(dir, 'config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*');
  git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  git(dir, 'config', 'branch.feature.remote', 'origin');
  git(dir, 'config', 'branch.feature.merge', 'refs/heads/main');
  git(dir, 'config', 'submodule.propagateBranches', 'true');
  git(dir, 'status', '--short');
  write(join(dir, 'g.txt'), 'one\ntwo\nthree\n');
}

/** Runs `line` in a fresh copy of the program's fixture, with no network, and reports what it did. */
function runLine(entry: ProgramEntry, line: string): Outcome {
  caseNumber += 1;
  const work = join(base, `case-${caseNumber}`);
  const temp = join(base, `tmp-${caseNumber}`);
  cpSync(join(base, entry.program.startsWith('git ') ? 'git-fixture' : 'text-fixture'), work, { recursive: true });
  mkdirSync(temp);
  const log = join(base, 'ran.log');
  rmSync(log, { force: true });
  const before = new Map([...snapshot(work)].concat([...snapshot(temp)].map(([k, v]) => [`tmp${k}`, v])));
  const run = spawnSync(unshare ?? 'unshare', ['-n', '--', '/bin/bash', '-c', line], {
    cwd: work,
    encoding: 'utf8',
    input: '',
    timeout: 5000,
    env: {
      PATH: join(base, 'bin'),
      HOME: join(base, 'home'),
      TMPDIR: temp,
      LANG: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_EDITOR: join(base, 'bin', 'editor'),
      GIT_PAGER: join(base, 'bin', 'pager'),
      PAGER: join(base, 'bin', 'pager'),
    },
  });
  if (run.error !== undefined) throw run.error;
  const after = new Map([...snapshot(work)].concat([...snapshot(temp)].map(([k, v]) => [`tmp${k}`, v])));
  return {
    status: run.status,
    changed: differences(before, after),
    ran: existsSync(log) ? readFileSync(log, 'utf8') : '',
    stderr: run.stderr,
  };
}

describe('the programs read-only-shell adopted from Codex', () => {
  describe.skipIf(!canRun)('when each runs against its real binary (root only: unshare -n)', () => {
    beforeAll(() => {
      base = mkdtempSync(join(tmpdir(), 'gate-audit-real-'));
      mkdirSync(join(base, 'home'));
      mkdirSync(join(base, 'bin'));
      for (const program of REAL) symlinkSync(whereIs(program) ?? '', join(base, 'bin', program));
      for (const stub of STUBS) {
        const path = join(base, 'bin', stub);
        writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "${stub} $*" >> '${join(base, 'ran.log')}'\n`);
        chmodSync(path, 0o755);
      }
      textFixture(join(base, 'text-fixture'));
      gitFixture(join(base, 'git-fixture'));
    });
    afterAll(() => {
      if (base !== '') rmSync(base, { recursive: true, force: true });
    });

    const adopted = PROGRAMS.filter((p) => p.allowed.length > 0);

    it('has every adopted program and refused option of codex-cases.ts to run', () => {
      expect(adopted.map((p) => p.program).sort()).toEqual(
        ['base64', 'expr', 'file', 'git blame', 'git branch', 'numfmt', 'paste', 'rev', 'tac', 'uniq'].sort(),
      );
    });

    it.each(adopted.map((p) => [p.program, p] as const))(
      '%s: the allowed lines write nothing and run nothing else',
      (_, entry) => {
        const wrong = entry.allowed.flatMap((allowed) => {
          const { line, exits } = typeof allowed === 'string' ? { line: allowed, exits: 0 } : allowed;
          const got = runLine(entry, line);
          const problems = [
            ...(got.status === exits ? [] : [`exit ${got.status} (expected ${exits}): ${got.stderr.trim()}`]),
            ...got.changed.map((path) => `changed ${path}`),
            ...(got.ran === '' ? [] : [`ran ${got.ran.trim()}`]),
          ];
          return problems.map((p) => `${JSON.stringify(line)}: ${p}`);
        });
        expect(wrong).toEqual([]);
      },
    );

    const refusing = adopted.filter((p) => p.refused.length > 0);
    it.each(refusing.map((p) => [p.program, p] as const))(
      '%s: each refused option does what its rule says (writes, runs, or fails here)',
      (_, entry) => {
        const wrong = entry.refused.flatMap((refusal) => {
          const got = runLine(entry, refusal.line);
          const ok =
            refusal.effect === 'writes'
              ? got.changed.length > 0
              : refusal.effect === 'runs'
                ? got.ran !== ''
                : got.status !== 0 && got.changed.length === 0 && got.ran === '';
          return ok
            ? []
            : [
                `${JSON.stringify(refusal.line)} (${refusal.effect}): exit ${got.status}, changed [${got.changed.join(', ')}], ran [${got.ran.trim()}] ${got.stderr.trim()}`,
              ];
        });
        expect(wrong).toEqual([]);
      },
    );

    it('sees a write and a run (the checks can fail)', () => {
      const text = adopted.find((p) => p.program === 'tac');
      if (text === undefined) throw new Error('no tac entry');
      expect(runLine(text, 'cat a.txt > copy.txt').changed).toEqual(['./copy.txt']);
      expect(runLine(text, 'gzip -d a.Z').ran).toBe('gzip -d a.Z\n');
    });
  });
});
