/**
 * Runs of the built command (`bin/gate-audit.js` over `dist/`) in processes of their own, as a CI step runs it
 * (`CI=true`), at most three at a time, each killed after 90 s; and a scratch folder for the files a test
 * writes, named by path from the repository root and relative to it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { type CoverageReport, CoverageReportSchema } from '../../src/report/schema.js';
import { root } from './cli.js';

/** What a run of the built command ended with. */
export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const bin = join(root, 'bin/gate-audit.js');
let running = 0;
const waiting: (() => void)[] = [];

/** Waits for one of the three places a run of the built command takes, and returns what frees it. */
export async function slot(): Promise<() => void> {
  if (running >= 3) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  return () => {
    running -= 1;
    waiting.shift()?.();
  };
}

/** Where a run of the built command runs, and what it adds to the environment. */
export interface RunOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs the built command in its own process.
 *
 * @param args - its arguments
 * @param options - its working directory (the repository root unless given), or that and variables to add
 */
export async function gateAudit(args: string[], options: string | RunOptions = root): Promise<Run> {
  const { cwd = root, env = {} } = typeof options === 'string' ? { cwd: options } : options;
  const release = await slot();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, NODE_NO_WARNINGS: '1', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      release();
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * The built command with the helpdesk app's jobs told where to note that they ran (`HELPDESK_MARKER`): every run
 * of it can check whether they did.
 *
 * @param marker - the file the jobs write to
 */
export function helpdeskGateAudit(marker: string): (args: string[], options?: RunOptions) => Promise<Run> {
  return async (args, options = {}) =>
    await gateAudit(args, { ...options, env: { HELPDESK_MARKER: marker, ...options.env } });
}

/** The coverage report a run printed on stdout (`--format json`). */
export function reportOf(run: Run): CoverageReport {
  return CoverageReportSchema.parse(JSON.parse(run.stdout));
}

/** A scratch folder under test/.generated: its absolute path, and a file in it absolute (`at`) or relative (`rel`). */
export function scratchFolder(name: string): {
  readonly scratch: string;
  readonly at: (file: string) => string;
  readonly rel: (file: string) => string;
} {
  const relative = `test/.generated/${name}`;
  const scratch = join(root, relative);
  return { scratch, at: (file) => join(scratch, file), rel: (file) => `${relative}/${file}` };
}
