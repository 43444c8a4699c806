/**
 * The process guard: no agent of this process calls its model or runs a tool without one of the guard's gates.
 *
 * This is its framework-neutral part: the options, the mark, and finding every copy of a framework the process
 * loads (ESM loader hooks, `Module._load`, the scripts V8 compiled, `node_modules` on disk). Each framework has its
 * stand: LangGraph.js's (`frameworks/langgraph/process-guard.ts`, each copy's `Pregel.prototype.stream`) is always
 * here; the Strands SDK's (`frameworks/strands/process-guard.ts`, each copy's hook registry) joins when its module
 * loads, which the main entry does, and `gate-audit/register` does when the SDK is installed. Without it (a
 * LangGraph.js app started the guard from `gate-audit/langgraph`), every copy of `@strands-agents/sdk` is refused
 * whole, however and whenever it was loaded: its registry's dispatch rejects every event (`refusingStand`).
 *
 * **Finding copies.** They are found (1) by the loader hooks registered with the guard (`guard-hooks.ts`), for
 * copies imported later, and by `gate-audit/register` from the first import; (2) by wrapping `Module._load`, for a
 * `require()` of a copy (Node 20 runs no ESM hook for `require(esm)`); (3) when the guard starts, in
 * `require.cache` and among the scripts V8 compiled (or, without an inspector, on disk in the `node_modules`
 * folders above the working directory and the main module).
 *
 * What it cannot see is listed in docs/guarantees.md ("What it cannot cover"): an agent whose hook registry is
 * replaced by another object, `A2AAgent` (no hooks in this process), a direct call of a model or a tool.
 */
import { existsSync, readdirSync } from 'node:fs';
import type * as Inspector from 'node:inspector';
import type { register } from 'node:module';
import Module, { createRequire, syncBuiltinESMExports } from 'node:module';
import { types } from 'node:util';
import { dirname, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AUDIT_GUARD_NOTE, isAuditing } from '../auditing.js';
import { GateAuditError, GateFailedError, messageOf } from '../errors.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import { PROCESS_GUARD_MARK } from '../walker/marks.js';
import { readData } from '../walker/safe-read.js';
import { configuredDefaultGate, type Gate } from './gate.js';
import { type GateIdentity, gateIdentity, viewGate } from './gate-identity.js';
import { CONFIGURED } from './gate-source.js';
import { GUARD_MODULE_KEY, withGuardLine } from './guard-hooks.js';
import type { AcceptEntry } from './install-options.js';
import { modulePathOf, sdkRootOf, SDK_PACKAGE } from '../frameworks/strands/sdk-package.js';
import {
  copyRegistry,
  freezeChain,
  realOr,
  refuseRuns,
  registryOf,
  takeCopyAt,
} from '../frameworks/strands/sdk-copies.js';
import { langGraphAdapter } from '../frameworks/langgraph/adapter.js';
import { installLangGraph } from '../frameworks/langgraph/install.js';
import { isPregelModuleUrl } from '../frameworks/langgraph/package.js';
import { guardPregel } from '../frameworks/langgraph/process-guard.js';
import { stopRunOf } from '../frameworks/langgraph/runtime.js';
import { rejected } from './settle.js';

/** What the guard does with an agent or orchestrator that carries none of its gates. */
export type OnUngated = 'refuse' | 'install';

/** Options of `guardProcess`. */
export interface ProcessGuardOptions {
  /** The gate, or the gates, an agent may carry (one app may run several trees under different gates). */
  readonly gates: Gate | readonly Gate[];
  /**
   * Remote or opaque executors allowed to run, by place (`[{ path, reason }]` as `installMultiagent` takes
   * it). Used where the guard installs a gate on a tree (`onUngated: 'install'`).
   */
  readonly accept?: readonly AcceptEntry[];
  /** `refuse` (default): the run fails with `GateFailedError`. `install`: the first gate is installed. */
  readonly onUngated?: OnUngated;
}

/** The guard of this process, as started. */
export interface ProcessGuard {
  /** Who started it: `guardProcess()` in the app, or `--import gate-audit/register`. */
  readonly by: 'guardProcess' | 'register';
  /** What it does with an agent that carries none of its gates. */
  readonly onUngated: OnUngated;
  /** Its gates. */
  readonly gates: readonly GateIdentity[];
  /** The folders of the SDK copies it stands on so far (gate-audit's own first). */
  copies(): readonly string[];
}

