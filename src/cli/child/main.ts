/**
 * The audit child's program: runs one job (read a configuration module, load and audit modules, run an
 * entry point, or a whole subcommand) and writes one JSON line per event to the results file, synchronously,
 * so a line written is a line the CLI reads even when the process dies right after. The functions it writes
 * with are taken before any user code runs.
 */
import { createHmac, createSecretKey } from 'node:crypto';
import { fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { Server } from 'node:net';
import { relative } from 'node:path';
import { auditModule, judgeTree, posix, realOf, underProcessGuard } from '../audit-module.js';
import { loadConfig } from '../config.js';
import { loadJudges } from '../judges.js';
import { importModule, LoadTimeoutError, loadModule } from '../load.js';
import { importClosure } from '../locate.js';
import {
  auditStop,
  esmLoadedFiles,
  type InvokedKind,
  notedProcessGuard,
  onInvocation,
  takeNotedKeyrings,
} from './preload.js';
import {
  type AcceptRule,
  type ChildLine,
  type CommandJob,
  type ConfigJob,
  type EntryJob,
  type Job,
  type ModuleOutcome,
  type ModulesJob,
  TAMPERED_EXIT,
  toWire,
  writableKeyringNote,
} from './protocol.js';
import type { CoverageNote, CoverageReport } from '../../report/schema.js';

// Everything the lines are written with is taken here, before any user code runs: the audited code can
// replace globals and prototypes, not these bindings.
const stringify = JSON.stringify;
const keysOf = Object.keys;
const isArray = Array.isArray;
const exit = process.exit.bind(process);
const reallyExit = (process as unknown as { reallyExit: (code: number) => never }).reallyExit.bind(process);
const fstat = fstatSync;
const apply = Reflect.apply;
const hmacProto = Object.getPrototypeOf(createHmac('sha256', 'x')) as object;
const hmacUpdate = Object.getOwnPropertyDescriptor(hmacProto, 'update')?.value as (data: string) => unknown;
const hmacDigest = Object.getOwnPropertyDescriptor(hmacProto, 'digest')?.value as (encoding: string) => string;
const job = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Job;
// The key that authenticates every line comes on stdin as raw bytes (the CLI writes it and closes it). It is
// kept as a KeyObject (native memory, never a JS string a heap dump would show) and its bytes are zeroed.
const keyBytes = readFileSync(0);
const key = createSecretKey(keyBytes);
keyBytes.fill(0);
const fd = openSync(job.results, 'a');
// The results file this process must write to: if its descriptor comes to point elsewhere (the audited code
// closed it and opened another file, which got the same number), the process ends with TAMPERED_EXIT at once.
const results = fstat(fd);
let seq = 0;

/** JSON text of plain data, without `toJSON` or any other method the audited code could have replaced. */
function toJsonText(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
    return stringify(value) ?? 'null';
  }
  if (typeof value !== 'object') return 'null';
  if (isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i += 1) text += `${i === 0 ? '' : ','}${toJsonText(value[i])}`;
    return `${text}]`;
  }
  let text = '{';
  let first = true;
  for (const name of keysOf(value)) {
    const item = (value as Record<string, unknown>)[name];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    text += `${first ? '' : ','}${stringify(name)}:${toJsonText(item)}`;
    first = false;
  }
  return `${text}}`;
}

function emit(line: ChildLine): void {
  try {
    const now = fstat(fd);
    if (now.ino !== results.ino || now.dev !== results.dev) reallyExit(TAMPERED_EXIT);
    const body = toJsonText({ ...line, seq });
    seq += 1;
    const hmac = createHmac('sha256', key);
    apply(hmacUpdate, hmac, [body]);
    writeSync(fd, `${apply(hmacDigest, hmac, ['hex'])} ${body}\n`);
  } catch {
    // a value that cannot be written: the line is lost, and the CLI reads what is missing as a failure
  }
}

/** The first frame of a stack outside Node, its paths relative to the working directory. */
function callerOf(stack: string | undefined): string | undefined {
  const frames = (stack ?? '').split('\n').slice(2);
  const frame = frames.find((f) => !f.includes('node:internal'))?.trim();
  return frame?.replace('file://', '').replaceAll(`${process.cwd()}/`, '');
}

