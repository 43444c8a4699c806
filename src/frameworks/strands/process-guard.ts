/**
 * The process guard's stand on `@strands-agents/sdk` (its framework-neutral part is `enforce/process-guard.ts`, which
 * this module joins when it loads: the main entry loads it, `gate-audit/register` loads it when the SDK is
 * installed).
 *
 * **Where it stands.** Every agent, Graph and Swarm of one copy of the SDK dispatches its hook events through
 * instances of one class, the copy's `HookRegistry`. The guard replaces that class's `invokeCallbacks` on its
 * prototype (not writable, not configurable afterwards: an assignment on an instance then fails too), so it sees
 * every agent of the copy, created before or after it, whatever hooks the agent carries, gated or not. Before the
 * events that start a run, call a model or run tools (`BeforeInvocationEvent`, `BeforeModelCallEvent`,
 * `BeforeToolsEvent`, `BeforeToolCallEvent`, `BeforeMultiAgentInvocationEvent`, `BeforeNodeCallEvent`) it checks the
 * agent (or orchestrator) carries one of its gates, live; otherwise it refuses (`GateFailedError`, the run stopped)
 * or, with `onUngated: 'install'`, installs the first gate, as `install` would.
 *
 * **Every copy.** gate-audit's own copy is guarded at once. Other copies cannot carry gate-audit's gates
 * (`install` refuses them), so every hook dispatch of another copy is refused: nothing of it runs. They are found
 * by the neutral part (loader hooks, `Module._load`, the scripts V8 compiled, `node_modules` on disk) and handed
 * here. A copy the guard cannot stand on is refused: its import throws `SDK_SHAPE`, or `guardProcess` does,
 * naming it.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
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
import { GateAuditError, GateFailedError, messageOf } from '../../errors.js';
import { joinPath, segmentOf, UNNAMED } from '../../tree-paths.js';
import { agentGateState, classifyExecutor, hasNodeGuard } from '../../walker/classify.js';
import {
  type AgentGateMark,
  agentGateMark,
  type NodeGuardMark,
  nodeGuardMark,
  writtenMark,
} from '../../walker/marks.js';
import { className, readData } from '../../walker/safe-read.js';
import type { Gate } from '../../enforce/gate.js';
import { standOnDispatch } from '../../enforce/dispatch-check.js';
import { install, installMultiagent } from '../../enforce/install.js';
import {
  activeGuard,
  gateIdOf,
  type GuardState,
  guardProcess,
  standOnStrands,
  startProcessGuard,
} from '../../enforce/process-guard.js';
import { contextRoot, placeNow, stopRun } from '../../enforce/run-state.js';
import {
  Agent,
  FunctionTool,
  Graph,
  hiddenPrototypes,
  HOOK_REGISTRY_FIELD,
  type Orchestrator,
  Swarm,
  ZodTool,
} from './sdk-internals.js';
import { sdkRootOf, SDK_PACKAGE } from './sdk-package.js';
import { copyRegistry, freezeChain, realOr, refuseRuns, takeCopyAt } from './sdk-copies.js';
import { ensureSdk } from './sdk-check.js';
import { rejected } from '../../enforce/settle.js';

export { guardProcess, startProcessGuard };

const guardedPrototypes = new WeakSet<object>();
const copyRoots: string[] = [];
const nodeRequire = createRequire(import.meta.url);

function shapeError(root: string, what: string): GateAuditError {
  return new GateAuditError(
    'SDK_SHAPE',
    `sdk=<${root}> | the process guard cannot stand on this copy of ${SDK_PACKAGE}: ${what} | ` +
      'use a version of the SDK gate-audit supports, or load one copy (npm dedupe)',
  );
}

// Taken when gate-audit loads: code that replaces them later cannot change what the guard reads.
const getPrototypeOf = Object.getPrototypeOf;
const weakGet = Object.getOwnPropertyDescriptor(WeakMap.prototype, 'get')?.value as (key: object) => unknown;
const weakSet = Object.getOwnPropertyDescriptor(WeakMap.prototype, 'set')?.value as (
  key: object,
  value: unknown,
) => unknown;
const apply = Reflect.apply;

type Role = 'agent' | 'orchestrator';

/** How an event is checked: a full check starts a run; a step of a run already checked is checked quickly. */
interface Check {
  readonly role: Role;
  /** `start`: the run's start, which must carry a gate; `step`: a step of a run checked at its start. */
  readonly kind: 'start' | 'step';
}

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

