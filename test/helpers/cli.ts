/**
 * Runs the gate-audit command in-process with captured streams, from the project root.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

/** The project root, the working directory of these runs. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `gate-audit ...argv` and returns its exit code and what it wrote. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { cwd: root },
  );
  return { code, out, err };
}
