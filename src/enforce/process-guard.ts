/**
 * The process guard: no agent of this process calls its model or runs a tool without one of the guard's gates.
 *
 * **Where it stands.** Every agent, Graph and Swarm of one copy of `@strands-agents/sdk` dispatches its hook
 * events through instances of one class, the copy's `HookRegistry`. The guard replaces that class's
 * `invokeCallbacks` on its prototype (not writable, not configurable afterwards: an assignment on an
 * instance then fails too), so it sees every agent of the copy, created before or after it, whatever hooks
 * the agent carries, gated or not. Before the events that start a run, call a model or run tools
 * (`BeforeInvocationEvent`, `BeforeModelCallEvent`, `BeforeToolsEvent`, `BeforeToolCallEvent`,
 * `BeforeMultiAgentInvocationEvent`, `BeforeNodeCallEvent`) it checks the agent (or orchestrator) carries one of
 * its gates, live; otherwise it refuses (`GateFailedError`, the run stopped) or, with `onUngated: 'install'`,
 * installs the first gate, as `install` would.
 *
 * **Every copy.** gate-audit's own copy is guarded at once. Other copies cannot carry gate-audit's gates
 * (`install` refuses them), so every hook dispatch of another copy is refused: nothing of it runs. They are found
 * (1) by the loader hooks registered with the guard (`guard-hooks.ts`), for copies imported later, and by
 * `gate-audit/register` from the first import; (2) by wrapping `Module._load`, for a `require()` of a copy
 * (Node 20 runs no ESM hook for `require(esm)`); (3) when the guard starts, in `require.cache` and on disk in
 * the `node_modules` folders above the working directory and the main module, each copy found loaded
 * through `require()` (which returns the instance already loaded, if any) and guarded. A copy the guard cannot
 * stand on is refused: its import throws `SDK_SHAPE`, or `guardProcess` does, naming it.
 *
 * What it cannot see is listed in docs/guarantees.md ("What it cannot cover"): an agent whose hook registry is
 * replaced by another object, `A2AAgent` (no hooks in this process), a direct call of a model or a tool.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import type * as Inspector from 'node:inspector';
import type { register } from 'node:module';
import Module, { createRequire, syncBuiltinESMExports } from 'node:module';
import { types } from 'node:util';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  BeforeToolsEvent,
  ConcurrentToolExecutor,
  HookRegistry,
  SequentialToolExecutor,
} from '@strands-agents/sdk';
import { BeforeMultiAgentInvocationEvent, BeforeNodeCallEvent } from '@strands-agents/sdk/multiagent';
import { AUDIT_GUARD_NOTE, isAuditing } from '../auditing.js';
import { GateAuditError, GateFailedError, messageOf } from '../errors.js';
import { joinPath, segmentOf, UNNAMED } from '../tree-paths.js';
import { agentGateState, classifyExecutor, hasNodeGuard } from '../walker/classify.js';
import {
  type AgentGateMark,
  agentGateMark,
  type NodeGuardMark,
  nodeGuardMark,
  PROCESS_GUARD_MARK,
  writtenMark,
} from '../walker/marks.js';
import {
  Agent,
  FunctionTool,
  Graph,
  hiddenPrototypes,
  HOOK_REGISTRY_FIELD,
  type Orchestrator,
  Swarm,
  ZodTool,
} from '../frameworks/strands/sdk-internals.js';
import { className, readData } from '../walker/safe-read.js';
import { configuredDefaultGate, type Gate } from './gate.js';
import { type GateIdentity, gateIdentity, viewGate } from './gate-identity.js';
import { CONFIGURED } from './gate-source.js';
import { standOnDispatch } from './dispatch-check.js';
import { GUARD_MODULE_KEY, withGuardLine } from './guard-hooks.js';
import { type AcceptEntry, install, installMultiagent } from './install.js';
import { contextRoot, placeNow, stopRun } from './run-state.js';
import { sdkRootOf, SDK_PACKAGE } from '../frameworks/strands/sdk-package.js';
import { ensureSdk } from '../frameworks/strands/sdk-check.js';
import { langGraphAdapter } from '../frameworks/langgraph/adapter.js';
import { installLangGraph } from '../frameworks/langgraph/install.js';
import { isPregelModuleUrl } from '../frameworks/langgraph/package.js';
import { guardPregel } from '../frameworks/langgraph/process-guard.js';

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

interface Active {
  readonly guard: ProcessGuard;
  readonly gates: readonly Gate[];
  readonly ids: ReadonlySet<string>;
  readonly names: string;
  readonly accept: readonly AcceptEntry[] | undefined;
  readonly acceptKey: string;
  readonly onUngated: OnUngated;
}

let active: Active | undefined;
/** Copies handed over before the guard started (by `register`'s hooks): guarded when it starts. */
const waiting: { namespace: unknown; url: string }[] = [];
const guardedPrototypes = new WeakSet<object>();
const copyRoots: string[] = [];
let takerDefined = false;
let requireWrapped = false;
let hooksRegistered = false;

