/**
 * The audit child's preload (`node --import …/preload.js`, given through `execArgv`, never `NODE_OPTIONS`,
 * which the app's own child processes would inherit). Before any module of the app is imported it
 *
 * - registers the ESM loader hooks (`sdk-hooks.ts`) that hand each SDK module's namespace to this thread;
 * - wraps `Module._load`, because on Node 20 a `require()` of the SDK (ESM, loaded through `require(esm)`)
 *   passes no ESM hook: a required module whose exports hold `Agent`, `Graph` or `Swarm` is checked to lie in
 *   a package named `@strands-agents/sdk`, by its resolved file;
 * - patches each copy's `Agent`, `Graph` and `Swarm` once: `invoke` and `stream`, and below them the steps a
 *   subclass that skips `stream` still reaches before a model is called or an MCP client connects
 *   (`initialize`, `_stream`, `_streamCore`, `_invokeModel`, `_invokeModelWithMiddleware`, `_streamFromModel`,
 *   `executeTools`, where the copy has them), and the SDK's tool classes (a direct call of a tool);
 * - patches each copy of LangGraph's `Pregel` (every compiled graph, and a `createAgent` agent's graph): `invoke`,
 *   `stream`, `streamEvents` and `_streamIterator`, so a graph is stopped before its first node runs.
 *
 * Each patched call asks the handler the audit child installed (`onInvocation`) what to do with the object
 * about to run; the handler audits it and answers with the stop error to throw. Without a handler the call
 * is stopped all the same: nothing runs in an audit.
 */