/** The mark left on `globalThis` (a frozen summary, for the audit child): `Symbol.for`, read by any copy. */
export { PROCESS_GUARD_MARK };

/** The summary the mark holds. */
export interface ProcessGuardMark {
  readonly by: 'guardProcess' | 'register';
  readonly onUngated: OnUngated;
  readonly gates: readonly GateIdentity[];
}

/** The guard's options as a framework's stand reads them. */
export interface GuardState {
  readonly gates: readonly Gate[];
  readonly ids: ReadonlySet<string>;
  /** The gates' names, quoted, for messages. */
  readonly names: string;
  readonly accept: readonly AcceptEntry[] | undefined;
  readonly onUngated: OnUngated;
}

interface Active extends GuardState {
  readonly guard: ProcessGuard;
  readonly acceptKey: string;
}

/** The Strands SDK's stand (`frameworks/strands/process-guard.ts`), as the neutral part calls it. */
export interface StrandsStand {
  /** Checks the SDK gate-audit runs on and stands on its own copy (when the guard starts). */
  start(): void;
  /** Takes a module of a copy, from its namespace (a loader hook's line, or a copy's entry `require`d). */
  take(namespace: unknown, url: string): void;
  /** Guards the copy in a folder, through its entry. */
  guardCopyAt(root: string): void;
  /** The folder of gate-audit's own copy. */
  ownRoot(): string;
  /** The folders of the copies it stands on so far (gate-audit's own first). */
  copies(): readonly string[];
}

let active: Active | undefined;
let strands: StrandsStand | undefined;
/** The URLs of the LangGraph `Pregel` modules the guard stands on. */
const pregelModules = new Set<string>();
/** Copies handed over before the guard started (by `register`'s hooks): guarded when it starts. */
const waiting: { namespace: unknown; url: string }[] = [];
let takerDefined = false;
let requireWrapped = false;
let hooksRegistered = false;
let hooked = false;

const nodeRequire = createRequire(import.meta.url);
// Taken when gate-audit loads: code that replaces it later cannot change what the guard calls.
const apply = Reflect.apply;

/** The guard as started, for a framework's stand (undefined before it starts). */
export function activeGuard(): GuardState | undefined {
  return active;
}

/**
 * Joins the Strands SDK's stand (once; `frameworks/strands/process-guard.ts` calls it when it loads). A guard
 * started before stands on the SDK from now on.
 *
 * @param stand - the stand
 */
export function standOnStrands(stand: StrandsStand): void {
  if (strands !== undefined) return;
  if (active !== undefined && !isAuditing()) {
    // A copy the guard refused whole before (its own among them, when the main entry is imported after the guard
    // started from gate-audit/langgraph) stays refused: standing on it throws, and the stand does not join.
    stand.start();
    guardKnownCopies(stand);
  }
  strands = stand;
}

/** Refuses a copy of the Strands SDK that the guard without its Strands part cannot refuse whole. */
function noStrandsStand(root: string, what: string): GateAuditError {
  return new GateAuditError(
    'SDK_SHAPE',
    `sdk=<${root}> | the process guard was started without its ${SDK_PACKAGE} part (from gate-audit/langgraph, or ` +
      `gate-audit/register where gate-audit cannot resolve the SDK), and cannot refuse this copy whole: ${what} | ` +
      `start it with guardProcess from 'gate-audit' (the main entry), or install ${SDK_PACKAGE} where gate-audit resolves it`,
  );
}

const refusedRoots: string[] = [];
const refusedPrototypes = new WeakSet<object>();

/** Why an agent or orchestrator of a copy refused whole does not run. */
function refusedCopy(root: string): string {
  return (
    `an agent or orchestrator of ${SDK_PACKAGE} (${root}) is about to run, and the process guard has no Strands ` +
    'part to judge it (it was started from gate-audit/langgraph, or where gate-audit cannot resolve the SDK), so it ' +
    `refuses it | start the guard with guardProcess from 'gate-audit' (the main entry), or install ${SDK_PACKAGE} where gate-audit resolves it`
  );
}

