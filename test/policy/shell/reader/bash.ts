/**
 * What bash (or dash) runs for a line, for the reader's tests: the line runs in a scratch directory with only stub
 * programs on `PATH`, each of which records its name and words and does nothing else, so a test can hold the
 * reader's reading against the shell's. Lines given here name stub programs only; builtins run as builtins.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The programs a line may run (each a stub). */
export const STUBS = ['a', 'b', 'c', 'ls', 'rm', 'touch', 'cat', 'wc', 'grep', 'x', 'y', 'z'] as const;

function where(shell: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${shell}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : '';
}

const SHELLS = { bash: where('bash'), sh: where('dash') };

/** Whether bash and dash are here to ask. */
export const hasShells = SHELLS.bash !== '' && SHELLS.sh !== '';

/**
 * Runs a line as `bash -c` (or `dash -c` for `sh`) and returns what ran, one `program word…` string per run, in
 * the order they ran (words joined by single spaces).
 */
export function runs(line: string, dialect: 'bash' | 'sh' = 'bash'): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'gate-audit-reader-'));
  try {
    const log = join(dir, 'log');
    writeFileSync(log, '');
    for (const name of STUBS) {
      const file = join(dir, name);
      // One write per run: the programs of a pipeline run at the same time.
      const record = `record=$(printf '%s\\037' "\${0##*/}" "$@")\nprintf '%s\\036' "$record" >> '${log}'\n`;
      writeFileSync(file, `#!${SHELLS.sh}\n${record}`);
      chmodSync(file, 0o755);
    }
    spawnSync(SHELLS[dialect], ['-c', line], {
      cwd: dir,
      env: { PATH: dir, HOME: dir },
      input: '',
      timeout: 5000,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    return readFileSync(log, 'utf8')
      .split('\x1e')
      .filter((record) => record !== '')
      .map((record) => record.split('\x1f').slice(0, -1).join(' '));
  } finally {
    // A program a line left running (a background job, a redirection's writer) may still write here while the
    // folder is removed (ENOTEMPTY): removal is retried.
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}
