/**
 * An entry run inside the audit child, for commands that need the invoked objects themselves afterwards
 * (`check-policy --entry`): the entry is imported, each distinct object it invokes is handed to `onTarget`
 * (and stopped, as every invocation in the child is), and the run ends when no invocation came for the settle
 * time after the last one (or the import settled with none), at the timeout, or when the entry calls
 * `process.exit`, which is held: the process stays, so the command can still judge what was collected.
 * An error the entry leaves uncaught is kept, not fatal.
 */
import { relative } from 'node:path';
import { importModule, isAuditStopError } from '../load.js';
import { auditStop, type InvokedKind, onInvocation } from './preload.js';

/** How an in-process entry run ended. */
export interface InProcessEntryEnd {
  readonly invocations: number;
  readonly ended: 'exit' | 'settle' | 'timeout' | 'import';
  /** What its import threw, when it did (not the stop). */
  readonly threw?: string;
}

/** What an in-process entry run needs. */
export interface InProcessEntry {
  readonly entry: string;
  readonly cwd: string;
  readonly args: readonly string[];
  readonly settleMs: number;
  readonly timeoutMs: number;
  readonly onTarget: (target: object, kind: InvokedKind, id: string) => void;
}

/**
 * Runs an entry in this (audit) process and collects what it invokes.
 *
 * @param options - the entry, its arguments, the times, the collector
 */
export async function runEntryInProcess(options: InProcessEntry): Promise<InProcessEntryEnd> {
  const shown = relative(options.cwd, options.entry) || options.entry;
  const seen = new WeakSet<object>();
  let invocations = 0;
  let wake: (ended: InProcessEntryEnd['ended']) => void = () => undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  const done = new Promise<InProcessEntryEnd['ended']>((resolve) => {
    wake = resolve;
  });
  onInvocation((target, kind) => {
    invocations += 1;
    const id: unknown = Object.getOwnPropertyDescriptor(target, 'id')?.value;
    const name = typeof id === 'string' ? id : '?';
    if (!seen.has(target)) {
      seen.add(target);
      options.onTarget(target, kind, name);
    }
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => wake('settle'), options.settleMs);
    return auditStop(`gate-audit: stopped ${kind} "${name}" (invoked from ${shown}) to check it: nothing of it runs`);
  });
  const exit = Object.getOwnPropertyDescriptor(process, 'exit');
  process.exit = (): never => {
    wake('exit');
    // Unwinds the entry's own code; the process stays for the command.
    throw new Error('gate-audit: process.exit() held while the entry is checked');
  };
  const keep = (): void => undefined;
  process.on('uncaughtException', keep);
  process.on('unhandledRejection', keep);
  const timeout = setTimeout(() => wake('timeout'), options.timeoutMs);
  const argv = process.argv;
  process.argv = [argv[0] ?? process.execPath, options.entry, ...options.args];
  let threw: string | undefined;
  try {
    await importModule(options.entry, shown, {
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
      noise: () => undefined,
    });
  } catch (error) {
    if (!isAuditStopError(error)) threw = error instanceof Error ? error.message : String(error);
  }
  // An entry may invoke after its import settled (an async main awaiting its setup first): it gets the settle
  // time too.
  settleTimer ??= setTimeout(() => wake(invocations === 0 ? 'import' : 'settle'), options.settleMs);
  const ended = await done;
  clearTimeout(timeout);
  clearTimeout(settleTimer);
  if (exit !== undefined) Object.defineProperty(process, 'exit', exit);
  process.argv = argv;
  return { invocations, ended, ...(threw === undefined ? {} : { threw }) };
}