/**
 * Refuses one copy's hook registry class whole: its dispatch rejects every event, fixed in place (its class and
 * the classes it inherits from frozen), so no agent or orchestrator of the copy starts a run, calls its model or
 * runs a tool. A refusal inside a gated LangGraph run stops that run too.
 */
function refuseDispatch(proto: object, root: string): void {
  if (refusedPrototypes.has(proto)) return;
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'invokeCallbacks');
  if (typeof descriptor?.value !== 'function' || descriptor.configurable !== true) {
    throw noStrandsStand(root, 'its hook registry has no invokeCallbacks method that can be replaced');
  }
  const failure = refusedCopy(root);
  const invokeCallbacks = function invokeCallbacks(): Promise<never> {
    stopRunOf(undefined, failure);
    return rejected(new GateFailedError(failure));
  };
  Object.defineProperty(proto, 'invokeCallbacks', {
    value: invokeCallbacks,
    writable: false,
    configurable: false,
    enumerable: descriptor.enumerable === true,
  });
  freezeChain(proto);
  refusedPrototypes.add(proto);
  if (!refusedRoots.includes(root)) refusedRoots.push(root);
}

/** Takes a module of a copy where the guard has no Strands part: the copy is refused whole, through its entry. */
function refuseWhole(namespace: unknown, url: string): void {
  const root = sdkRootOf(url) ?? url;
  refuseRuns(
    namespace,
    () => new GateFailedError(refusedCopy(root)),
    (what) => noStrandsStand(root, what),
  );
  const found = copyRegistry(namespace, url, noStrandsStand);
  if (found !== undefined) refuseDispatch(found.proto, found.root);
}

/** Copies being refused through their entry right now (a `require` of the entry passes the wrapper again). */
const refusing = new Set<string>();

/** Refuses the copy in `root` through its entry. */
function refuseCopyAt(root: string): void {
  if (refusedRoots.includes(root) || refusing.has(root)) return;
  refusing.add(root);
  try {
    takeCopyAt(root, refuseWhole, () => refusedRoots.includes(root), noStrandsStand, 'refused');
  } finally {
    refusing.delete(root);
  }
}

/**
 * Where the Strands SDK's stand has not joined: every copy of the SDK is refused whole (see `refuseDispatch`),
 * however it was loaded, before the guard started or after.
 */
const refusingStand: StrandsStand = {
  start(): void {},
  take: refuseWhole,
  guardCopyAt: refuseCopyAt,
  ownRoot: () => '',
  copies: () => [...refusedRoots],
};

/** The Strands stand, or the one that refuses every copy when it has not joined. */
function strandsStand(): StrandsStand {
  return strands ?? refusingStand;
}

/** Gate ids by gate object, read once (a gate's declared id is its own claim, as for every reader of it). */
const idsOfGates = new WeakMap<object, string | null>();

/**
 * The id of the gate a mark names (a gate's declared id, or its object's), read once per gate.
 *
 * @param key - the gate key a mark holds (a gate, or the configured gate's key)
 */
export function gateIdOf(key: unknown): string | undefined {
  const gate = key === CONFIGURED ? configuredDefaultGate() : key;
  if (typeof gate !== 'object' || gate === null) return undefined;
  let id = idsOfGates.get(gate);
  if (id === undefined) {
    const view = viewGate(gate);
    id = 'error' in view ? null : view.id;
    idsOfGates.set(gate, id);
  }
  return id ?? undefined;
}

/**
 * Why a LangGraph graph about to start a root run must not run, or undefined: it must carry, live, a gate this
 * copy of gate-audit installed whose id is one of the guard's; with `onUngated: 'install'` the guard installs its
 * first gate on the whole tree first.
 */