/** Whether the agent carries, live, a gate this copy of gate-audit installed and whose id is one of `ids`. */
function carriesGate(agent: Agent, ids: ReadonlySet<string>): boolean {
  const mark = writtenMark(agent, 'agent') as AgentGateMark | undefined;
  if (mark === undefined || agentGateMark(agent) !== mark || agentGateState(agent) !== 'gated') return false;
  const id = gateIdOf(mark.gateKey);
  return id !== undefined && ids.has(id);
}

/** Whether the orchestrator carries, live, a node guard this copy installed for a gate whose id is one of `ids`. */
function guardsWith(orchestrator: Orchestrator, ids: ReadonlySet<string>): boolean {
  const mark = writtenMark(orchestrator, 'orchestrator') as NodeGuardMark | undefined;
  if (mark === undefined || nodeGuardMark(orchestrator) !== mark || !hasNodeGuard(orchestrator)) return false;
  const id = gateIdOf(mark.treeGateKey);
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

function installIt(guard: GuardState, role: Role, target: unknown): string | undefined {
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
function judge(guard: GuardState, event: object, check: Check): string | undefined {
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

function judgeStart(guard: GuardState, event: object, role: Role): string | undefined {
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
/** Why an agent or orchestrator of another copy than gate-audit's own does not run. */
function foreignCopy(root: string): string {
  return (
    `an agent or orchestrator of another copy of ${SDK_PACKAGE} (${root}) is about to run; no gate of this ` +
    'process can reach it, so the process guard refuses it | load one copy of the SDK (npm dedupe)'
  );
}

function standOn(proto: object, root: string, own: boolean): void {
  if (guardedPrototypes.has(proto)) return;
  const foreign = foreignCopy(root);
  // One wrapper per copy, shared with the gate's dispatch check: a refusal stops the run, holds the event's cancel
  // and rejects.
  standOnDispatch(proto, (what) => shapeError(root, what), own ? judgeDispatch : (event) => refused(foreign, event));
  freezeChain(proto);
  guardedPrototypes.add(proto);
  if (!copyRoots.includes(root)) copyRoots.push(root);
}

/** The guard's judgement of one event of gate-audit's own copy: why its run must not go on, or undefined. */
function judgeDispatch(event: object): string | undefined {
  const guard = activeGuard();
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
    if (activeGuard() === undefined) return apply(run, this, args);
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
    freezeChain(proto);
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

/** Guards the copy an SDK module belongs to, from its namespace (or `require`d exports). */
function take(namespace: unknown, url: string): void {
  // The runs of another copy's classes are refused too (an instance's registry given a dispatch of its own).
  const root = sdkRootOf(url) ?? url;
  refuseRuns(
    namespace,
    () => new GateFailedError(foreignCopy(root)),
    (what) => shapeError(root, what),
    ownRunClasses(),
  );
  const found = copyRegistry(namespace, url, shapeError);
  if (found !== undefined) standOn(found.proto, found.root, found.proto === hiddenPrototypes().hookRegistry);
}

/** The prototypes of gate-audit's own `Agent`, `Graph` and `Swarm`. */
function ownRunClasses(): ReadonlySet<object> {
  return new Set([Agent.prototype, Graph.prototype, Swarm.prototype] as object[]);
}

/** Copies being guarded through their entry right now (a `require` of the entry passes the wrapper again). */
const guarding = new Set<string>();

/**
 * Guards the copy in `root` through its entry.
 *
 * @throws GateAuditError `SDK_SHAPE` when it cannot be loaded or its entry exports no hook registry
 */
function guardCopyAt(root: string): void {
  if (copyRoots.includes(root) || guarding.has(root) || root === realOr(ownRoot())) return;
  guarding.add(root);
  try {
    takeCopyAt(root, take, () => copyRoots.includes(root), shapeError, 'guarded');
  } finally {
    guarding.delete(root);
  }
}

/**
 * Starts the stand: checks the SDK gate-audit runs on, stands on its own copy (the prototype the walker reads must
 * be the exported class's) and locks its classes.
 */
function start(): void {
  ensureSdk();
  const ownProto = hiddenPrototypes().hookRegistry;
  if (ownProto !== (HookRegistry as unknown as { prototype: object }).prototype) {
    throw shapeError(ownRoot(), 'the hook registry of its agents is not its exported HookRegistry class');
  }
  standOn(ownProto, realOr(ownRoot()), true);
  lockOwnCopy();
}

standOnStrands({
  start,
  take,
  guardCopyAt,
  ownRoot: () => realOr(ownRoot()),
  copies: () => [...copyRoots],
});
