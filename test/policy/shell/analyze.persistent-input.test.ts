/**
 * The persistent bash tool writes each line, then a line of its own (`echo "<sentinel>"`), to one bash's
 * standard input, and bash reads its script from there as it runs. A command that reads that input takes
 * what follows its own line: the rest of the call's line, or part of the tool's line, which leaves bash
 * inside a quote for the next call. Such a line is opaque (refused); bash itself, fed through a pipe, shows
 * why.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../src/policy/shell/analyze.js';

/** Runs `script` the way the bash tool does: written to the standard input of `bash`. */
function piped(script: string): string {
  return spawnSync('bash', [], { input: script, encoding: 'utf8' }).stdout;
}

function reason(line: string): string | undefined {
  const parts = analyzeShell(line, 'bash');
  return parts.length === 1 && parts[0]?.opaque?.kind === 'code' ? parts[0].opaque.reason : undefined;
}

describe('analyzeShell, on a command that reads the shell input', () => {
  describe('when bash runs it from its standard input, as the bash tool does', () => {
    it('followed by more lines: bash runs what the analysis read as a string (head eats the next line)', () => {
      const line = "head -c 6\necho '\necho PWNED\n' #'";
      // head prints the 6 bytes it took (`echo '`), then bash runs `echo PWNED` as a command.
      expect(piped(`${line}\n`)).toBe("echo 'PWNED\n");
      // Read as written, the second line only echoes a string (as `bash -c` runs it).
      expect(spawnSync('bash', ['-c', line], { input: '', encoding: 'utf8' }).stdout).toBe('\necho PWNED\n\n');
    });

    it("alone, taking part of the tool's own line: the next call's line is read inside a quote", () => {
      // Call 1 is `head -c 14` and eats `echo "SENTINEL`; call 2 is an `echo` of one single-quoted word.
      const calls = `head -c 14\necho "SENTINEL"\necho 'a" ; echo PWNED ; #'\necho "S2"\n`;
      expect(piped(calls)).toContain('PWNED\n');
      // Each call on its own only echoes.
      expect(spawnSync('bash', ['-c', `echo 'a" ; echo PWNED ; #'`], { encoding: 'utf8' }).stdout).toBe(
        'a" ; echo PWNED ; #\n',
      );
    });
  });

  describe('when the analysis reads it', () => {
    it.each([
      "head -c 6\necho '\nrm -rf /\n' #'",
      "echo $(head -c 6)\necho '\nrm -rf /\n'",
      "read -r x\necho '\nrm -rf /\n'",
      "bash -c 'head -c 6'\necho '\nrm -rf /\n'",
      'head -c 1\n#rm -rf /',
      'head -c 14',
      'read -r -n 14 x',
      'dd bs=1 count=14',
      'grep -m 1 x',
    ])('%j is one opaque part that names the cause', (line) => {
      expect(reason(line)).toMatch(/read (part of )?standard input/);
    });

    it.each(["grep x\necho '\nrm -rf /\n'", "cat /dev/stdin\necho '\nrm -rf /\n'"])(
      '%j (reads to a line end or to the end of input) is opaque when more lines follow',
      (line) => {
        expect(reason(line)).toMatch(/followed by more lines/);
      },
    );

    it.each(['head -c 6 a.txt\nls', 'cat a | head -c 6\nls', 'head -c 6 < a\nls', 'cat; ls', 'grep -n x a.txt'])(
      '%j keeps its parts (input from a file or a pipe, or read to the end with nothing after)',
      (line) => {
        expect(analyzeShell(line, 'bash').every((p) => p.opaque === undefined)).toBe(true);
      },
    );

    it('a script given to `bash -c` or to the `shell` tool (sh) is not read from the input', () => {
      expect(analyzeShell("head -c 6\necho 'x'", 'sh').every((p) => p.opaque === undefined)).toBe(true);
      expect(
        analyzeShell(`bash -c ${JSON.stringify('head -c 6 a\necho x')}`, 'bash').every((p) => p.opaque === undefined),
      ).toBe(true);
    });
  });
});