function judgeGraph(graph: object): string | undefined {
  const guard = active;
  if (guard === undefined) return undefined;
  const carries = (): boolean => {
    const state = langGraphAdapter.gateState(graph);
    const id = state.state === 'gated' ? gateIdOf(state.gateKey) : undefined;
    return id !== undefined && guard.ids.has(id);
  };
  if (carries()) return undefined;
  const name = `graph "${segmentOf(readData(graph, 'name'), UNNAMED)}"`;
  if (guard.onUngated === 'install') {
    let failed: string | undefined;
    try {
      installLangGraph(graph, {
        gate: guard.gates[0] as Gate,
        ...(guard.accept === undefined ? {} : { accept: guard.accept }),
      });
    } catch (error) {
      failed = messageOf(error);
    }
    if (failed === undefined && carries()) return undefined;
    return `the process guard could not gate ${name}: ${failed ?? 'its gate is not live'} | gate it at startup with installMultiagent`;
  }
  return (
    `${name} (LangGraph) is unguarded: it carries none of the process guard's gates (${guard.names}) | ` +
    "call installMultiagent(graph, { gate }) at startup, or guard with onUngated: 'install'"
  );
}

/** Guards the copy a framework module belongs to, from its namespace. */
function take(namespace: unknown, url: string): void {
  if (active === undefined) {
    waiting.push({ namespace, url });
    return;
  }
  if (isPregelModuleUrl(url)) {
    // A copy of LangGraph's compiled graph: every graph starting a run is judged (`judgeGraph`).
    let pregel: unknown;
    try {
      pregel = Object.getOwnPropertyDescriptor(namespace, 'Pregel')?.value;
    } catch {
      pregel = undefined;
    }
    if (!guardPregel(pregel, judgeGraph)) {
      throw new GateAuditError(
        'SDK_SHAPE',
        `file=<${url}> | the process guard cannot stand on this copy of @langchain/langgraph: its Pregel class has no stream or _streamIterator it can wrap | use a tested version`,
      );
    }
    pregelModules.add(url);
    return;
  }
  strandsStand().take(namespace, url);
}

/** Defines the callback the guard's loader hooks call (once; it cannot be replaced). */
function defineTaker(): void {
  if (takerDefined) return;
  const key = Symbol.for(GUARD_MODULE_KEY);
  if (Object.getOwnPropertyDescriptor(globalThis, key) === undefined) {
    Object.defineProperty(globalThis, key, { value: take, writable: false, configurable: false });
  }
  takerDefined = true;
}

interface ModuleInternals {
  _load: (this: void, ...args: unknown[]) => unknown;
  _resolveFilename: (this: void, request: string, parent: unknown, isMain: boolean) => string;
  _cache: Record<string, { exports?: unknown } | undefined>;
}

/** A `require()` of an SDK copy passes no ESM hook on Node 20: its exports are taken here. */
function wrapRequire(): void {
  if (requireWrapped) return;
  requireWrapped = true;
  const internals = Module as unknown as ModuleInternals;
  const load = internals._load;
  const resolveFilename = internals._resolveFilename;
  internals._load = function gateAuditGuardLoad(this: unknown, ...args: unknown[]): unknown {
    const exports: unknown = Reflect.apply(load, this, args);
    if (active !== undefined && isNamespace(exports)) {
      // require() of an ES module: the modules it imports pass no loader hook, so a copy of either framework
      // among them is found among the scripts V8 compiled (without an inspector, every copy on disk is taken).
      takeLoadedCopies(compiledScripts());
    }
    if (active !== undefined) {
      let file: string | undefined;
      try {
        const [request, parent, isMain] = args;
        file = Reflect.apply(resolveFilename, internals, [request, parent, isMain]) as string;
      } catch {
        file = undefined; // a builtin: not the SDK
      }
      if (file !== undefined && isAbsolute(file)) {
        const url = pathToFileURL(file).href;
        if (isPregelModuleUrl(url)) take(exports, url);
        const root = sdkRootOf(url);
        if (root !== undefined) {
          const stand = strandsStand();
          if (registryOf(exports) !== undefined) stand.take(exports, url);
          // Any other file of a copy (a subpath, a deep require): the copy itself is taken through its entry.
          else stand.guardCopyAt(realOr(root));
        }
      }
    }
    return exports;
  };
}

const isNamespace = types.isModuleNamespaceObject;

/** The original `module.register`, taken before the guard wraps it. */
const registerHooksOf = Module as unknown as {
  register: typeof register;
  registerHooks?: (hooks: { load?: (url: string, context: unknown, next: unknown) => unknown }) => unknown;
};
const originalRegister = registerHooksOf.register;