import Module, { createRequire, register, syncBuiltinESMExports } from 'node:module';
import { MessageChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { dirname, isAbsolute, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AUDIT_GUARD_NOTE, AUDIT_KEYRING_NOTE, AUDITING_MARK } from '../../auditing.js';
import type { ProcessGuardMark } from '../../enforce/process-guard.js';
import { RUN_ENTRY_METHODS, RUN_STEP_METHODS } from '../../frameworks/strands/run-steps.js';
import { AUDIT_STOP_MARK } from '../../walker/marks.js';
import { GRAPH_RUN_METHODS, isPregelModuleUrl } from '../../frameworks/langgraph/package.js';
import { isSdkUrl, SDK_MODULE_KEY } from './sdk-hooks.js';

const nodeRequire = createRequire(import.meta.url);

/** What is about to run. */
export type InvokedKind = 'agent' | 'graph' | 'swarm';

/** Decides what an invocation gets: the error thrown into the app. */
export type InvocationHandler = (target: object, kind: InvokedKind, method: string) => Error;

/** The mark every stop error carries (`Symbol.for`, so any copy of gate-audit recognises it). */
export const STOP_MARK = AUDIT_STOP_MARK;

const ENTRY_METHODS = RUN_ENTRY_METHODS;
const BACKSTOPS: Readonly<Record<InvokedKind, readonly string[]>> = RUN_STEP_METHODS;
const KIND_OF_EXPORT: Readonly<Record<string, InvokedKind>> = { Agent: 'agent', Graph: 'graph', Swarm: 'swarm' };
/** Tool classes whose runs are stopped too (a direct `agent.tool.X.invoke()` or `tool.invoke()` by app code). */
const TOOL_CLASSES = ['FunctionTool', 'ZodTool', 'Tool'];

let handler: InvocationHandler | undefined;
const esmLoaded = new Set<string>();
/** gate-audit's own folder (its `dist/`, or its sources). */
const ownRoot = `${dirname(dirname(dirname(fileURLToPath(import.meta.url))))}${sep}`;

/** Where the loader thread tells the files it loaded (set by `install`). */
let loadedPort: MessagePort | undefined;

function noteLoaded(url: unknown): void {
  if (typeof url !== 'string') return;
  try {
    const file = fileURLToPath(url);
    // gate-audit's own files and its import boxes are not the project's.
    if (!file.startsWith(ownRoot) && !file.includes('gate-audit-box-')) esmLoaded.add(file);
  } catch {
    // not a file
  }
}

let guardNoted: ProcessGuardMark | undefined;

/** The process guard started in this audit process (the first one noted), if any. */
export function notedProcessGuard(): ProcessGuardMark | undefined {
  return guardNoted;
}

function noteGuard(mark: unknown): void {
  if (guardNoted !== undefined || typeof mark !== 'object' || mark === null) return;
  const { by, onUngated, gates } = mark as Partial<ProcessGuardMark>;
  if ((by !== 'guardProcess' && by !== 'register') || (onUngated !== 'refuse' && onUngated !== 'install')) return;
  if (!Array.isArray(gates) || gates.length === 0) return;
  const copied = (gates as unknown[]).flatMap((gate) => {
    const { name, id, perProcess } = (gate ?? {}) as { name?: unknown; id?: unknown; perProcess?: unknown };
    return typeof name === 'string' && typeof id === 'string'
      ? [{ name, id, ...(perProcess === true ? { perProcess: true as const } : {}) }]
      : [];
  });
  if (copied.length !== gates.length) return;
  guardNoted = { by, onUngated, gates: copied };
}

/** Keyring files gates were built to accept writable (`allowWritableKeyring: true`), not yet taken. */
let keyringsNoted: string[] = [];

function noteKeyring(file: unknown): void {
  if (typeof file === 'string' && !keyringsNoted.includes(file) && keyringsNoted.length < 100) keyringsNoted.push(file);
}

/** The keyring files noted since the last call (each gate built with `allowWritableKeyring: true`). */
export function takeNotedKeyrings(): string[] {
  const taken = keyringsNoted;
  keyringsNoted = [];
  return taken;
}

/**
 * The project files (outside `node_modules`) the ESM loader has loaded so far, in load order. Messages the
 * loader thread posted but this thread has not yet dispatched are taken first, synchronously: an import that
 * just failed must not leave the files it loaded out of the list.
 */
export function esmLoadedFiles(): string[] {
  if (loadedPort !== undefined) {
    for (
      let message = receiveMessageOnPort(loadedPort);
      message !== undefined;
      message = receiveMessageOnPort(loadedPort)
    ) {
      noteLoaded(message.message);
    }
  }
  return [...esmLoaded];
}
const patched = new WeakSet<object>();

/**
 * Installs what each invocation gets (the audit child's handler).
 *
 * @param next - the handler
 */
export function onInvocation(next: InvocationHandler): void {
  handler = next;
}

/**
 * The error thrown into the audited code in place of what it called: named `GateAuditStop`, marked with
 * `STOP_MARK` (the one mark every reader of a stop checks).
 *
 * @param message - what was stopped, and why
 */
export function auditStop(message: string): Error {
  const stop = new Error(message);
  stop.name = 'GateAuditStop';
  Object.defineProperty(stop, STOP_MARK, { value: true });
  return stop;
}

function stopFor(target: object, kind: InvokedKind, method: string): Error {
  try {
    if (handler !== undefined) return handler(target, kind, method);
  } catch (error) {
    return auditStop(`gate-audit: the audit of this ${kind} failed (${String(error)}); it was stopped`);
  }
  return auditStop(`gate-audit: this ${kind} was stopped before it ran (an audit runs nothing)`);
}

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]';
}

/** An async generator whose first `next()` rejects with `stop` (what an async generator that throws gives). */
function stoppedGenerator(stop: Error): AsyncGenerator<never, never> {
  const generator: AsyncGenerator<never, never> = {
    next: () => Promise.reject(stop),
    return: (value?: unknown) => Promise.resolve({ done: true, value: value as never }),
    throw: (error?: unknown) => Promise.reject(error instanceof Error ? error : stop),
    [Symbol.asyncIterator]: () => generator,
  };
  return generator;
}

