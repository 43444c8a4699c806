/**
 * The CLI's side of loading: every configuration module, audited module, entry point and `check-policy` run
 * happens in a supervised audit child (`supervise.ts`). What the child wrote is read back as plain data;
 * when the child ends early (the module called `process.exit`, killed its process, crashed, threw outside
 * the import, or hung past `--timeout`) the module it was loading gets a load finding, and a fresh child
 * loads the modules not yet loaded.
 */
import { relative } from 'node:path';
import { GateAuditError, type GateAuditErrorCode } from '../errors.js';
import type { CoverageNote, CoverageReport } from '../report/schema.js';
import {
  type AcceptRule,
  type ChildLine,
  type ConfigRef,
  type ModuleOutcome,
  TAMPERED_EXIT,
  type WireError,
  writableKeyringNote,
} from './child/protocol.js';
import { type ChildRun, runChild } from './supervise.js';

/** Extra time the CLI gives the child beyond the timeout the child keeps itself (a busy loop never yields). */
const GRACE_MS = 2_000;

/** How long a fresh audit child may take to start (Node, the preload, gate-audit and the SDK loaded). */
const STARTUP_MS = 60_000;

/** Signals that mean the process crashed rather than was stopped. */
const CRASH_SIGNALS = new Set(['SIGSEGV', 'SIGABRT', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGTRAP']);

/**
 * An error the child wrote, as an error of this process (its code kept, its cause chain and stacks kept for
 * `--debug`).
 *
 * @param wire - the error as data
 */
export function fromWire(wire: WireError): Error {
  const cause = wire.cause === undefined ? undefined : fromWire(wire.cause);
  const error =
    wire.code !== undefined && /^[A-Z_]+$/.test(wire.code) && wire.name !== 'Error'
      ? new GateAuditError(wire.code as GateAuditErrorCode, wire.message, cause === undefined ? {} : { cause })
      : new Error(wire.message, cause === undefined ? {} : { cause });
  if (wire.name !== 'GateAuditError' && !(error instanceof GateAuditError)) error.name = wire.name;
  if (wire.code !== undefined) Object.assign(error, { code: wire.code });
  if (wire.stack !== undefined) error.stack = wire.stack;
  if (wire.reporters !== undefined) Object.assign(error, { reporters: wire.reporters });
  if (wire.dir !== undefined) Object.assign(error, { dir: wire.dir });
  return error;
}

/**
 * How a child ended, in words: `called process.exit(0) at …`, `threw Error: boom (an uncaught exception)`,
 * `was killed (SIGKILL)`, `crashed (SIGSEGV)`, or why the CLI ended it.
 *
 * @param run - the child's run
 */
export function howItEnded(run: ChildRun): string {
  if (run.spawnError !== undefined) return `could not start the audit process (${run.spawnError})`;
  if (run.killed !== undefined) return run.killed;
  if (run.code === TAMPERED_EXIT) return 'found its results file replaced under it, and stopped';
  const fatal = run.lines.findLast((l) => l.t === 'fatal');
  if (fatal?.t === 'fatal') {
    const what = fatal.origin === 'unhandledRejection' ? 'an unhandled rejection' : 'an uncaught exception';
    return `threw ${fatal.error.name}: ${(fatal.error.message.split('\n')[0] ?? '').trim()} (${what})`;
  }
  const exited = run.lines.findLast((l) => l.t === 'process-exit');
  if (exited?.t === 'process-exit') {
    const code = typeof exited.code === 'number' || typeof exited.code === 'string' ? String(exited.code) : '';
    return `called process.exit(${code})${exited.at === undefined ? '' : ` ${exited.at}`}`;
  }
  if (run.signal !== null) {
    return CRASH_SIGNALS.has(run.signal) ? `crashed (${run.signal})` : `killed its process (${run.signal})`;
  }
  return `exited with code ${String(run.code)}`;
}

function loadNote(module: string, message: string, fix: string): CoverageNote {
  return { kind: 'load', module, message, fix, fails: true };
}

/** The note of a child whose results carried lines gate-audit did not write. */
function tamperNote(module: string, forged: number): CoverageNote {
  return loadNote(
    module,
    `the audit process's results held ${forged} line${forged === 1 ? '' : 's'} gate-audit did not write (code in the process wrote to them): its results are not trusted`,
    'a module or entry must not write to the audit protocol; audit code you trust',
  );
}

/** One module to load. */
export interface Target {
  readonly absolute: string;
  readonly explicit: boolean;
}

/** How to load the modules of a run. */
export interface ModulesSettings {
  readonly cwd: string;
  readonly config?: ConfigRef;
  readonly configDir: string;
  readonly configShown?: string;
  readonly exportName?: string;
  readonly callFactories: boolean;
  readonly plan: boolean;
  readonly accept: readonly AcceptRule[];
  readonly root: string;
  readonly timeoutMs: number;
  readonly failOnUnaudited: boolean;
  readonly noise: (chunk: string) => void;
  /** Told as each module starts loading (the files a run reads). */
  readonly onModule?: (absolute: string) => void;
}

/**
 * Loads and audits modules in audit children: one child for as many modules as it gets through, a fresh one
 * after a module ended its process.
 *
 * @param targets - the modules, in order
 * @param settings - what the child needs
 * @returns each module's outcome (in order; a module that ended its child has none) and the load findings
 * @throws the error a module's load raised (a syntax error, a missing file, a factory that threw: exit 2)
 */
export async function loadModulesSupervised(
  targets: readonly Target[],
  settings: ModulesSettings,
): Promise<{ outcomes: ModuleOutcome[]; notes: CoverageNote[] }> {
  const outcomes: ModuleOutcome[] = [];
  const notes: CoverageNote[] = [];
  let pending = [...targets];
  const shownOf = (absolute: string): string => relative(settings.cwd, absolute) || absolute;
  const deadline = `did not finish loading within ${settings.timeoutMs} ms (a top-level await that never settles, or a loop that never yields?)`;
  while (pending.length > 0) {
    const batch = pending;
    let open: number | undefined;
    let lastDone: number | undefined;
    const run = await runChild(
      {
        kind: 'modules',
        cwd: settings.cwd,
        ...(settings.config === undefined ? {} : { config: settings.config }),
        modules: batch,
        ...(settings.exportName === undefined ? {} : { exportName: settings.exportName }),
        callFactories: settings.callFactories,
        plan: settings.plan,
        accept: settings.accept,
        configDir: settings.configDir,
        ...(settings.configShown === undefined ? {} : { configShown: settings.configShown }),
        root: settings.root,
        timeoutMs: settings.timeoutMs,
        failOnUnaudited: settings.failOnUnaudited,
      },
      {
        cwd: settings.cwd,
        noise: settings.noise,
        timer: { ms: STARTUP_MS, reason: `did not start within ${STARTUP_MS} ms` },
        onLine: (line, control) => {
          if (line.t === 'start') {
            open = line.index;
            settings.onModule?.(batch[line.index]?.absolute ?? '');
          } else if (line.t === 'done') {
            open = undefined;
            lastDone = line.index;
          }
          // Only progress of gate-audit's own steps re-arms the timer (a stream of crash reports is no progress).
          if (line.t === 'ready' || line.t === 'start' || line.t === 'step' || line.t === 'done') {
            control.arm(settings.timeoutMs + GRACE_MS, deadline);
          }
        },
      },
    );
    if (run.forged > 0) {
      const at = batch[lastDone ?? open ?? 0];
      notes.push(tamperNote(at === undefined ? '?' : shownOf(at.absolute), run.forged));
    }
    for (const line of run.lines) {
      if (line.t === 'done') outcomes.push(line.outcome);
      if (line.t === 'error') throw fromWire(line.error);
    }
    if (run.lines.some((l) => l.t === 'end')) break;
    const how = howItEnded(run);
    if (open !== undefined) {
      const module = shownOf(batch[open]?.absolute ?? '?');
      notes.push(
        loadNote(
          module,
          `${how} while it was imported, so nothing it exports was audited`,
          run.killed !== undefined
            ? 'make the module load without waiting on something that never comes, or raise --timeout'
            : 'a module gate-audit audits must not end or crash its process while it loads: move startup (server, process.exit) into an entry point and audit that with --entry',
        ),
      );
      pending = batch.slice(open + 1);
    } else if (lastDone !== undefined) {
      const module = shownOf(batch[lastDone]?.absolute ?? '?');
      notes.push(
        loadNote(
          module,
          `after import of ${module}: the process ${how}`,
          'something the module started (a timer, a promise) ended or crashed the process after it loaded: keep work out of module scope, or audit the app with --entry',
        ),
      );
      pending = batch.slice(lastDone + 1);
    } else {
      const first = batch[0];
      notes.push(
        loadNote(
          first === undefined ? '?' : shownOf(first.absolute),
          `the audit process ${how} before any module loaded`,
          'check the configuration module: reading it must not end the process',
        ),
      );
      pending = batch.slice(1);
    }
  }
  // Every module gets an outcome or a load note: one with neither lost its results on the way.
  for (const target of targets) {
    const shown = shownOf(target.absolute);
    if (outcomes.some((o) => o.absolute === target.absolute) || notes.some((n) => n.module === shown)) continue;
    notes.push(
      loadNote(
        shown,
        'no result of it reached gate-audit (its results were lost on the way)',
        "a module must not touch the audit process's descriptors; audit code you trust",
      ),
    );
  }
  return { outcomes, notes };
}

/** How an entry run ended, for the report. */
export interface EntryEnd {
  readonly module: string;
  readonly invocations: number;
  readonly ended: 'exit' | 'settle' | 'timeout' | 'signal';
  readonly exitCode?: number;
  readonly signal?: string;
  readonly processGuard?: EntryGuard;
}

/** Whether the process guard stood before an entry's first invocation, and which. */
export interface EntryGuard {
  readonly installed: boolean;
  readonly by?: 'guardProcess' | 'register';
  readonly onUngated?: 'refuse' | 'install';
  readonly gates?: { name: string; id: string; perProcess?: boolean }[];
}

/** What one entry run gave. */
export interface EntryOutcome {
  readonly reports: CoverageReport[];
  readonly notes: CoverageNote[];
  readonly end: EntryEnd;
  readonly usedAccept: number[];
  readonly pathsSeen: string[];
  readonly closure: string[];
}

/** How to run one entry. */
export interface EntrySettings {
  readonly cwd: string;
  readonly entry: string;
  readonly args: readonly string[];
  readonly plan: boolean;
  readonly accept: readonly AcceptRule[];
  readonly root: string;
  /** Bounds the whole entry run. */
  readonly timeoutMs: number;
  /** How long to wait for another invocation after one. */
  readonly settleMs: number;
  readonly noise: (chunk: string) => void;
  /** The configuration file, when it has `processGuard` (started before the entry, as register would). */
  readonly processGuardConfig?: string;
}

/**
 * The guard of an entry: standing at its first invocation (a guard started later let that one run unguarded),
 * or, with no invocation, when the entry's import settled.
 */
function entryGuard(
  invocations: readonly Extract<ChildLine, { t: 'invocation' }>[],
  lines: readonly ChildLine[],
): EntryGuard {
  const settled = lines.find((l): l is Extract<ChildLine, { t: 'guard' }> => l.t === 'guard');
  const guard = invocations.length > 0 ? invocations[0]?.guard : settled?.guard;
  return guard === undefined
    ? { installed: false }
    : { installed: true, by: guard.by, onUngated: guard.onUngated, gates: guard.gates.map((g) => ({ ...g })) };
}

const SETTLED = 'settle';
const TIMED_OUT = 'timeout';

/**
 * Runs an entry point in an audit child and audits each tree it invokes (the invocation itself is stopped).
 *
 * @param settings - the entry, its arguments, the times
 */
export async function runEntrySupervised(settings: EntrySettings): Promise<EntryOutcome> {
  const shown = relative(settings.cwd, settings.entry) || settings.entry;
  const run = await runChild(
    {
      kind: 'entry',
      cwd: settings.cwd,
      entry: settings.entry,
      shown,
      args: settings.args,
      plan: settings.plan,
      accept: settings.accept,
      root: settings.root,
      ...(settings.processGuardConfig === undefined
        ? {}
        : { processGuard: true, configFile: settings.processGuardConfig }),
    },
    {
      cwd: settings.cwd,
      noise: settings.noise,
      timer: { ms: STARTUP_MS, reason: `did not start within ${STARTUP_MS} ms` },
      onLine: (line, control) => {
        if (line.t === 'ready') control.arm(settings.timeoutMs, TIMED_OUT);
        if (line.t === 'invocation') control.arm(settings.settleMs, SETTLED, SETTLED);
      },
    },
  );
  const invocations = run.lines.filter((l): l is Extract<ChildLine, { t: 'invocation' }> => l.t === 'invocation');
  const reports = rename(invocations.flatMap((l) => (l.report === undefined ? [] : [l.report])));
  const ended: EntryEnd['ended'] =
    run.killed === SETTLED ? 'settle' : run.killed === TIMED_OUT ? 'timeout' : run.signal !== null ? 'signal' : 'exit';
  const end: EntryEnd = {
    module: shown,
    invocations: invocations.length,
    ended,
    ...(ended === 'exit' && run.code !== null ? { exitCode: run.code } : {}),
    ...(ended === 'signal' && run.signal !== null ? { signal: run.signal } : {}),
    processGuard: entryGuard(invocations, run.lines),
  };
  const notes: CoverageNote[] = [];
  if (run.forged > 0) notes.push(tamperNote(shown, run.forged));
  for (const line of run.lines) {
    if (line.t === 'keyrings') for (const file of line.files) notes.push(writableKeyringNote(shown, file));
  }
  for (const line of invocations) {
    if (line.problem !== undefined) {
      notes.push(
        loadNote(shown, `the audit of ${line.kind} "${line.id}" failed: ${line.problem}`, 'fix what the message names'),
      );
    }
  }
  const error = run.lines.findLast((l) => l.t === 'error');
  if (error?.t === 'error') throw fromWire(error.error);
  if (invocations.length === 0) {
    const loaded = run.lines.find((l) => l.t === 'entry-loaded');
    const threw =
      loaded?.t === 'entry-loaded' && loaded.error !== undefined
        ? `; importing it threw ${loaded.error.name}: ${(loaded.error.message.split('\n')[0] ?? '').replace(/^cannot load "[^"]*": /, '')}`
        : '';
    const how =
      run.killed === TIMED_OUT
        ? `was still running after ${settings.timeoutMs} ms`
        : run.killed === undefined
          ? howItEnded(run)
          : run.killed;
    const listening = run.lines.some((l) => l.t === 'listening');
    notes.push(
      loadNote(
        shown,
        `entry ${shown} invoked no agent or orchestrator (it ${how}${threw})`,
        listening
          ? 'it waits for requests: audit the module that builds the per-request orchestrator (a factory), or invoke it once at startup'
          : 'make the entry invoke its Graph, Swarm or Agent when it starts, or audit the module that builds it (gate-audit <module>)',
      ),
    );
  }
  const closure = run.lines.findLast((l) => l.t === 'closure');
  return {
    reports,
    notes,
    end,
    usedAccept: [...new Set(invocations.flatMap((l) => l.usedAccept ?? []))],
    pathsSeen: reports.flatMap((r) => r.nodes.map((n) => n.path.join('/'))),
    closure: closure?.t === 'closure' ? closure.files : [settings.entry],
  };
}

/** Trees of one entry with the same root id get `#2`, `#3`… so their rows stay apart. */
function rename(reports: readonly CoverageReport[]): CoverageReport[] {
  const seen = new Map<string, number>();
  return reports.map((report) => {
    const id = report.root.id;
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    if (n === 1) return report;
    const to = `${id}#${n}`;
    const move = (path: readonly string[]): string[] => (path[0] === id ? [to, ...path.slice(1)] : [...path]);
    return {
      ...report,
      root: { ...report.root, id: to },
      nodes: report.nodes.map((node) => ({
        ...node,
        path: move(node.path),
        ...(node.sameAs === undefined ? {} : { sameAs: move(node.sameAs) }),
      })),
      edges: report.edges.map((edge) => ({ ...edge, from: move(edge.from), to: move(edge.to) })),
      refusals: report.refusals.map((r) => ({ ...r, path: move(r.path) })),
      sources: report.sources.map((source) => ({ ...source, path: move(source.path) })),
    };
  });
}

/**
 * Reads a configuration module's default export in an audit child.
 *
 * @param file - the configuration module
 * @param cwd - the working directory
 * @param timeoutMs - how long it may take
 * @param noise - where its output goes
 * @returns the default export as JSON data, and whether there is one
 */
export async function readConfigSupervised(
  file: string,
  cwd: string,
  timeoutMs: number,
  noise: (chunk: string) => void,
): Promise<{ raw: unknown; hasDefault: boolean }> {
  const run = await runChild(
    { kind: 'config', cwd, file },
    {
      cwd,
      noise,
      timer: { ms: STARTUP_MS + timeoutMs, reason: `did not finish loading within ${timeoutMs} ms` },
    },
  );
  if (run.forged > 0) {
    throw new GateAuditError(
      'LOAD_FAILED',
      `cannot load: loading it wrote ${run.forged} lines gate-audit did not write | fix the configuration`,
    );
  }
  for (const line of run.lines) {
    if (line.t === 'config') return { raw: line.raw, hasDefault: line.hasDefault };
    if (line.t === 'error') throw fromWire(line.error);
  }
  throw new GateAuditError('LOAD_FAILED', `cannot load: it ${howItEnded(run)} | fix the configuration so it loads`);
}

/**
 * Runs a whole subcommand (`check-policy`) in an audit child and hands back what it printed.
 *
 * @param argv - the subcommand and its arguments
 * @param cwd - the working directory
 * @param noise - where the loaded modules' own output goes
 */
export async function runCommandSupervised(
  argv: readonly string[],
  cwd: string,
  noise: (chunk: string) => void,
): Promise<{ out: string; err: string; code: number }> {
  const run = await runChild({ kind: 'command', cwd, argv }, { cwd, noise });
  if (run.forged > 0) {
    return {
      out: '',
      err: `gate-audit: ${argv[0] ?? 'command'}: the process loading the modules wrote ${run.forged} lines gate-audit did not write: its results are not trusted\n`,
      code: 2,
    };
  }
  for (const line of run.lines) {
    if (line.t === 'command') return { out: line.out, err: line.err, code: line.code };
  }
  const error = run.lines.findLast((l) => l.t === 'error');
  if (error?.t === 'error') throw fromWire(error.error);
  const module = run.lines.findLast((l) => l.t === 'start');
  return {
    out: '',
    err: `gate-audit: ${argv[0] ?? 'command'}: the process loading the modules ${howItEnded(run)}${module?.t === 'start' ? ` while ${module.module} loaded` : ''} | a module must not end its process while it loads\n`,
    code: 2,
  };
}