/**
 * Loader hooks an app registers after the guard run before the guard's own (the last registered runs first) and
 * could hand the app a copy of the SDK without ever calling the guard's hook: after each `module.register` the
 * guard registers its hooks again, first in the chain; the `load` of synchronous hooks (`module.registerHooks`)
 * gets the guard line appended to what it returns.
 */
function wrapModuleHooks(): void {
  registerHooksOf.register = function registerThenGuard(this: unknown, ...args: unknown[]): unknown {
    const result = apply(originalRegister as (...a: unknown[]) => unknown, Module, args);
    apply(originalRegister as (...a: unknown[]) => unknown, Module, ['./guard-hooks.js', import.meta.url]);
    return result;
  };
  const registerHooks = registerHooksOf.registerHooks;
  if (typeof registerHooks === 'function') {
    registerHooksOf.registerHooks = function registerHooksGuarded(hooks): unknown {
      const load = hooks?.load;
      const guarded =
        typeof load === 'function'
          ? {
              ...hooks,
              load: (url: string, context: unknown, next: unknown): unknown => {
                const result: unknown = load(url, context, next);
                return typeof result === 'object' && result !== null
                  ? withGuardLine(url, result as { format?: string | null; source?: string | null })
                  : result;
              },
            }
          : hooks;
      return apply(registerHooks, Module, [guarded]);
    };
  }
  syncBuiltinESMExports();
}

/** The folders of SDK copies on disk, in `node_modules` above `from` (nested ones included, bounded). */
function copiesOnDisk(from: readonly string[], pkg: string = SDK_PACKAGE): string[] {
  const found = new Set<string>();
  let budget = 20_000;
  const visit = (modules: string, depth: number): void => {
    if (depth > 8 || budget <= 0) return;
    let names: string[];
    try {
      names = readdirSync(modules);
    } catch {
      return;
    }
    for (const name of names) {
      budget -= 1;
      if (budget <= 0) return;
      // pnpm keeps every package under node_modules/.pnpm/<name@version>/node_modules: looked into; other dot
      // folders (.bin, caches) are not.
      if (name === '.pnpm') {
        for (const dir of scoped(join(modules, name))) {
          const nested = join(dir, 'node_modules');
          if (existsSync(nested)) visit(nested, depth + 1);
        }
        continue;
      }
      if (name.startsWith('.')) continue;
      const dirs = name.startsWith('@') ? scoped(join(modules, name)) : [join(modules, name)];
      for (const dir of dirs) {
        if (dir === join(modules, pkg)) found.add(realOr(dir));
        const nested = join(dir, 'node_modules');
        if (existsSync(nested)) visit(nested, depth + 1);
      }
    }
  };
  const scoped = (scope: string): string[] => {
    try {
      return readdirSync(scope).map((n) => join(scope, n));
    } catch {
      return [];
    }
  };
  const seen = new Set<string>();
  for (const start of from) {
    for (let dir = start; ; dir = dirname(dir)) {
      const modules = join(dir, 'node_modules');
      if (!seen.has(modules) && existsSync(modules)) {
        seen.add(modules);
        visit(modules, 0);
      }
      if (dirname(dir) === dir) break;
    }
  }
  return [...found];
}

/**
 * Stands on a LangGraph `Pregel` module loaded as an ES module where no loader hook of the guard's saw it (imported
 * before the guard started, or by an ES module a `require()` loaded): `require()` of an ES module already loaded
 * returns its namespace, at once. One loaded under another URL than its file's (a loader hook's) cannot be reached
 * so: it is refused.
 *
 * @throws GateAuditError `SDK_SHAPE` when it cannot be reached
 */
function takeLoadedPregel(url: string): void {
  // The `require()` below passes the guard's own wrapper of `Module._load`, which takes the module too.
  if (pregelModules.has(url) || reaching.has(url)) return;
  const file = modulePathOf(url);
  let namespace: unknown;
  reaching.add(url);
  try {
    if (file === undefined || pathToFileURL(file).href !== url) {
      throw new Error("it was loaded under another URL than its file's");
    }
    namespace = nodeRequire(file);
  } catch (error) {
    throw new GateAuditError(
      'SDK_SHAPE',
      `file=<${url}> | a copy of @langchain/langgraph was loaded where the process guard cannot reach it ` +
        `(${messageOf(error)}), so its graphs could run unguarded | start node with --import gate-audit/register ` +
        '(the guard stands before any import)',
    );
  } finally {
    reaching.delete(url);
  }
  take(namespace, url);
}