function wrap(proto: object, name: string, kind: InvokedKind): void {
  const descriptor = Object.getOwnPropertyDescriptor(proto, name);
  const original: unknown = descriptor?.value;
  if (descriptor === undefined || typeof original !== 'function') return;
  const generator = isAsyncGeneratorFunction(original);
  const replacement = generator
    ? function (this: object): AsyncGenerator<never, never> {
        const stop = stopFor(this, kind, name);
        return stoppedGenerator(stop);
      }
    : function (this: object): Promise<never> {
        return Promise.reject(stopFor(this, kind, name));
      };
  Object.defineProperty(replacement, 'name', { value: name });
  Object.defineProperty(proto, name, { ...descriptor, value: replacement });
}

/** Stops every run of a tool class's instances: `stream` and `invoke`, wherever they are called from. */
function patchToolClass(cls: unknown): void {
  if (typeof cls !== 'function' || patched.has(cls)) return;
  const proto: unknown = Object.getOwnPropertyDescriptor(cls, 'prototype')?.value;
  if (typeof proto !== 'object' || proto === null) return;
  patched.add(cls);
  for (const name of ['stream', 'invoke']) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor === undefined || typeof descriptor.value !== 'function') continue;
    const generator = isAsyncGeneratorFunction(descriptor.value);
    const stop = (): Error =>
      auditStop('gate-audit: a tool was called directly while auditing (GATE_AUDIT_AUDITING=1); it did not run');
    const replacement = generator
      ? (): AsyncGenerator<never, never> => stoppedGenerator(stop())
      : (): Promise<never> => Promise.reject(stop());
    Object.defineProperty(proto, name, { ...descriptor, value: replacement });
  }
}

function patchClass(cls: unknown, kind: InvokedKind): boolean {
  if (typeof cls !== 'function' || patched.has(cls)) return false;
  const proto: unknown = Object.getOwnPropertyDescriptor(cls, 'prototype')?.value;
  if (typeof proto !== 'object' || proto === null) return false;
  patched.add(cls);
  for (const name of [...ENTRY_METHODS, ...BACKSTOPS[kind]]) wrap(proto, name, kind);
  return true;
}

/** Stops every run of a LangGraph compiled graph (`Pregel` and its subclasses): the handler audits the graph. */
function patchPregel(cls: unknown): void {
  if (typeof cls !== 'function' || patched.has(cls)) return;
  const proto: unknown = Object.getOwnPropertyDescriptor(cls, 'prototype')?.value;
  if (typeof proto !== 'object' || proto === null) return;
  patched.add(cls);
  for (const name of GRAPH_RUN_METHODS) wrap(proto, name, 'graph');
}

/** Patches the classes an SDK namespace (or a `require`d SDK module's exports) holds. */
function noteSdkExports(exports: unknown): void {
  if ((typeof exports !== 'object' && typeof exports !== 'function') || exports === null) return;
  let pregel: unknown;
  try {
    pregel = Object.getOwnPropertyDescriptor(exports, 'Pregel')?.value;
  } catch {
    pregel = undefined;
  }
  if (pregel !== undefined) patchPregel(pregel);
  for (const [name, kind] of Object.entries(KIND_OF_EXPORT)) {
    let value: unknown;
    try {
      value = Object.getOwnPropertyDescriptor(exports, name)?.value;
    } catch {
      value = undefined; // a binding not yet initialised
    }
    if (value !== undefined) patchClass(value, kind);
  }
  for (const name of TOOL_CLASSES) {
    let value: unknown;
    try {
      value = Object.getOwnPropertyDescriptor(exports, name)?.value;
    } catch {
      value = undefined;
    }
    patchToolClass(value);
  }
}

function holdsSdkClass(exports: unknown): boolean {
  if ((typeof exports !== 'object' && typeof exports !== 'function') || exports === null) return false;
  try {
    return [...Object.keys(KIND_OF_EXPORT), 'Pregel'].some(
      (name) => Object.getOwnPropertyDescriptor(exports, name) !== undefined,
    );
  } catch {
    return false;
  }
}

