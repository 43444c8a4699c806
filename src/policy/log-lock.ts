/**
 * The lockfile of a decision log: `<log>.lock`, created with `O_EXCL` and holding the writer's pid, so two
 * processes never write one chain. A lock is never taken over: one held by a running process is refused
 * naming its pid, and one left by a process that is gone (stale) is refused too, naming the pid and the
 * file to delete, because a writer that died mid-record may have left a broken tail that someone should
 * look at (`gate-audit verify-log`) before the chain continues.
 *
 * Locks are released by `releaseLock`, at process exit, and on SIGINT, SIGTERM and SIGHUP when nothing else
 * listens for the signal (the signal is then raised again, so the process still ends by it). A process
 * killed outright (SIGKILL, a crash of the runtime) leaves a stale lock.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { GateAuditError, messageOf } from '../errors.js';
import { visible } from '../escape.js';

/** The lockfiles this process holds. */
const held = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let hooked = false;

/** The lockfile path of a decision log path. */
export function lockPathOf(logPath: string): string {
  return `${logPath}.lock`;
}

/** Whether a process with this pid is running (a process of another user counts as running). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** The pid a lockfile names, waiting briefly for a writer that created it but has not yet written its pid. */
function holderOf(lockPath: string): number | undefined {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    let text: string;
    try {
      text = readFileSync(lockPath, 'utf8');
    } catch {
      return undefined;
    }
    if (/^\d+\n?$/.test(text)) return Number(text.trim());
    if (text !== '') return undefined;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  return undefined;
}

function refuse(logPath: string, problem: string, fix: string): GateAuditError {
  return new GateAuditError('LOG_LOCKED', `file=<${visible(logPath)}> | ${problem} | ${fix}`);
}

/**
 * Takes the lock of a decision log for this process.
 *
 * @param logPath - the decision log's path, as given
 * @returns the lockfile's path
 * @throws GateAuditError `LOG_LOCKED` when another process (running or gone) holds it, `INVALID_ARGUMENT`
 *   when the lockfile cannot be created
 */
export function takeLock(logPath: string): string {
  const lockPath = lockPathOf(logPath);
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o644);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `file=<${visible(logPath)}> | cannot create the decision log's lockfile ${visible(lockPath)}: ${messageOf(error)} | ` +
          'the log needs a writable directory',
        { cause: error },
      );
    }
    throw lockedBy(logPath, lockPath);
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(lockPath);
    } catch {
      // Left behind: it names no process, and the next open says so.
    }
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `file=<${visible(logPath)}> | cannot write the decision log's lockfile ${visible(lockPath)}: ${messageOf(error)}`,
      { cause: error },
    );
  }
  closeSync(fd);
  held.add(lockPath);
  hookExit();
  return lockPath;
}

/** Why an existing lockfile refuses this process. */
function lockedBy(logPath: string, lockPath: string): GateAuditError {
  const pid = holderOf(lockPath);
  const lock = visible(lockPath);
  const check = `check the log with gate-audit verify-log ${visible(logPath)}, then delete ${lock}`;
  if (pid === undefined) {
    return refuse(logPath, `the decision log is locked by ${lock}, which names no process`, check);
  }
  if (pid === process.pid) {
    return held.has(lockPath)
      ? refuse(
          logPath,
          `this process already writes a decision log under this name, but to another file (it was moved or replaced since)`,
          'close the earlier log first (close() on openDecisionLog) or give this one another path',
        )
      : refuse(
          logPath,
          `the decision log has a stale lock ${lock} naming pid ${pid}, an earlier process with this process's pid`,
          check,
        );
  }
  if (running(pid)) {
    return refuse(
      logPath,
      `the decision log is locked by process ${pid}, which is running and writes it (${lock})`,
      'stop that process or give this one another log file',
    );
  }
  return refuse(
    logPath,
    `the decision log has a stale lock ${lock} from process ${pid}, which is no longer running`,
    check,
  );
}

/**
 * Releases a lock this process holds: deletes the lockfile if it still names this process.
 *
 * @param lockPath - a path `takeLock` returned
 */
export function releaseLock(lockPath: string): void {
  if (!held.delete(lockPath)) return;
  try {
    if (readFileSync(lockPath, 'utf8') === `${process.pid}\n`) unlinkSync(lockPath);
  } catch {
    // Gone already (someone deleted it or its directory): nothing to release.
  }
}

function releaseAll(): void {
  for (const lockPath of [...held]) releaseLock(lockPath);
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener owns this signal (the app handles it, and may keep running): leave the locks to 'exit'.
  if (process.listenerCount(signal) > 1) return;
  releaseAll();
  for (const name of SIGNALS) process.removeListener(name, onSignal);
  process.kill(process.pid, signal);
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', releaseAll);
  // Signal listeners exist on the main thread only.
  if (isMainThread) for (const name of SIGNALS) process.on(name, onSignal);
}