/** The `Pregel` modules being reached through `require()` right now. */
const reaching = new Set<string>();

/**
 * Takes every framework copy loaded without a loader hook of the guard's: those among the compiled scripts, or,
 * without an inspector to list them, every copy on disk where the app resolves packages from.
 *
 * @param compiled - the compiled scripts, or undefined without an inspector
 * @param stand - the Strands stand the SDK's copies go to
 * @param pregelOnDisk - whether LangGraph's copies on disk are taken too when there is no inspector (not when the
 *   guard's loader hooks saw every import since the process started)
 */
function takeLoadedCopies(compiled: Set<string> | undefined, stand = strandsStand(), pregelOnDisk = true): void {
  const pregel =
    compiled !== undefined
      ? [...compiled].filter(isPregelModuleUrl)
      : pregelOnDisk
        ? copiesOnDisk(startFolders(), '@langchain/langgraph')
            .map((root) => join(root, 'dist/pregel/index.js'))
            .filter((file) => existsSync(file))
            .map((file) => pathToFileURL(file).href)
        : [];
  for (const url of pregel) takeLoadedPregel(url);
  const own = stand.ownRoot();
  const roots = compiled !== undefined ? loadedCopies(compiled) : copiesOnDisk(startFolders());
  for (const root of roots) if (root !== own) stand.guardCopyAt(root);
}

/**
 * Takes the copies loaded (or loadable) before the guard started: those in `require.cache`, then those among the
 * compiled scripts (or on disk); the Strands SDK's through its stand, or refused without one.
 *
 * @param stand - the Strands stand
 */
function guardKnownCopies(stand = strandsStand()): void {
  const cache = (Module as unknown as ModuleInternals)._cache;
  for (const [file, entry] of Object.entries(cache)) {
    const url = pathToFileURL(file).href;
    // A CommonJS copy of LangGraph already required; a copy of the SDK's entry.
    if (isPregelModuleUrl(url)) take(entry?.exports, url);
    else if (sdkRootOf(url) !== undefined && registryOf(entry?.exports) !== undefined) stand.take(entry?.exports, url);
  }
  // An ES module copy of LangGraph imported before the guard (a static import of it is one) is reached through
  // `require()`, which returns an ES module already loaded.
  takeLoadedCopies(compiledScripts(), stand, !hooked);
}

/** Where the app resolves packages from: the working directory and the main module's folder. */
function startFolders(): string[] {
  return [process.cwd(), ...(process.argv[1] === undefined ? [] : [dirname(realOr(process.argv[1]))])];
}

// The inspector's session class and the methods the listing calls, taken when gate-audit loads: code that replaces
// them later cannot make the listing come back empty.
const inspectorSession = (():
  | { Session: new () => object; call: (name: string) => (...a: unknown[]) => unknown }
  | undefined => {
  try {
    const { Session } = nodeRequire('node:inspector') as typeof Inspector;
    const members = new Map<string, (...a: unknown[]) => unknown>();
    for (const name of ['connect', 'post', 'disconnect']) {
      const method: unknown = Reflect.get(Session.prototype, name);
      if (typeof method !== 'function') return undefined;
      members.set(name, method as (...a: unknown[]) => unknown);
    }
    return {
      Session: Session as unknown as new () => object,
      call: (name: string) => members.get(name) as (...a: unknown[]) => unknown,
    };
  } catch {
    return undefined;
  }
})();

/**
 * The URLs of every script this process has compiled so far, whatever loaded it (ESM, `require`, from any folder,
 * under any URL a loader hook gave), as an in-process inspector session lists them when its debugger is enabled
 * (synchronously; it is disabled again at once). Undefined when the inspector is not there.
 */