interface ModuleInternals {
  _load: (this: void, ...args: unknown[]) => unknown;
  _resolveFilename: (this: void, request: string, parent: unknown, isMain: boolean) => string;
}

/**
 * No process or worker starts in an audit: what it would run (an agent, a tool body, a daemon that outlives
 * the audit) is out of the preload's sight. `child_process` and `worker_threads` refuse, naming why.
 */
function refuseProcesses(): void {
  const refuse = (what: string) => (): never => {
    throw new Error(
      `gate-audit: ${what} is refused while auditing (GATE_AUDIT_AUDITING=1): nothing the audited code starts may run`,
    );
  };
  const childProcess = nodeRequire('node:child_process') as Record<string, unknown>;
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = refuse(`child_process.${name}()`);
  }
  // The inspector and heap snapshots could read what gate-audit's own code keeps in its closures.
  const inspector = nodeRequire('node:inspector') as Record<string, unknown>;
  inspector.Session = class RefusedSession {
    constructor() {
      refuse('an inspector Session')();
    }
  };
  inspector.open = refuse('inspector.open()');
  const v8 = nodeRequire('node:v8') as Record<string, unknown>;
  v8.writeHeapSnapshot = refuse('v8.writeHeapSnapshot()');
  v8.getHeapSnapshot = refuse('v8.getHeapSnapshot()');
  // Node's internal bindings reach all of the above (spawn_sync, process_wrap, inspector) without the modules.
  const processBindings = process as unknown as Record<string, unknown>;
  processBindings.binding = refuse('process.binding()');
  processBindings._linkedBinding = refuse('process._linkedBinding()');
  // Loader hooks of the audited code could hand it a copy of the SDK the preload never sees.
  const moduleApi = Module as unknown as Record<string, unknown>;
  moduleApi.register = refuse('module.register()');
  if (typeof moduleApi.registerHooks === 'function') moduleApi.registerHooks = refuse('module.registerHooks()');
  const workers = nodeRequire('node:worker_threads') as Record<string, unknown>;
  workers.Worker = class RefusedWorker {
    constructor() {
      refuse('new Worker()')();
    }
  };
  syncBuiltinESMExports();
}

function install(): void {
  const globals = globalThis as Record<symbol, unknown>;
  const key = Symbol.for(SDK_MODULE_KEY);
  if (globals[key] !== undefined) return;
  Object.defineProperty(globals, AUDITING_MARK, { value: true, configurable: false, writable: false });
  Object.defineProperty(globals, AUDIT_GUARD_NOTE, { value: noteGuard, configurable: false, writable: false });
  Object.defineProperty(globals, AUDIT_KEYRING_NOTE, { value: noteKeyring, configurable: false, writable: false });
  Object.defineProperty(globals, key, {
    value: (namespace: unknown): void => noteSdkExports(namespace),
    configurable: false,
    writable: false,
  });
  const channel = new MessageChannel();
  channel.port1.on('message', noteLoaded);
  channel.port1.unref();
  loadedPort = channel.port1;
  register('./sdk-hooks.js', import.meta.url, { data: { port: channel.port2 }, transferList: [channel.port2] });
  refuseProcesses();
  const internals = Module as unknown as ModuleInternals;
  const load = internals._load;
  const resolveFilename = internals._resolveFilename;
  // Module._load takes more arguments on some Node versions: all of them are passed on.
  internals._load = function gateAuditLoad(this: unknown, ...args: unknown[]): unknown {
    const exports: unknown = Reflect.apply(load, this, args);
    if (holdsSdkClass(exports)) {
      try {
        const [request, parent, isMain] = args;
        const file = Reflect.apply(resolveFilename, internals, [request, parent, isMain]) as string;
        const url = isAbsolute(file) ? pathToFileURL(file).href : '';
        if (isSdkUrl(url) || isPregelModuleUrl(url)) noteSdkExports(exports);
      } catch {
        // not a file (a builtin): not the SDK
      }
    }
    return exports;
  };
}

install();