const nodeRequire = createRequire(import.meta.url);

function shapeError(root: string, what: string): GateAuditError {
  return new GateAuditError(
    'SDK_SHAPE',
    `sdk=<${root}> | the process guard cannot stand on this copy of ${SDK_PACKAGE}: ${what} | ` +
      'use a version of the SDK gate-audit supports, or load one copy (npm dedupe)',
  );
}

type Role = 'agent' | 'orchestrator';

/** How an event is checked: a full check starts a run; a step of a run already checked is checked quickly. */
interface Check {
  readonly role: Role;
  /** `start`: the run's start, which must carry a gate; `step`: a step of a run checked at its start. */
  readonly kind: 'start' | 'step';
}

// Taken when gate-audit loads: code that replaces them later cannot change what the guard reads.
const getPrototypeOf = Object.getPrototypeOf;
const weakGet = Object.getOwnPropertyDescriptor(WeakMap.prototype, 'get')?.value as (key: object) => unknown;
const weakSet = Object.getOwnPropertyDescriptor(WeakMap.prototype, 'set')?.value as (
  key: object,
  value: unknown,
) => unknown;
const apply = Reflect.apply;

/** The prototypes of the events of gate-audit's own copy the guard checks. */
const CHECKS: readonly (readonly [object, Check])[] = [
  [BeforeInvocationEvent.prototype, { role: 'agent', kind: 'start' }],
  [BeforeModelCallEvent.prototype, { role: 'agent', kind: 'step' }],
  [BeforeToolsEvent.prototype, { role: 'agent', kind: 'step' }],
  [BeforeToolCallEvent.prototype, { role: 'agent', kind: 'step' }],
  [BeforeMultiAgentInvocationEvent.prototype, { role: 'orchestrator', kind: 'start' }],
  [BeforeNodeCallEvent.prototype, { role: 'orchestrator', kind: 'step' }],
];

function checkOf(event: object): Check | undefined {
  const proto: unknown = getPrototypeOf(event);
  for (const [known, check] of CHECKS) if (known === proto) return check;
  return undefined;
}

/**
 * The run each agent or orchestrator was last checked for (its `invocationState`) and the gate mark (or node
 * guard mark) it carried then: a step of that run, while that mark is still the one this copy wrote on it, needs
 * no full check (an uninstalled or replaced gate changes the mark).
 */
const checkedRuns = new WeakMap<object, { readonly run: object; readonly mark: unknown }>();

/** Gate ids by gate object, read once (a gate's declared id is its own claim, as for every reader of it). */
const idsOfGates = new WeakMap<object, string | null>();