function compiledScripts(): Set<string> | undefined {
  if (inspectorSession === undefined) return undefined;
  const { Session, call } = inspectorSession;
  const urls = new Set<string>();
  let listed = false;
  let session: object;
  try {
    session = new Session();
  } catch {
    return undefined;
  }
  // The session's events reach this own member, whatever the event emitter's methods are by now.
  Object.defineProperty(session, 'emit', {
    value: (method: unknown, message: { params?: { url?: unknown } } | undefined): boolean => {
      const url = message?.params?.url;
      if (method === 'Debugger.scriptParsed' && typeof url === 'string' && url !== '') urls.add(url);
      return true;
    },
  });
  try {
    apply(call('connect'), session, []);
    apply(call('post'), session, [
      'Debugger.enable',
      (error: Error | null) => {
        listed = error === null;
      },
    ]);
    apply(call('post'), session, ['Debugger.disable']);
  } catch {
    return undefined;
  } finally {
    try {
      apply(call('disconnect'), session, []);
    } catch {
      // not connected
    }
  }
  return listed ? urls : undefined;
}

/** The folders of every SDK copy whose code this process has loaded so far (`compiledScripts`). */
function loadedCopies(scripts: ReadonlySet<string>): Set<string> {
  const roots = new Set<string>();
  for (const url of scripts) {
    const root = sdkRootOf(url);
    if (root !== undefined) roots.add(realOr(root));
  }
  return roots;
}

function isAcceptEntry(entry: unknown): entry is AcceptEntry {
  if (typeof entry !== 'object' || entry === null) return false;
  const { path, reason } = entry as { path?: unknown; reason?: unknown };
  return typeof path === 'string' && typeof reason === 'string' && reason.trim() !== '';
}

function acceptOf(accept: unknown, subject: string): readonly AcceptEntry[] | undefined {
  if (accept === undefined) return undefined;
  if (!Array.isArray(accept) || !(accept as unknown[]).every(isAcceptEntry)) {
    throw new GateAuditError(
      'INVALID_ACCEPT',
      `subject=<${subject}>, field=<accept> | expected a list of { path, reason } with a reason each | see installMultiagent's accept`,
    );
  }
  return (accept as AcceptEntry[]).map((e) => ({ path: e.path, reason: e.reason }));
}

function normalise(options: ProcessGuardOptions): Omit<Active, 'guard'> & { identities: GateIdentity[] } {
  const subject = 'guardProcess';
  if (typeof options !== 'object' || options === null) {
    throw new GateAuditError('INVALID_ARGUMENT', `subject=<${subject}> | options must be an object | pass { gates }`);
  }
  const list: readonly unknown[] = Array.isArray(options.gates)
    ? (options.gates as readonly unknown[])
    : options.gates === undefined
      ? []
      : [options.gates];
  if (list.length === 0) {
    throw new GateAuditError(
      'NO_GATE',
      `subject=<${subject}> | no gate given: a process guard without a gate would refuse nothing or everything | pass { gates: yourGate }`,
    );
  }
  const gates: Gate[] = [];
  const identities: GateIdentity[] = [];
  for (const [index, gate] of list.entries()) {
    const view = viewGate(gate);
    if ('error' in view) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `subject=<${subject}>, field=<gates[${index}]> | ${view.error} | pass a Gate`,
      );
    }
    gates.push(gate as Gate);
    identities.push(gateIdentity(view));
  }
  const onUngated = options.onUngated ?? 'refuse';
  if (onUngated !== 'refuse' && onUngated !== 'install') {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `subject=<${subject}>, field=<onUngated> | ${JSON.stringify(String(onUngated))} is not an option | use 'refuse' or 'install'`,
    );
  }
  const accept = acceptOf(options.accept, subject);
  return {
    gates,
    identities,
    ids: new Set(identities.map((g) => g.id)),
    names: identities.map((g) => `"${g.name}"`).join(', '),
    accept,
    acceptKey: JSON.stringify(accept?.map((e) => [e.path, e.reason]) ?? null),
    onUngated,
  };
}

function sameOptions(current: Active, next: Omit<Active, 'guard'>): boolean {
  return (
    current.onUngated === next.onUngated &&
    current.acceptKey === next.acceptKey &&
    current.gates.length === next.gates.length &&
    current.gates.every((gate, i) => gate === next.gates[i])
  );
}

/**
 * Starts the guard (shared by `guardProcess` and `gate-audit/register`).
 *
 * @param options - the guard's options
 * @param by - who starts it
 */
