/**
 * The audit child, supervised: users' modules, configuration files and entry points run in a child process
 * (`child/main.ts`, with the preload `child/preload.ts`), never in the CLI's. Whatever they do, exit, kill
 * their process, crash, hang or set `process.exitCode`, the CLI reads what the child wrote before it ended
 * and decides the exit code itself.
 *
 * The child writes one JSON line per event, synchronously, to a results file; the CLI reads it as it grows
 * (progress arms the timers: a module's `--timeout`, an entry's settle time) and once more after the child
 * ended. The child's stdout and stderr go to the CLI's stderr, so a report on stdout stays valid.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AUDITING_ENV, type ChildLine, type Job, TAMPERED_EXIT } from './child/protocol.js';

/** How the child ended. */
export interface ChildRun {
  /** Every line it wrote, in order. */
  readonly lines: ChildLine[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why the CLI ended it, when it did. */
  readonly killed?: string;
  /** The child could not be started. */
  readonly spawnError?: string;
  /** How many lines failed their authentication (something in the child wrote them, not gate-audit). */
  readonly forged: number;
}

/** What a line's handler may do. */
export interface ChildControl {
  /** (Re)arms a timer (`main` unless named): when it fires, the child is killed for `reason`. */
  arm(ms: number, reason: string, name?: string): void;
  /** Kills the child now for `reason`. */
  kill(reason: string): void;
}

/** How to run one child. */
export interface SuperviseOptions {
  readonly cwd: string;
  /** Where the child's own output goes (the CLI's stderr). */
  readonly noise: (chunk: string) => void;
  /** Called for each line as it arrives. */
  readonly onLine?: (line: ChildLine, control: ChildControl) => void;
  /** The timer armed at start. */
  readonly timer?: { readonly ms: number; readonly reason: string };
}

/** A job as the CLI gives it (the results file is the supervisor's). */
export type JobInput = Job extends infer J ? (J extends Job ? Omit<J, 'results'> : never) : never;

/** How often the results file is read while the child runs. */
const POLL_MS = 20;

/** The most a child may write: beyond it (or a line longer than a line can be) its results are refused. */
const MAX_RESULTS_BYTES = 256 * 1024 * 1024;
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The built file of a child module (from the sources, in gate-audit's own tests: the build beside them). */
function builtFile(name: string): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return join(dirname(here), '../../dist/cli/child', `${name}.js`);
  return join(dirname(here), 'child', `${name}.js`);
}

/**
 * Runs one job in a fresh audit child and returns what it wrote and how it ended.
 *
 * @param job - the job, without its results file
 * @param options - working directory, output sink, line handler, first timer
 */
export function runChild(job: JobInput, options: SuperviseOptions): Promise<ChildRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-audit-'));
  const results = join(dir, 'results.jsonl');
  const jobFile = join(dir, 'job.json');
  writeFileSync(results, '');
  writeFileSync(jobFile, JSON.stringify({ ...job, results }));
  // Each line the child writes carries an HMAC under a key only gate-audit's child code holds: it reads the
  // key from its stdin before any user code runs. A line written by the audited code itself (it can find the
  // results file) fails the check.
  const key = randomBytes(32);
  let forged = 0;
  const lines: ChildLine[] = [];
  return new Promise<ChildRun>((resolve) => {
    let killed: string | undefined;
    const timers = new Map<string, NodeJS.Timeout>();
    let offset = 0;
    let partial = '';
    const fd = openSync(results, 'r');
    const child = spawn(
      process.execPath,
      ['--import', pathToFileURL(builtFile('preload')).href, builtFile('main'), jobFile],
      {
        cwd: options.cwd,
        env: { ...process.env, [AUDITING_ENV]: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      },
    );
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const control: ChildControl = {
      arm(ms, reason, name = 'main') {
        clearTimeout(timers.get(name));
        timers.set(
          name,
          setTimeout(() => control.kill(reason), ms),
        );
      },
      kill(reason) {
        if (killed === undefined) killed = reason;
        killGroup();
      },
    };
    let expectedSeq = 0;
    let overflow = false;
    const read = (): void => {
      if (overflow) return;
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, offset);
        if (n <= 0) break;
        offset += n;
        partial += buffer.subarray(0, n).toString('utf8');
        if (offset > MAX_RESULTS_BYTES || (partial.length > MAX_LINE_BYTES && !partial.includes('\n'))) {
          // Not what gate-audit's child writes: the results are refused, the child ended.
          overflow = true;
          forged += 1;
          partial = '';
          control.kill('wrote more results than an audit writes (its results file was grown)');
          return;
        }
      }
      let newline = partial.indexOf('\n');
      while (newline !== -1) {
        const text = partial.slice(0, newline);
        partial = partial.slice(newline + 1);
        newline = partial.indexOf('\n');
        if (text.trim() === '') continue;
        const space = text.indexOf(' ');
        const body = text.slice(space + 1);
        const mac = Buffer.from(space === -1 ? '' : text.slice(0, space), 'hex');
        const expected = createHmac('sha256', key).update(body).digest();
        if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
          forged += 1;
          continue;
        }
        let line: ChildLine & { seq?: unknown };
        try {
          line = JSON.parse(body) as ChildLine & { seq?: unknown };
        } catch {
          continue; // a line cut by a crash mid-write: what came before it stands
        }
        // Lines are numbered under the HMAC: one missing (dropped on the way) or repeated is tampering.
        if (line.seq !== expectedSeq) {
          forged += 1;
          continue;
        }
        expectedSeq += 1;
        lines.push(line);
        // A child that wrote its end and does not exit (its exit was replaced) is ended.
        if (line.t === 'end') control.arm(2_000, 'did not exit after it wrote its results', 'end');
        options.onLine?.(line, control);
      }
    };
    child.stdin.on('error', () => undefined);
    child.stdin.end(key);
    if (options.timer !== undefined) control.arm(options.timer.ms, options.timer.reason);
    const poll = setInterval(read, POLL_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => options.noise(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => options.noise(chunk));
    let spawnError: string | undefined;
    child.on('error', (error) => {
      spawnError = error.message;
    });
    let ended = false;
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (ended) return;
      ended = true;
      clearInterval(poll);
      for (const timer of timers.values()) clearTimeout(timer);
      read();
      closeSync(fd);
      // Whatever the app left running in the child's group ends with it; a process it detached into a group
      // of its own may still hold the pipes: they are closed, so it cannot keep the command waiting.
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      rmSync(dir, { recursive: true, force: true });
      resolve({
        lines,
        code,
        signal,
        forged: forged + (code === TAMPERED_EXIT ? 1 : 0),
        ...(killed === undefined ? {} : { killed }),
        ...(spawnError === undefined ? {} : { spawnError }),
      });
    };
    // 'close' waits for the pipes, which a detached grandchild can hold open forever: after 'exit' the
    // output gets a moment to drain, then the run ends.
    child.on('exit', (code, signal) => {
      setTimeout(() => end(code, signal), 200);
    });
    child.on('close', (code, signal) => end(code, signal));
    child.on('error', () => {
      if (child.pid === undefined) end(null, null);
    });
  });
}