// How the process ends, whoever ends it.
process.exit = (code?: number | string | null): never => {
  const at = callerOf(new Error().stack);
  emit({ t: 'process-exit', code: code ?? process.exitCode, ...(at === undefined ? {} : { at }) });
  return exit(code ?? undefined);
};
process.on('exit', (code) => emit({ t: 'exit', code }));
process.on('uncaughtExceptionMonitor', (error, origin) => emit({ t: 'fatal', origin, error: toWire(error) }));

/** The text an entry run or a module's own stdout writes goes to stderr (the CLI's stderr). */
const noise = (chunk: string): void => void process.stderr.write(chunk);

function idOf(target: object): string {
  const id: unknown = Object.getOwnPropertyDescriptor(target, 'id')?.value;
  // A LangGraph graph has a name, not an id.
  const name: unknown = Object.getOwnPropertyDescriptor(target, 'name')?.value;
  return typeof id === 'string' ? id : typeof name === 'string' ? name : '?';
}

function stopError(kind: InvokedKind, id: string, where: string): Error {
  return auditStop(
    `gate-audit: stopped ${kind} "${id}" ${where} to audit its tree: this run is an audit (GATE_AUDIT_AUDITING=1), nothing of it runs`,
  );
}

/** What an invocation audit needs. */
interface InvocationSetup {
  readonly plan: boolean;
  readonly configShown?: string;
  readonly where: () => { module: string; absolute: string; projectModule: string } | undefined;
  readonly accept: () => readonly AcceptRule[];
  readonly onTree: (
    target: object,
    tree: { report: CoverageReport; used: number[] } | undefined,
    line: ChildLine,
  ) => void;
}

function watchInvocations(setup: InvocationSetup): void {
  const audited = new WeakSet<object>();
  onInvocation((target, kind, method) => {
    const id = idOf(target);
    const place = setup.where();
    const guard = notedProcessGuard();
    let line: ChildLine = { t: 'invocation', kind, method, id, ...(guard === undefined ? {} : { guard }) };
    let tree: { report: CoverageReport; used: number[] } | undefined;
    if (!audited.has(target)) {
      audited.add(target);
      try {
        const judged = judgeTree(target, setup.accept(), setup, `${place?.module ?? '?'} (${kind} "${id}")`);
        const report: CoverageReport = {
          ...(guard === undefined ? judged.report : underProcessGuard(judged.report, guard)),
          sources: [
            {
              module: place?.module ?? '?',
              export: INVOKED_EXPORT,
              path: [judged.report.root.id],
              factory: false,
              ...(place === undefined ? {} : { projectModule: place.projectModule }),
            },
          ],
        };
        tree = { report, used: judged.used };
        line = { ...line, report, usedAccept: judged.used };
      } catch (error) {
        line = { ...line, problem: error instanceof Error ? error.message : String(error) };
      }
    }
    setup.onTree(target, tree, line);
    return stopError(kind, id, place === undefined ? '' : `(invoked from ${place.module})`);
  });
}

/** The `export` of a tree found where it was invoked (in an entry run, or by a module while it loaded). */
const INVOKED_EXPORT = '(invoked)';

async function runConfig(config: ConfigJob): Promise<void> {
  const { exports: namespace } = await importModule(config.file, relative(config.cwd, config.file), {
    cwd: config.cwd,
    timeoutMs: 2 ** 31 - 1,
    noise,
  });
  const descriptor = Object.getOwnPropertyDescriptor(namespace, 'default');
  const raw: unknown =
    descriptor === undefined ? undefined : 'value' in descriptor ? descriptor.value : descriptor.get?.call(namespace);
  // Factories' argument lists may hold any value: the CLI needs their keys only (the child that loads the
  // modules reads the configuration again for the values).
  emit({
    t: 'config',
    raw: JSON.parse(stringify(raw ?? null) ?? 'null') as unknown,
    hasDefault: descriptor !== undefined,
  });
}