export function startProcessGuard(options: ProcessGuardOptions, by: ProcessGuard['by']): ProcessGuard {
  const next = normalise(options);
  if (active !== undefined) {
    if (sameOptions(active, next)) return active.guard;
    throw new GateAuditError(
      'GUARD_CONFLICT',
      `subject=<guardProcess> | the process guard was already started (by ${active.guard.by}) with other options | ` +
        'start it once, with every gate of the process in gates',
    );
  }
  const guard: ProcessGuard = {
    by,
    onUngated: next.onUngated,
    gates: next.identities,
    copies: () => strandsStand().copies(),
  };
  const mark: ProcessGuardMark = Object.freeze({
    by,
    onUngated: next.onUngated,
    gates: Object.freeze(next.identities.map((g) => Object.freeze({ ...g }))),
  });
  if (isAuditing()) {
    // The audit child stops every run before a hook fires: the guard is only noted, for the report.
    active = { ...next, guard };
    publish(mark);
    const note: unknown = Object.getOwnPropertyDescriptor(globalThis, AUDIT_GUARD_NOTE)?.value;
    if (typeof note === 'function') (note as (noted: ProcessGuardMark) => void)(mark);
    return guard;
  }
  defineTaker();
  // Whether the guard's loader hooks were registered before (gate-audit/register): every later import passed them.
  hooked = hooksRegistered;
  active = { ...next, guard };
  try {
    // gate-audit's own copy of the Strands SDK first.
    strandsStand().start();
    for (const { namespace, url } of waiting.splice(0)) take(namespace, url);
    wrapRequire();
    guardKnownCopies();
    if (!hooksRegistered) {
      originalRegister('./guard-hooks.js', import.meta.url);
      hooksRegistered = true;
    }
    wrapModuleHooks();
  } catch (error) {
    // Copies already guarded stay guarded (that cannot be undone); the guard refuses to start.
    active = undefined;
    throw error;
  }
  publish(mark);
  return guard;
}

function publish(mark: ProcessGuardMark): void {
  if (Object.getOwnPropertyDescriptor(globalThis, PROCESS_GUARD_MARK) === undefined) {
    Object.defineProperty(globalThis, PROCESS_GUARD_MARK, { value: mark, writable: false, configurable: false });
  }
}

/**
 * Registers the guard's loader hooks before the guard starts (`gate-audit/register`, before the config and
 * the gates are loaded): copies imported meanwhile wait, and are guarded when it starts.
 */
export function prepareProcessGuard(): void {
  defineTaker();
  if (!isAuditing() && !hooksRegistered) {
    originalRegister('./guard-hooks.js', import.meta.url);
    hooksRegistered = true;
  }
}

/**
 * Guards this whole process: from now on no agent of any copy of `@strands-agents/sdk` calls its model or
 * runs a tool, and no LangGraph.js graph starts a run, unless it carries one of `gates` (the same gate object, or
 * a gate that declares the same `id`). An agent, orchestrator or graph that carries none is refused before its
 * model is called (`GateFailedError`; the root run it belongs to stops), or gets the first gate installed
 * (`onUngated: 'install'`). Copies of the Strands SDK other than gate-audit's own are refused whole, and so is
 * every copy where the guard was started without its Strands part (from `gate-audit/langgraph`). Calling it again
 * with the same options is a no-op; with other options, an error.
 *
 * @param options - `{ gates, accept?, onUngated? }`
 * @returns the guard
 * @throws GateAuditError `NO_GATE`, `INVALID_ARGUMENT` or `INVALID_ACCEPT` for bad options, `GUARD_CONFLICT` when
 *   started already with other options, `SDK_SHAPE` when a copy of the SDK cannot be guarded
 */
export function guardProcess(options: ProcessGuardOptions): ProcessGuard {
  return startProcessGuard(options, 'guardProcess');
}

/** The guard of this process, if one was started (by any copy of gate-audit). */
export function processGuardMark(): ProcessGuardMark | undefined {
  const value: unknown = Object.getOwnPropertyDescriptor(globalThis, PROCESS_GUARD_MARK)?.value;
  return typeof value === 'object' && value !== null ? (value as ProcessGuardMark) : undefined;
}
