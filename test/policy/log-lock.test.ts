import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GateAuditError, openDecisionLog } from '../../src/index.js';
import { verifyLog } from '../../src/policy/verify-log.js';

// Other processes are real node processes running the built decision log (`npm test` builds dist/ first).
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = join(root, 'test/.generated/log-lock');
const writer = join(scratch, 'writer.mjs');

beforeAll(() => {
  mkdirSync(scratch, { recursive: true });
  // Opens the log, writes one record, says "ready <pid>", then waits for a line on stdin: "close" closes the
  // log and exits, "exit" exits without closing (the exit hook releases the lock). A refusal prints the error.
  writeFileSync(
    writer,
    [
      `import { openDecisionLog } from ${JSON.stringify(pathToFileURL(join(root, 'dist/policy/decision-log.js')).href)};`,
      'let log;',
      'try {',
      '  log = openDecisionLog(process.argv[2]);',
      "  log.append({ event: 'allow', verdict: 'allow', toolName: 'ls', path: ['child'] }, 'child');",
      '} catch (error) {',
      '  process.stdout.write(`refused ${error.code}: ${error.message}\\n`);',
      '  process.exit(3);',
      '}',
      'process.stdout.write(`ready ${process.pid}\\n`);',
      "if (process.argv[3] === 'handles-sigterm') process.on('SIGTERM', () => process.stdout.write('sigterm\\n'));",
      "process.stdin.setEncoding('utf8');",
      "process.stdin.on('data', (line) => {",
      "  if (line.startsWith('close')) log.close();",
      '  process.exit(0);',
      '});',
    ].join('\n'),
  );
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

let counter = 0;
const freshLog = (): string => join(scratch, `log-${counter++}.jsonl`);

interface Child {
  readonly process: ChildProcess;
  /** The first line it printed. */
  readonly first: Promise<string>;
  /** How it ended. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWriter(log: string): Child {
  const child = spawn(process.execPath, [writer, log], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  // A writer refused at its start exits on its own: a later "close" written to it finds its input closed (EPIPE),
  // which says nothing about the log. How each writer ended is what the tests check.
  child.stdin.on('error', () => undefined);
  let out = '';
  const first = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.on('exit', () => reject(new Error(`the writer ended before printing a line: ${out}`)));
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, first, ended };
}

function refusal(log: string): GateAuditError {
  try {
    openDecisionLog(log).close();
  } catch (error) {
    if (error instanceof GateAuditError) return error;
    throw error;
  }
  throw new Error('the log was opened although another process holds its lock');
}

describe('the decision log lock (log-lock) across processes', () => {
  describe('when another process writes the log', () => {
    it('refuses a log a running process writes, naming its pid; the chain goes on once it closed the log', async () => {
      const log = freshLog();
      const child = startWriter(log);
      expect(await child.first).toBe(`ready ${child.process.pid}`);
      expect(readFileSync(`${log}.lock`, 'utf8')).toBe(`${child.process.pid}\n`);

      const error = refusal(log);
      expect(error.code).toBe('LOG_LOCKED');
      expect(error.message).toContain(`locked by process ${child.process.pid}, which is running`);
      expect(error.message.split('\n')).toHaveLength(1);

      child.process.stdin?.write('close\n');
      expect(await child.ended).toEqual({ code: 0, signal: null });
      expect(existsSync(`${log}.lock`)).toBe(false);
      const mine = openDecisionLog(log);
      mine.append({ event: 'allow', verdict: 'allow', toolName: 'ls', path: ['parent'] }, 'parent');
      mine.close();
      expect(verifyLog(readFileSync(log, 'utf8'))).toMatchObject({ ok: true, records: 2 });
    });

    it('a second process is refused while this one holds the log, and gets it after close()', async () => {
      const log = freshLog();
      const mine = openDecisionLog(log);
      const refused = startWriter(log);
      expect(await refused.first).toMatch(
        new RegExp(`^refused LOG_LOCKED: .*locked by process ${process.pid}, which is running`),
      );
      expect((await refused.ended).code).toBe(3);
      mine.close();
      const next = startWriter(log);
      expect(await next.first).toBe(`ready ${next.process.pid}`);
      next.process.stdin?.write('close\n');
      await next.ended;
    });
  });

  describe('when the holding process exits, is signalled or is killed', () => {
    it('releases the lock when the process exits without closing, and on SIGTERM', async () => {
      const exits = startWriter(freshLog());
      await exits.first;
      const exitsLog = exits.process.spawnargs[2]!;
      exits.process.stdin?.write('exit\n');
      expect(await exits.ended).toEqual({ code: 0, signal: null });
      expect(existsSync(`${exitsLog}.lock`)).toBe(false);

      const terminated = startWriter(freshLog());
      await terminated.first;
      const terminatedLog = terminated.process.spawnargs[2]!;
      terminated.process.kill('SIGTERM');
      // Still ended by the signal, as without the log.
      expect(await terminated.ended).toEqual({ code: null, signal: 'SIGTERM' });
      expect(existsSync(`${terminatedLog}.lock`)).toBe(false);
    });

    it('keeps the lock on a signal the app handles itself (it may go on writing), and releases it at exit', async () => {
      const log = freshLog();
      const child = spawn(process.execPath, [writer, log, 'handles-sigterm'], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      let out = '';
      child.stdout.setEncoding('utf8');
      const saw = (text: string): Promise<void> =>
        new Promise((resolve) => {
          const check = (): void => {
            if (out.includes(text)) resolve();
            else child.stdout.once('data', check);
          };
          check();
        });
      child.stdout.on('data', (chunk: string) => (out += chunk));
      await saw('ready');
      child.kill('SIGTERM');
      await saw('sigterm');
      expect(child.exitCode).toBeNull();
      expect(readFileSync(`${log}.lock`, 'utf8')).toBe(`${child.pid}\n`);
      const ended = new Promise((resolve) => child.on('exit', resolve));
      child.stdin.write('exit\n');
      await ended;
      expect(existsSync(`${log}.lock`)).toBe(false);
    });

    it('refuses a stale lock left by a killed process, naming its pid and the file to delete; never takes it over', async () => {
      const log = freshLog();
      const child = startWriter(log);
      await child.first;
      const pid = child.process.pid!;
      child.process.kill('SIGKILL');
      expect(await child.ended).toEqual({ code: null, signal: 'SIGKILL' });
      expect(readFileSync(`${log}.lock`, 'utf8')).toBe(`${pid}\n`);

      const error = refusal(log);
      expect(error.code).toBe('LOG_LOCKED');
      expect(error.message).toContain(`stale lock ${log}.lock from process ${pid}, which is no longer running`);
      expect(error.message).toContain(`then delete ${log}.lock`);
      expect(error.message.split('\n')).toHaveLength(1);
      // Refused again: the lock is still there, still naming the dead process.
      expect(refusal(log).message).toContain(`from process ${pid}`);
      expect(readFileSync(`${log}.lock`, 'utf8')).toBe(`${pid}\n`);

      rmSync(`${log}.lock`);
      const mine = openDecisionLog(log);
      mine.append({ event: 'allow', verdict: 'allow', toolName: 'ls', path: ['parent'] }, 'parent');
      mine.close();
      expect(verifyLog(readFileSync(log, 'utf8'))).toMatchObject({ ok: true, records: 2 });
    });
  });

  describe('when a lockfile names no process, or this process without its holding it', () => {
    it('refuses a lockfile that names no process', () => {
      const log = freshLog();
      writeFileSync(`${log}.lock`, 'garbage');
      expect(refusal(log).message).toMatch(
        /locked by .*\.lock, which names no process \| check the log .* then delete/,
      );
    });

    it('reads the pid a lockfile names only from digits and one newline', () => {
      for (const text of ['12ab\n', ' 1\n', '1\n\n', 'x1', '1 2']) {
        const log = freshLog();
        writeFileSync(`${log}.lock`, text);
        expect(refusal(log).message, JSON.stringify(text)).toMatch(/which names no process/);
      }
      // Pid 1 is always running: with or without its newline, the lock is that process's.
      for (const text of ['1\n', '1']) {
        const log = freshLog();
        writeFileSync(`${log}.lock`, text);
        expect(refusal(log).message).toContain('is locked by process 1, which is running and writes it');
        expect(refusal(log).message).toContain('| stop that process or give this one another log file');
      }
    });

    it("refuses a lock naming this process's pid that this process does not hold (an earlier process with its pid)", () => {
      const log = freshLog();
      writeFileSync(`${log}.lock`, `${process.pid}\n`);
      const error = refusal(log);
      expect(error.code).toBe('LOG_LOCKED');
      expect(error.message).toContain(`naming pid ${process.pid}, an earlier process with this process's pid`);
      expect(error.message).toContain('then delete');
      expect(existsSync(`${log}.lock`)).toBe(true);
    });
  });

  describe('when the log file was moved', () => {
    it('refuses a second log under the name of one this process writes after the file was moved, until it is closed', () => {
      const log = freshLog();
      const first = openDecisionLog(log);
      first.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      renameSync(log, `${log}.moved`);
      try {
        expect(refusal(log).message).toContain(
          'this process already writes a decision log under this name, but to another file (it was moved or replaced since) | close the earlier log first',
        );
      } finally {
        first.close();
      }
      // Closed, its lock is released: a new log opens under the name (a new chain in a new file).
      expect(existsSync(`${log}.lock`)).toBe(false);
      openDecisionLog(log).close();
    });
  });

  describe('when two processes start together', () => {
    it('lets exactly one of two processes starting together write the log', async () => {
      const log = freshLog();
      const both = [startWriter(log), startWriter(log)];
      const lines = await Promise.all(both.map((c) => c.first.catch((e: unknown) => String(e))));
      expect(lines.filter((l) => l.startsWith('ready'))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('refused LOG_LOCKED'))).toHaveLength(1);
      for (const child of both) child.process.stdin?.write('close\n');
      await Promise.all(both.map((c) => c.ended));
      expect(verifyLog(readFileSync(log, 'utf8'))).toMatchObject({ ok: true, records: 1 });
    });
  });
});