async function runModules(modules: ModulesJob): Promise<void> {
  const factories = await factoriesOf(modules);
  let current: { index: number; module: string; absolute: string } | undefined;
  let invoked: { target: object; report: CoverageReport; used: number[] }[] = [];
  let invokedNote: boolean;
  watchInvocations({
    plan: modules.plan,
    ...(modules.configShown === undefined ? {} : { configShown: modules.configShown }),
    where: () =>
      current === undefined
        ? undefined
        : {
            module: current.module,
            absolute: current.absolute,
            projectModule: posix(relative(modules.root, current.absolute)),
          },
    accept: () =>
      current === undefined
        ? []
        : modules.accept.filter(
            (rule) =>
              (rule.module === undefined || rule.module === realOf(current?.absolute ?? '')) &&
              (rule.export === undefined || rule.export === INVOKED_EXPORT),
          ),
    onTree: (target, tree) => {
      invokedNote = true;
      if (tree !== undefined) invoked.push({ target, ...tree });
    },
  });
  for (const [index, target] of modules.modules.entries()) {
    const shown = relative(modules.cwd, target.absolute) || target.absolute;
    current = { index, module: shown, absolute: target.absolute };
    invoked = [];
    invokedNote = false;
    emit({ t: 'start', index, module: shown });
    const esmBefore = esmLoadedFiles().length;
    let outcome: ModuleOutcome;
    const exportedTargets = new Set<unknown>();
    try {
      const result = await loadModule(
        target.absolute,
        {
          cwd: modules.cwd,
          timeoutMs: modules.timeoutMs,
          noise,
          ...(modules.exportName === undefined ? {} : { exportName: modules.exportName }),
          calls: {
            argumentsFor: (absolute, name) => factories?.argumentsFor(absolute, name),
            callAll: modules.callFactories,
            factoryKey: (absolute) => posix(relative(modules.configDir, absolute)),
          },
        },
        target.explicit || invokedNote,
      );
      for (const found of result.found) exportedTargets.add(found.orchestrator);
      outcome = auditModule(result, modules, modules.failOnUnaudited);
      if (result.stopped === true) {
        // Its import ended in the stop: nothing it exports was read, so the run cannot pass on it.
        outcome = {
          ...outcome,
          notes: [
            ...outcome.notes,
            {
              kind: 'load',
              module: shown,
              message:
                "its import ended in the audit's stop (it invoked an agent or orchestrator at top level and did not catch the stop), so nothing it exports was read",
              fix: `audit it as the entry point it is: gate-audit --entry ${shown}`,
              fails: true,
            },
          ],
        };
      }
    } catch (error) {
      if (error instanceof LoadTimeoutError) {
        outcome = loadFindingOutcome(shown, target.absolute, error.message);
      } else if (invokedNote && isNoOrchestrator(error)) {
        outcome = loadFindingOutcome(shown, target.absolute, undefined);
      } else {
        emit({ t: 'error', index, error: toWire(error) });
        return;
      }
    }
    // A tree it invoked and also exports is audited as exported (as it stands after the import).
    const extra = invoked.filter((i) => !exportedTargets.has(i.target)).map((i) => i.report);
    const notes: CoverageNote[] = [...outcome.notes];
    for (const file of takeNotedKeyrings()) notes.push(writableKeyringNote(shown, file));
    if (invokedNote) {
      notes.push({
        kind: 'invoked-at-import',
        module: shown,
        message:
          'invokes an agent or orchestrator while it is imported: the invocation was stopped and the tree it invoked is audited',
        fix: `audit the app as it runs: gate-audit --entry ${shown}`,
      });
    }
    emit({
      t: 'done',
      index,
      outcome: {
        ...outcome,
        reports: [...outcome.reports, ...extra],
        notes,
        usedAccept: [...new Set([...outcome.usedAccept, ...invoked.flatMap((i) => i.used)])],
        pathsSeen: [...outcome.pathsSeen, ...extra.flatMap((r) => r.nodes.map((n) => n.path.join('/')))],
        closure: [...new Set([...importClosure(target.absolute), ...esmLoadedFiles().slice(esmBefore)])],
      },
    });
    // What the module started (a timer, a rejected promise) runs here, before the next module starts, so a
    // failure it causes is told as coming after this module's import, not as the next module's.
    current = undefined;
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function isNoOrchestrator(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'NO_ORCHESTRATOR';
}

/** The outcome of a module whose load itself is the finding (the import did not finish). */
function loadFindingOutcome(module: string, absolute: string, message: string | undefined): ModuleOutcome {
  return {
    module,
    absolute,
    exports: [],
    reports: [],
    refused: false,
    notes: message === undefined ? [] : [loadNoteOf(module, message)],
    pathsSeen: [],
    usedAccept: [],
    closure: [],
  };
}

/** A load note from an error message of the form `cannot load "m": what | fix`. */
function loadNoteOf(module: string, message: string): CoverageNote {
  const [what = message, ...fix] = message.replace(/^cannot load "[^"]*": /, '').split(' | ');
  return { kind: 'load', module, message: what, ...(fix.length > 0 ? { fix: fix.join(' | ') } : {}), fails: true };
}

async function factoriesOf(
  modules: ModulesJob,
): Promise<{ argumentsFor(absolute: string, name: string): unknown[][] | undefined } | undefined> {
  if (modules.config === undefined) return undefined;
  const { Factories } = await import('../audit-module.js');
  const loaded = await loadConfig({
    cwd: modules.config.cwd,
    file: modules.config.file,
    timeoutMs: modules.timeoutMs,
    noise,
  });
  return new Factories(loaded.config, loaded.dir);
}

async function runEntry(entry: EntryJob): Promise<void> {
  const projectModule = posix(relative(entry.root, entry.entry));
  let closure: Set<string> | undefined;
  const closureReal = (): Set<string> => {
    closure ??= new Set([...importClosure(entry.entry), ...esmLoadedFiles()].map(realOf));
    return closure;
  };
  watchInvocations({
    plan: entry.plan,
    where: () => ({ module: entry.shown, absolute: entry.entry, projectModule }),
    accept: () => {
      closure = undefined;
      return entry.accept.filter((rule) => rule.module === undefined || closureReal().has(rule.module));
    },
    onTree: (_target, _tree, line) => emit(line),
  });
  const listen = Object.getOwnPropertyDescriptor(Server.prototype, 'listen')?.value as (...args: unknown[]) => unknown;
  Object.defineProperty(Server.prototype, 'listen', {
    configurable: true,
    writable: true,
    value: function listening(this: Server, ...args: unknown[]): unknown {
      emit({ t: 'listening' });
      return listen.apply(this, args);
    },
  });
  process.argv = [process.argv[0] ?? process.execPath, entry.entry, ...entry.args];
  // As `node --import gate-audit/register` would, before the entry: a failure here is the CLI's exit 2.
  if (entry.processGuard === true) {
    const { startRegisteredGuard } = await import('../registered-guard.js');
    await startRegisteredGuard(entry.cwd, entry.configFile);
  }
  try {
    await importModule(entry.entry, entry.shown, { cwd: entry.cwd, timeoutMs: 2 ** 31 - 1, noise });
    emit({ t: 'entry-loaded' });
  } catch (error) {
    emit({ t: 'entry-loaded', error: toWire(error) });
  }
  const guard = notedProcessGuard();
  emit({ t: 'guard', ...(guard === undefined ? {} : { guard }) });
  emit({ t: 'keyrings', files: takeNotedKeyrings() });
  emit({ t: 'closure', files: [...new Set([...importClosure(entry.entry), ...esmLoadedFiles()])] });
}

async function runCommand(command: CommandJob): Promise<void> {
  const { main } = await import('../main.js');
  let out = '';
  let err = '';
  const code = await main(
    command.argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { cwd: command.cwd, inChild: true },
  );
  emit({ t: 'command', out, err, code });
}

async function run(): Promise<void> {
  emit({ t: 'ready', pid: process.pid });
  try {
    // The audit of the installed frameworks (and with it @strands-agents/sdk, when installed), before any
    // audited code runs.
    await loadJudges();
    if (job.kind === 'config') await runConfig(job);
    else if (job.kind === 'modules') await runModules(job);
    else if (job.kind === 'command') await runCommand(job);
    else {
      await runEntry(job);
      return; // the entry's own event loop decides when the process ends
    }
  } catch (error) {
    emit({ t: 'error', error: toWire(error) });
  }
  emit({ t: 'end' });
  // process.exit looks up process.reallyExit when called: the one taken at start is what ends the process.
  process.exitCode = 0;
  reallyExit(0);
}

void run();
