/**
 * Programs that run programs or write files by their own options cannot show up through stubs: here each
 * runs for real in the oracle's throwaway root (git, diff, file), with what it would start stubbed (gpg, pr),
 * and the test shows both sides: the form `read-only-shell` allows runs nothing else and writes nothing, and
 * the option it refuses does run a program or write a file, so the refusal is about something real.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Observation, Oracle, oracleOff, oracleSupport } from './oracle.js';
import { PRESETS, verdictOf } from './oracle-check.js';

const readOnly = PRESETS[1]?.gate;

/** A repository whose one commit carries a `gpgsig` header: `git log --show-signature` hands it to gpg. */
function signedRepository(work: string): void {
  const repo = join(work, 'repo');
  mkdirSync(repo);
  const git = (args: string[], input?: string): string =>
    execFileSync('git', ['-C', repo, ...args], {
      encoding: 'utf8',
      input,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, GIT_CONFIG_NOSYSTEM: '1' },
    }).trim();
  git(['init', '-q']);
  writeFileSync(join(repo, 'f'), 'f\n');
  git(['add', 'f']);
  const tree = git(['write-tree']);
  const commit = [
    `tree ${tree}`,
    'author a <a@example.com> 1700000000 +0000',
    'committer a <a@example.com> 1700000000 +0000',
    'gpgsig -----BEGIN PGP SIGNATURE-----',
    ' ',
    ' iQEzBAABCAAdFiEE',
    ' -----END PGP SIGNATURE-----',
    '',
    'signed',
    '',
  ].join('\n');
  const id = git(['hash-object', '-t', 'commit', '-w', '--stdin'], commit);
  git(['update-ref', 'HEAD', id]);
  writeFileSync(join(work, 'left'), 'a\n');
  writeFileSync(join(work, 'right'), 'b\n');
  writeFileSync(join(work, 'magic'), '0\tstring\tgate-audit\tgate-audit test data\n');
}

const support = oracleSupport();

describe('read-only-shell, on programs that run programs or write files', () => {
  describe.skipIf(!support.ok || oracleOff())("when each runs for real in the oracle's throwaway root", () => {
    let oracle: Oracle;
    let seen: Record<string, Observation> = {};
    const lines = [
      'cd repo && git log -1',
      'cd repo && git log --show-signature -1',
      'cd repo && git show --show-signature',
      'cd repo && git log --format=%G? -1',
      'diff left right',
      'diff -l left right',
      'file left',
      'file -C -m magic',
    ];
    beforeAll(async () => {
      oracle = new Oracle({
        stubs: ['gpg', 'gpgsm', 'pr', 'less'],
        real: ['git', 'diff', 'file'],
        seed: signedRepository,
      });
      const observed = await oracle.observeAll(lines.map((line) => ({ line, mode: 'bash' as const })));
      seen = Object.fromEntries(lines.map((line, i) => [line, observed[i] as Observation]));
    }, 60_000);
    afterAll(() => oracle?.dispose());

    const ran = (line: string): string[] => (seen[line]?.runs ?? []).map((r) => r.program);

    it('git runs gpg for --show-signature and a %G format, and not for a plain log', () => {
      expect(ran('cd repo && git log -1')).toEqual(['git']);
      expect(ran('cd repo && git log --show-signature -1')).toContain('gpg');
      expect(ran('cd repo && git show --show-signature')).toContain('gpg');
      expect(ran('cd repo && git log --format=%G? -1')).toContain('gpg');
    });

    it('diff -l runs pr; plain diff runs nothing else', () => {
      expect(ran('diff left right')).toEqual(['diff']);
      expect(ran('diff -l left right')).toContain('pr');
    });

    it('file -C writes a compiled magic file; plain file writes nothing', () => {
      expect(seen['file left']?.writes).toEqual([]);
      expect(seen['file -C -m magic']?.writes).toContain('/work/magic.mgc');
    });

    it('read-only-shell allows exactly the forms that ran nothing else and wrote nothing', () => {
      if (readOnly === undefined) throw new Error('no read-only preset');
      for (const line of lines) {
        const plain = line.replace('cd repo && ', '');
        const harmless =
          ran(line).every((p) => ['git', 'diff', 'file'].includes(p)) && (seen[line]?.writes.length ?? 1) === 0;
        expect({ line: plain, allowed: verdictOf(readOnly, plain, 'bash') === 'allow' }).toEqual({
          line: plain,
          allowed: harmless,
        });
      }
    });
  });
});
