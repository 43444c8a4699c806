/**
 * Shell conditions (`src/policy/shell/condition.ts`) by what they decide: `allFlags`, the end of options (`--`,
 * which `find`'s expression ignores), the first operand after `--`, and programs named by path.
 *
 * Surviving mutants (`npm run mutation`), each equivalent:
 *
 * - `allow && part.program.includes('/') ? YES : names.has(name)` (→ `names.has(name)`: a path an allow
 * lets through equals a listed path, whose base name is listed too; → without `allow &&`: a rule naming programs
 * is only ever asked about parts whose program has one of their base names, see the index in `compile.ts`).
 */
import { describe, expect, it } from 'vitest';
import { type Gate, policyGate } from '../../../src/index.js';
import { bashVerdicts } from '../../helpers/shell.js';

function gate(verdict: 'allow' | 'deny', shell: Record<string, unknown>): Gate {
  return policyGate({
    version: 1,
    default: verdict === 'deny' ? 'allow' : 'deny',
    rules: [{ id: 'r', tools: ['bash'], when: [{ arg: 'command', shell }], verdict }],
  });
}

const verdicts = bashVerdicts;

describe('shell conditions', () => {
  describe('when a rule lists allFlags', () => {
    it('allFlags holds only when every listed flag is given, in any form of short flags', () => {
      expect(
        verdicts(gate('deny', { program: ['rm'], allFlags: ['-r', '-f'] }), [
          'rm -rf /x',
          'rm -fr /x',
          'rm -r -f /x',
          'rm -r /x',
          'rm -f /x',
          'rm /x',
          'rm -- -rf',
        ]),
      ).toEqual({
        'rm -rf /x': 'deny',
        'rm -fr /x': 'deny',
        'rm -r -f /x': 'deny',
        'rm -r /x': 'allow',
        'rm -f /x': 'allow',
        'rm /x': 'allow',
        'rm -- -rf': 'allow',
      });
    });
  });

  describe('when a line ends its options with --', () => {
    it('a word after -- is an operand, not a flag, except in find, whose expression goes on after it', () => {
      expect(
        verdicts(gate('deny', { program: ['rm'], anyFlag: ['-r'] }), ['rm -r x', 'rm -- -r', 'rm x -- -r']),
      ).toEqual({ 'rm -r x': 'deny', 'rm -- -r': 'allow', 'rm x -- -r': 'allow' });
      expect(
        verdicts(gate('deny', { program: ['find'], anyFlag: ['-delete'] }), ['find -- . -delete', 'find . -name x']),
      ).toEqual({ 'find -- . -delete': 'deny', 'find . -name x': 'allow' });
    });

    it('the first operand is the word after --; none after it is none; an unknown one or an option before it may be it', () => {
      expect(
        verdicts(gate('deny', { program: ['git'], args: { first: '^push$' } }), [
          'git push',
          'git -- push',
          'git -- pull',
          'git --',
          'git -- "$X"',
          'git -C d push',
          'git --no-pager push',
        ]),
      ).toEqual({
        'git push': 'deny',
        'git -- push': 'deny',
        'git -- pull': 'allow',
        'git --': 'allow',
        'git -- "$X"': 'deny',
        'git -C d push': 'deny',
        'git --no-pager push': 'deny',
      });
    });
  });

  describe('when a rule names a program by path', () => {
    it('an allow naming a program by path allows that path (normalised) and the bare name, not another path', () => {
      expect(
        verdicts(gate('allow', { program: ['/usr/bin/ls'] }), [
          '/usr/bin/ls x',
          '/usr/bin/../bin/ls x',
          'ls x',
          '/bin/ls x',
          'cd "$D" && /usr/bin/ls',
        ]),
      ).toEqual({
        '/usr/bin/ls x': 'allow',
        '/usr/bin/../bin/ls x': 'allow',
        'ls x': 'allow',
        '/bin/ls x': 'deny',
        'cd "$D" && /usr/bin/ls': 'deny',
      });
      // Named without a path, an allow does not cover a path (it could be any file called ls); a deny does.
      expect(verdicts(gate('allow', { program: ['ls'] }), ['ls x', '/usr/bin/ls x', 'cat x'])).toEqual({
        'ls x': 'allow',
        '/usr/bin/ls x': 'deny',
        'cat x': 'deny',
      });
      expect(verdicts(gate('deny', { program: ['ls'] }), ['ls x', '/usr/bin/ls x', 'cat x', '/bin/cat x'])).toEqual({
        'ls x': 'deny',
        '/usr/bin/ls x': 'deny',
        'cat x': 'allow',
        '/bin/cat x': 'allow',
      });
      // A path in the policy is normalised too.
      expect(verdicts(gate('allow', { program: ['/usr/bin/../bin/ls'] }), ['/usr/bin/ls x', '/bin/ls x'])).toEqual({
        '/usr/bin/ls x': 'allow',
        '/bin/ls x': 'deny',
      });
    });

    it('a program path is not proven where the command runs in another directory or under another root', () => {
      // Each wrapper is allowed by name, so only where its command runs decides. `chroot DIR /usr/bin/ls` runs
      // DIR/usr/bin/ls, and `sudo -R` likewise; `env -C` and `sudo -D` leave the program alone but change the
      // directory the line's relative paths mean, which the analysis does not tell apart.
      const g = gate('allow', { program: ['/usr/bin/ls', 'chroot', 'sudo', 'env'] });
      expect(
        verdicts(g, [
          '/usr/bin/ls',
          'chroot /jail /usr/bin/ls',
          'chroot --skip-chdir / /usr/bin/ls',
          'sudo /usr/bin/ls',
          'sudo -R /jail /usr/bin/ls',
          'sudo -D /srv /usr/bin/ls',
          'env /usr/bin/ls',
          'env -C /srv /usr/bin/ls',
        ]),
      ).toEqual({
        '/usr/bin/ls': 'allow',
        'chroot /jail /usr/bin/ls': 'deny',
        'chroot --skip-chdir / /usr/bin/ls': 'deny',
        'sudo /usr/bin/ls': 'allow',
        'sudo -R /jail /usr/bin/ls': 'deny',
        'sudo -D /srv /usr/bin/ls': 'deny',
        'env /usr/bin/ls': 'allow',
        'env -C /srv /usr/bin/ls': 'deny',
      });
    });
  });

  describe('when a rule matches the path a line writes to', () => {
    it('writesTo.matches sees the written path resolved too: an allow needs both forms, a deny either', () => {
      const allowTmp = gate('allow', { program: ['echo'], writesTo: { matches: '^/tmp/' } });
      expect(
        verdicts(allowTmp, [
          'echo hi > /tmp/x',
          'echo hi > /tmp/../etc/x',
          'echo hi > /tmp/a/../../etc/x',
          'echo hi > /tmp//x',
          'echo hi > /etc/x',
        ]),
      ).toEqual({
        'echo hi > /tmp/x': 'allow',
        'echo hi > /tmp/../etc/x': 'deny',
        'echo hi > /tmp/a/../../etc/x': 'deny',
        'echo hi > /tmp//x': 'allow',
        'echo hi > /etc/x': 'deny',
      });
      const denyEtc = gate('deny', { writesTo: { matches: '^/etc/' } });
      expect(
        verdicts(denyEtc, ['echo hi > /tmp/../etc/x', 'echo hi > //etc/x', 'echo hi > /etc/./x', 'echo hi > /tmp/x']),
      ).toEqual({
        'echo hi > /tmp/../etc/x': 'deny',
        'echo hi > //etc/x': 'deny',
        'echo hi > /etc/./x': 'deny',
        'echo hi > /tmp/x': 'allow',
      });
      // A relative path climbing above where it starts resolves to nothing known: never proven, refused.
      const allowOut = gate('allow', { program: ['echo'], writesTo: { matches: '^out/' } });
      expect(verdicts(allowOut, ['echo hi > out/x', 'echo hi > out/../x', 'echo hi > out/../../x'])).toEqual({
        'echo hi > out/x': 'allow',
        'echo hi > out/../x': 'deny',
        'echo hi > out/../../x': 'deny',
      });
    });
  });
});