function idOfKey(key: unknown): string | undefined {
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

/** Whether the agent carries, live, a gate this copy of gate-audit installed and whose id is one of `ids`. */
function carriesGate(agent: Agent, ids: ReadonlySet<string>): boolean {
  const mark = writtenMark(agent, 'agent') as AgentGateMark | undefined;
  if (mark === undefined || agentGateMark(agent) !== mark || agentGateState(agent) !== 'gated') return false;
  const id = idOfKey(mark.gateKey);
  return id !== undefined && ids.has(id);
}

/** Whether the orchestrator carries, live, a node guard this copy installed for a gate whose id is one of `ids`. */
function guardsWith(orchestrator: Orchestrator, ids: ReadonlySet<string>): boolean {
  const mark = writtenMark(orchestrator, 'orchestrator') as NodeGuardMark | undefined;
  if (mark === undefined || nodeGuardMark(orchestrator) !== mark || !hasNodeGuard(orchestrator)) return false;
  const id = idOfKey(mark.treeGateKey);
  return id !== undefined && ids.has(id);
}

function nameOf(value: unknown): string {
  const id = readData(value, 'id');
  const name = readData(value, 'name');
  const shownId = `"${segmentOf(id, UNNAMED)}"`;
  return typeof name === 'string' && name !== '' && name !== id ? `${shownId} (${JSON.stringify(name)})` : shownId;
}

function whereOf(agent: Agent): string {
  const places = placeNow(agent);
  if (places.length === 0) return 'outside any tree';
  const shown = places.slice(0, 3).map((p) => joinPath(p));
  return places.length === 1 ? `at ${shown[0]}` : `at one of ${shown.join(', ')}${places.length > 3 ? ', …' : ''}`;
}

function installIt(guard: Active, role: Role, target: unknown): string | undefined {
  const gate = guard.gates[0] as Gate;
  try {
    if (role === 'agent') install(target as Agent, { gate });
    else
      installMultiagent(target as Orchestrator, {
        gate,
        ...(guard.accept === undefined ? {} : { accept: guard.accept }),
      });
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

/**
 * Why the run of this event must not go on, or undefined. An agent or orchestrator starting a run must carry one
 * of the guard's gates (its shape was checked at the run's first step, see `checkedRun`); a step of a run it was
 * checked for passes at once while it carries the same gate mark.
 */
function judge(guard: Active, event: object, check: Check): string | undefined {
  const target: unknown = readData(event, check.role);
  if (typeof target !== 'object' || target === null) {
    return `the process guard could not read the ${check.role} of a hook event, so the run is refused`;
  }
  const run: unknown = readData(event, 'invocationState');
  if (check.kind === 'step' && typeof run === 'object' && run !== null) {
    const checked = apply(weakGet, checkedRuns, [target]) as { run: object; mark: unknown } | undefined;
    if (checked !== undefined && checked.run === run && checked.mark === writtenMark(target, check.role))
      return undefined;
  }
  const failure = judgeStart(guard, event, check.role);
  if (failure === undefined && typeof run === 'object' && run !== null) {
    apply(weakSet, checkedRuns, [target, { run, mark: writtenMark(target, check.role) }]);
  }
  return failure;
}

function shapeRefusal(target: object, role: Role): string | undefined {
  const classified = classifyExecutor(target);
  if (classified.problem === undefined) return undefined;
  return `${role} ${nameOf(target)} ${classified.problem.reason}, so the process guard refuses it | ${classified.problem.fix}`;
}

function judgeStart(guard: Active, event: object, role: Role): string | undefined {
  if (role === 'agent') {
    const agent = readData(event, 'agent') as Agent;
    if (carriesGate(agent, guard.ids)) return undefined;
    const where = whereOf(agent);
    if (guard.onUngated === 'install') {
      const failed = installIt(guard, 'agent', agent);
      if (failed === undefined && carriesGate(agent, guard.ids)) return undefined;
      return (
        `the process guard could not gate agent ${nameOf(agent)} (${where}): ${failed ?? 'its gate is not live'} | ` +
        'gate it at startup (installMultiagent on its tree, or install)'
      );
    }
    return (
      `agent ${nameOf(agent)} is unguarded: it carries none of the process guard's gates (${guard.names}), invoked ${where} | ` +
      "gate it at startup (installMultiagent on its tree, or install(agent, { gate })), or guard with onUngated: 'install'"
    );
  }
  const orchestrator = readData(event, 'orchestrator') as Orchestrator;
  if (guardsWith(orchestrator, guard.ids)) return undefined;
  const kind = className(orchestrator);
  if (guard.onUngated === 'install') {
    const failed = installIt(guard, 'orchestrator', orchestrator);
    if (failed === undefined && guardsWith(orchestrator, guard.ids)) return undefined;
    return `the process guard could not gate ${kind} ${nameOf(orchestrator)}: ${failed ?? 'its node guard is not live'} | gate it at startup with installMultiagent`;
  }
  return (
    `${kind} ${nameOf(orchestrator)} is unguarded: it carries no node guard of the process guard's gates (${guard.names}) | ` +
    "call installMultiagent(root, { gate }) at startup, or guard with onUngated: 'install'"
  );
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
    const id = state.state === 'gated' ? idOfKey(state.gateKey) : undefined;
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

/** A rejected promise made by the language itself (`Promise.reject` may have been replaced since). */
// eslint-disable-next-line @typescript-eslint/require-await
async function rejected(error: Error): Promise<never> {
  throw error;
}

function refusal(failure: string, event: object): GateFailedError {
  stopRun(readData(event, 'invocationState'), failure);
  // An agent a governed custom node's run started belongs to that root run: it stops too.
  stopRun(contextRoot(), failure);
  return new GateFailedError(failure);
}

/**
 * Stands on one copy's hook registry class.
 *
 * @param proto - the registry's prototype
 * @param root - the copy's folder
 * @param own - whether it is gate-audit's own copy (other copies are refused whole)
 */
function standOn(proto: object, root: string, own: boolean): void {
  if (guardedPrototypes.has(proto)) return;
  const foreign =
    `an agent or orchestrator of another copy of ${SDK_PACKAGE} (${root}) is about to run; no gate of this ` +
    'process can reach it, so the process guard refuses it | load one copy of the SDK (npm dedupe)';
  // One wrapper per copy, shared with the gate's dispatch check: a refusal stops the run, holds the event's cancel
  // and rejects.
  standOnDispatch(proto, (what) => shapeError(root, what), own ? judgeDispatch : (event) => refused(foreign, event));
  lockChain(proto);
  guardedPrototypes.add(proto);
  if (!copyRoots.includes(root)) copyRoots.push(root);
}

/** The guard's judgement of one event of gate-audit's own copy: why its run must not go on, or undefined. */
function judgeDispatch(event: object): string | undefined {
  const guard = active;
  if (guard === undefined) return undefined;
  const check = checkOf(event);
  if (check === undefined) return undefined;
  let failure: string | undefined;
  try {
    failure = judge(guard, event, check);
  } catch (error) {
    failure = `the process guard failed while checking a run (${messageOf(error)})`;
  }
  return failure === undefined ? undefined : refused(failure, event);
}

/** A refusal's stops (`refusal`), and its text for the dispatch check, which holds the cancel and rejects. */
function refused(failure: string, event: object): string {
  refusal(failure, event);
  return failure;
}

/**
 * Checks the shape of every agent, Graph and Swarm of gate-audit's own copy at each run it starts (`invoke` runs
 * `stream`): one whose hook registry is not the SDK's, or that replaces a member of the SDK's class on its
 * instance or in a subclass, could dispatch its events around the class the guard stands on; it is refused, as
 * `install` refuses it.
 */
function guardRuns(proto: object, role: Role): void {
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'stream');
  const original: unknown = descriptor?.value;
  if (descriptor === undefined || typeof original !== 'function' || descriptor.configurable !== true) {
    throw shapeError(ownRoot(), `its ${role === 'agent' ? 'Agent' : 'orchestrator'} stream cannot be guarded`);
  }
  const run = original as (...a: unknown[]) => AsyncGenerator<unknown, unknown, unknown>;
  const stream = function stream(this: unknown, ...args: unknown[]): unknown {
    if (active === undefined) return apply(run, this, args);
    // Checked when the run really starts (its first step), not when it is asked for: what changes in between
    // (a registry swapped after stream() returned) is seen.
    return checkedRun(this, role, args, run);
  };
  Object.defineProperty(proto, 'stream', { ...descriptor, value: stream, writable: false, configurable: false });
}

/** The check of a run's first step: why it must not run, or undefined (its hook registry pinned then). */
function firstStepRefusal(target: unknown, role: Role, args: readonly unknown[]): string | undefined {
  let failure: string | undefined;
  try {
    failure =
      typeof target === 'object' && target !== null
        ? (shapeRefusal(target, role) ?? pinRegistry(target, role))
        : 'the process guard refuses a run without its object';
  } catch (error) {
    failure = `the process guard failed while checking a run (${messageOf(error)})`;
  }
  if (failure !== undefined) {
    const options = args[1];
    stopRun(
      typeof options === 'object' && options !== null ? readData(options, 'invocationState') : undefined,
      failure,
    );
  }
  return failure;
}

/**
 * The SDK's run of `target`, checked at its first step. A plain iterator around the SDK's generator (not a
 * generator delegating with `yield*`, which would cost every event of the run a round of promises): the first
 * `next()` checks, every call after it is the SDK's own.
 */
function checkedRun(
  target: unknown,
  role: Role,
  args: unknown[],
  run: (...a: unknown[]) => AsyncGenerator<unknown, unknown, unknown>,
): AsyncGenerator<unknown, unknown, unknown> {
  const inner = apply(run, target, args);
  let state: 'unchecked' | 'checked' | 'refused' = 'unchecked';
  const iterator: AsyncGenerator<unknown, unknown, unknown> = {
    next(...value: [] | [unknown]) {
      if (state === 'unchecked') {
        const failure = firstStepRefusal(target, role, args);
        state = failure === undefined ? 'checked' : 'refused';
        if (failure !== undefined) {
          // The SDK's generator never started: nothing of the run happened.
          void inner.return(undefined).catch(() => undefined);
          return rejected(new GateFailedError(failure));
        }
      }
      if (state === 'refused') return Promise.resolve({ done: true, value: undefined });
      return inner.next(...value);
    },
    return(value) {
      if (state === 'unchecked') state = 'refused';
      return inner.return(value);
    },
    throw(error) {
      if (state === 'unchecked') state = 'refused';
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * Makes the checked agent's (or orchestrator's) hook registry field read-only for good: the registry the guard
 * checked is the one its events go through.
 */
function pinRegistry(target: object, role: Role): string | undefined {
  const key = HOOK_REGISTRY_FIELD[role];
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined || !('value' in descriptor)) return `its ${key} is not a plain field`;
  if (descriptor.writable === true) {
    Object.defineProperty(target, key, {
      value: descriptor.value,
      writable: false,
      configurable: false,
      enumerable: descriptor.enumerable === true,
    });
  }
  return undefined;
}

/**
 * Makes every member of a prototype, and of the prototypes it inherits from, read-only for good (a method cannot
 * be reassigned, an accessor cannot be redefined): code that runs after the guard cannot change what the SDK's
 * classes do around the registry the guard stands on.
 */
function lockChain(proto: object): void {
  // One freeze per prototype (a transition to a frozen map), not a redefinition per member: a prototype whose
  // members are redefined one by one can fall into slow (dictionary) mode, and every call through it pays.
  for (let p: unknown = proto; typeof p === 'object' && p !== null && p !== Object.prototype; p = getPrototypeOf(p)) {
    Object.freeze(p);
  }
}

/**
 * gate-audit's own copy: the run of `Agent`, `Graph` and `Swarm` is checked at its first step, and every member of
 * their classes, of the registries, of the SDK's tool executors and tool classes is read-only from then on.
 */
function lockOwnCopy(): void {
  guardRuns(Agent.prototype, 'agent');
  guardRuns(Graph.prototype, 'orchestrator');
  guardRuns(Swarm.prototype, 'orchestrator');
  const prototypes = hiddenPrototypes();
  for (const proto of [
    Agent.prototype,
    Graph.prototype,
    Swarm.prototype,
    prototypes.middlewareRegistry,
    prototypes.toolRegistry,
    prototypes.agentAsTool,
    SequentialToolExecutor.prototype,
    ConcurrentToolExecutor.prototype,
    FunctionTool.prototype,
    ZodTool.prototype,
  ] as object[]) {
    lockChain(proto);
  }
}

function ownRoot(): string {
  try {
    const file = nodeRequire.resolve(SDK_PACKAGE);
    return sdkRootOf(pathToFileURL(file).href) ?? dirname(file);
  } catch {
    return SDK_PACKAGE;
  }
}

/** The registry class an SDK namespace (or `require`d exports) holds, if any. */
function registryOf(namespace: unknown): object | undefined {
  if ((typeof namespace !== 'object' && typeof namespace !== 'function') || namespace === null) return undefined;
  let value: unknown;
  try {
    // The entry exports it as HookRegistry; its own module (which every agent, Graph and Swarm module imports,
    // so a deep import of any part of a copy loads it) as HookRegistryImplementation.
    value =
      Object.getOwnPropertyDescriptor(namespace, 'HookRegistry')?.value ??
      Object.getOwnPropertyDescriptor(namespace, 'HookRegistryImplementation')?.value;
  } catch {
    return undefined; // a binding not yet initialised
  }
  if (typeof value !== 'function') return undefined;
  const proto: unknown = Object.getOwnPropertyDescriptor(value, 'prototype')?.value;
  return typeof proto === 'object' && proto !== null ? proto : undefined;
}

const entriesByRoot = new Map<string, ReadonlySet<string>>();

/** The files a copy's package entry (`exports["."]` under any condition, or `main`) may resolve to. */
function entryFilesOf(root: string): ReadonlySet<string> {
  let entries = entriesByRoot.get(root);
  if (entries !== undefined) return entries;
  const found = new Set<string>();
  const add = (target: unknown): void => {
    if (typeof target === 'string') found.add(realOr(join(root, target)));
    else if (Array.isArray(target)) for (const t of target) add(t);
    else if (typeof target === 'object' && target !== null) for (const t of Object.values(target)) add(t);
  };
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: unknown; main?: unknown };
    const exported = pkg.exports;
    if (typeof exported === 'object' && exported !== null && !Array.isArray(exported) && '.' in exported) {
      add((exported as Record<string, unknown>)['.']);
    } else if (
      exported !== undefined &&
      !(typeof exported === 'object' && exported !== null && Object.keys(exported).some((k) => k.startsWith('.')))
    ) {
      add(exported);
    }
    add(pkg.main ?? 'index.js');
  } catch {
    // no readable package.json: no entry is known, so every module of the copy is checked on its own
  }
  entries = found;
  entriesByRoot.set(root, entries);
  return entries;
}

/** Guards the copy an SDK module belongs to, from its namespace. */
function take(namespace: unknown, url: string): void {
  if (active === undefined) {
    waiting.push({ namespace, url });
    return;
  }
  if (isPregelModuleUrl(url)) {
    // A copy of LangGraph's compiled graph: every root run it starts is judged (`judgeGraph`).
    let pregel: unknown;
    try {
      pregel = Object.getOwnPropertyDescriptor(namespace, 'Pregel')?.value;
    } catch {
      pregel = undefined;
    }
    if (!guardPregel(pregel, judgeGraph)) {
      throw new GateAuditError(
        'SDK_SHAPE',
        `file=<${url}> | the process guard cannot stand on this copy of @langchain/langgraph: its Pregel class has no stream method | use a tested version`,
      );
    }
    return;
  }
  const root = sdkRootOf(url) ?? url;
  const proto = registryOf(namespace);
  if (proto === undefined) {
    // The copy's entry must hand over its registry class; its other modules that hold none are left to it.
    let file: string | undefined;
    try {
      file = realOr(fileURLToPath(url));
    } catch {
      file = undefined;
    }
    if (file === undefined || entryFilesOf(root).has(file) || basename(file) === 'package.json') {
      throw shapeError(root, 'its entry exports no HookRegistry class');
    }
    return;
  }
  standOn(proto, root, proto === hiddenPrototypes().hookRegistry);
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
      // require() of an ES module (Node 20): the modules it imports pass no loader hook, so a copy of the SDK
      // among them is found among the scripts V8 compiled.
      for (const root of loadedCopies() ?? []) guardCopyAt(root);
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
          if (registryOf(exports) !== undefined) take(exports, url);
          // Any other file of a copy (a subpath, a deep require): the copy itself is guarded through its entry.
          else guardCopyAt(realOr(root));
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
function copiesOnDisk(from: readonly string[]): string[] {
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
        if (dir === join(modules, SDK_PACKAGE)) found.add(realOr(dir));
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

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Copies being guarded through their entry right now (a `require` of the entry passes the wrapper again). */
const guarding = new Set<string>();

/**
 * Guards the copy in `root` through its entry: `require()` returns the instance already loaded (ESM and
 * require share it), or loads it now.
 *
 * @throws GateAuditError `SDK_SHAPE` when it cannot be loaded or its entry exports no hook registry
 */
function guardCopyAt(root: string): void {
  if (copyRoots.includes(root) || guarding.has(root) || root === realOr(ownRoot())) return;
  guarding.add(root);
  try {
    let exports: unknown;
    try {
      exports = createRequire(join(root, 'package.json'))(root);
    } catch (error) {
      throw shapeError(root, `it could not be loaded to be guarded (${messageOf(error)})`);
    }
    take(exports, pathToFileURL(join(root, 'package.json')).href);
    if (!copyRoots.includes(root)) throw shapeError(root, 'its entry exports no HookRegistry class');
  } finally {
    guarding.delete(root);
  }
}

/** Guards the copies loaded (or loadable) before the guard started: `require.cache`, then those on disk. */
function guardKnownCopies(): void {
  const own = realOr(ownRoot());
  const cache = (Module as unknown as ModuleInternals)._cache;
  for (const [file, entry] of Object.entries(cache)) {
    const url = pathToFileURL(file).href;
    if (sdkRootOf(url) !== undefined && registryOf(entry?.exports) !== undefined) take(entry?.exports, url);
    // A CommonJS copy of LangGraph already required.
    else if (isPregelModuleUrl(url)) take(entry?.exports, url);
  }
  const loaded = loadedCopies();
  if (loaded !== undefined) {
    for (const root of loaded) if (root !== own) guardCopyAt(root);
    return;
  }
  // No inspector in this Node: every copy on disk where the app resolves packages from is loaded and guarded.
  const starts = [process.cwd(), ...(process.argv[1] === undefined ? [] : [dirname(realOr(process.argv[1]))])];
  for (const root of copiesOnDisk(starts)) {
    if (root !== own) guardCopyAt(root);
  }
}

/**
 * The folders of every SDK copy whose code this process has loaded so far, whatever loaded it (ESM, `require`,
 * from any folder): the scripts V8 has compiled, as an in-process inspector session lists them when its
 * debugger is enabled (synchronously; it is disabled again at once). Undefined when the inspector is not there.
 */
function loadedCopies(): Set<string> | undefined {
  let inspector: typeof Inspector;
  try {
    inspector = nodeRequire('node:inspector') as typeof Inspector;
  } catch {
    return undefined;
  }
  const roots = new Set<string>();
  const seen = new Set<string>();
  let listed = false;
  const session = new inspector.Session();
  try {
    session.connect();
    session.on('Debugger.scriptParsed', (message: { params?: { url?: unknown } }) => {
      const url = message.params?.url;
      if (typeof url !== 'string' || !url.startsWith('file:') || seen.has(url)) return;
      seen.add(url);
      const root = sdkRootOf(url);
      if (root !== undefined) roots.add(realOr(root));
    });
    session.post('Debugger.enable', (error: Error | null) => {
      listed = error === null;
    });
    session.post('Debugger.disable');
  } catch {
    return undefined;
  } finally {
    session.disconnect();
  }
  return listed ? roots : undefined;
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
  ensureSdk();
  const guard: ProcessGuard = {
    by,
    onUngated: next.onUngated,
    gates: next.identities,
    copies: () => [...copyRoots],
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
  // gate-audit's own copy first: the prototype the walker reads must be the exported class's.
  const ownProto = hiddenPrototypes().hookRegistry;
  if (ownProto !== (HookRegistry as unknown as { prototype: object }).prototype) {
    throw shapeError(ownRoot(), 'the hook registry of its agents is not its exported HookRegistry class');
  }
  defineTaker();
  active = { ...next, guard };
  try {
    standOn(ownProto, realOr(ownRoot()), true);
    lockOwnCopy();
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
 * runs a tool unless it carries one of `gates` (the same gate object, or a gate that declares the same `id`).
 * An agent or orchestrator that carries none is refused before its model is called (`GateFailedError`; the
 * root run it belongs to stops), or gets the first gate installed (`onUngated: 'install'`). Copies of the SDK
 * other than gate-audit's own are refused whole. Calling it again with the same options is a no-op; with
 * other options, an error.
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
