/**
 * Wrappers the option tables used to read wrong, each checked against the real program: what it runs is a
 * part the analysis finds, or the wrapper's part is opaque code.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeShell, basename, type ShellPart } from '../../../../src/policy/shell/analyze.js';

function has(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
}

function bash(line: string): string {
  return spawnSync('bash', ['-c', line], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).stdout;
}

const root = process.getuid?.() === 0;

/** The analysis finds `rm -rf /`, or a part that runs code it cannot see. */
function accounted(parts: readonly ShellPart[]): boolean {
  return parts.some(
    (p) =>
      p.opaque?.kind === 'code' ||
      (p.program !== undefined && basename(p.program) === 'rm' && p.args.join(' ') === '-rf /'),
  );
}

describe('the wrapper tables', () => {
  describe('when a wrapper that starts a shell reading its input is given no command', () => {
    it.each([
      "unshare <<'EOF'\nrm -rf /\nEOF",
      "unshare <<< 'rm -rf /'",
      "echo 'rm -rf /' | unshare",
      "chroot / <<< 'rm -rf /'",
      "fakeroot <<< 'rm -rf /'",
      "pkexec <<< 'rm -rf /'",
      "firejail <<< 'rm -rf /'",
    ])('%j is opaque code', (line) => {
      const parts = analyzeShell(line, 'bash');
      expect(parts.find((p) => p.opaque?.kind === 'code')?.opaque?.reason).toMatch(/runs a shell reading its input/);
    });

    it.runIf(root && has('unshare'))('unshare really runs its input', () => {
      expect(bash("unshare <<< 'echo PWNED'")).toBe('PWNED\n');
    });
  });

  describe('when the command follows a su-style user operand, flock --command or a zsh precommand modifier', () => {
    it.each([
      "runuser root -c 'rm -rf /'",
      "runuser -l root -c 'rm -rf /'",
      "runuser -c 'ls' root -c 'rm -rf /'",
      "flock /tmp/l --command 'rm -rf /'",
      "flock /tmp/l -c 'rm -rf /'",
      "zsh -c 'noglob rm -rf /'",
      "zsh -c 'nocorrect rm -rf /'",
      'runuser -u root -- rm -rf /',
    ])('%j is accounted for', (line) => {
      expect(accounted(analyzeShell(line, 'bash'))).toBe(true);
    });

    it('flock --command, runuser -u and the zsh modifiers put the command in a part', () => {
      for (const line of [
        "flock /tmp/l --command 'rm -rf /'",
        "zsh -c 'noglob rm -rf /'",
        'runuser -u root -- rm -rf /',
      ]) {
        expect(analyzeShell(line, 'bash').some((p) => p.program === 'rm' && p.opaque === undefined)).toBe(true);
      }
    });

    it.runIf(has('flock'))('flock FILE --command runs the command', () => {
      expect(bash("flock /tmp/gate-audit-flock-test --command 'echo PWNED'")).toBe('PWNED\n');
    });

    it.runIf(root && has('runuser'))('runuser USER -c runs the command, and a later -c wins', () => {
      expect(bash("runuser root -c 'echo PWNED'")).toBe('PWNED\n');
      expect(bash("runuser -c 'echo A' root -c 'echo PWNED'")).toBe('PWNED\n');
    });

    it.runIf(has('zsh'))('zsh runs the word after noglob as the program', () => {
      expect(spawnSync('zsh', ['-c', 'noglob echo PWNED'], { encoding: 'utf8' }).stdout).toBe('PWNED\n');
    });
  });
});
