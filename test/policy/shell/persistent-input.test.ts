/**
 * The persistent bash tool writes each line to one bash's standard input, and bash reads its script from
 * there as it runs: a command that reads that input takes the lines after its own. Such a line is opaque
 * (refused) when text follows; bash itself, fed the line through a pipe, shows why.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../src/policy/shell/analyze.js';

/** Runs `script` the way the bash tool does: written to the standard input of `bash`. */
function piped(script: string): string {
  return spawnSync('bash', [], { input: `${script}\n`, encoding: 'utf8' }).stdout;
}

describe('a command that reads the shell input, followed by more lines', () => {
  it('is what bash runs differently: head eats the start of the next line', () => {
    const line = "head -c 6\necho '\necho PWNED\n' #'";
    // head prints the 6 bytes it took (`echo '`), then bash runs `echo PWNED` as a command.
    expect(piped(line)).toBe("echo 'PWNED\n");
    // Read as written, the second line only echoes a string (as `bash -c` runs it).
    expect(spawnSync('bash', ['-c', line], { input: '', encoding: 'utf8' }).stdout).toBe('\necho PWNED\n\n');
  });

  it.each([
    "head -c 6\necho '\nrm -rf /\n' #'",
    "read -r x\necho '\nrm -rf /\n'",
    "echo $(head -c 6)\necho '\nrm -rf /\n'",
    "bash -c 'head -c 6'\necho '\nrm -rf /\n'",
    'head -c 1\n#rm -rf /',
  ])('%j is one opaque part that names the cause', (line) => {
    const parts = analyzeShell(line, 'bash');
    expect(parts).toHaveLength(1);
    expect(parts[0]?.opaque?.kind).toBe('code');
    expect(parts[0]?.opaque?.reason).toMatch(/read standard input is followed by more lines/);
  });

  it.each(['head -c 6 a.txt\nls', 'cat a | head -c 6\nls', 'head -c 6 < a\nls', 'head -c 6; ls'])(
    '%j keeps its parts (input from a file or a pipe, or nothing on a later line)',
    (line) => {
      expect(analyzeShell(line, 'bash').every((p) => p.opaque === undefined)).toBe(true);
    },
  );

  it('a script given to `bash -c` or to the `shell` tool (sh) is not read from the input', () => {
    expect(analyzeShell("head -c 6\necho 'x'", 'sh').every((p) => p.opaque === undefined)).toBe(true);
    expect(
      analyzeShell(`bash -c ${JSON.stringify('head -c 6\necho x')}`, 'bash').every((p) => p.opaque === undefined),
    ).toBe(true);
  });
});
