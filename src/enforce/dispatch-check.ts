/**
 * The dispatch check: one wrapper per copy of the SDK around its hook registry's dispatch (`invokeCallbacks` on
 * the registry class's prototype), shared by the gate and the process guard.
 *
 * **Why at the dispatch.** gate-audit's first and last hooks of an event sit at `-Infinity` and `+Infinity`, but
 * the SDK breaks a tie by registration order (for `After*` events it reverses the list, then sorts it), and it
 * sorts by `a.order - b.order`, so an order that is not a number, is NaN, or changes between reads makes the
 * sort say nothing sure. Where a gated agent dispatches an event gate-audit has hooks for, the check takes the
 * list the SDK's own `getCallbacksFor` makes (the SDK's real order), puts gate-audit's first hook at its front
 * and its last hook at its end, and has the SDK's own `invokeCallbacks` run exactly that list (its only read of
 * the registry is `this.getCallbacksFor(event)`, in SDK 1.11–1.19, which the self test checks). So a hook of the
 * app tied at `±Infinity` runs inside gate-audit's, whenever it was registered. The check fails closed (the
 * run stopped, the event's `cancel` held, only gate-audit's hooks run, the dispatch rejects with
 * `GateFailedError`) when an entry's order is not a number or is NaN.
 *
 * **The process guard.** Its judgement of each event (`guardProcess`) runs in the same wrapper, before the gate's
 * check: a refusal stops the run, holds the event's `cancel` where it has one (the SDK's drain after a throwing
 * hook logs a thrown refusal and goes on), and rejects.
 *
 * The wrapper keeps the descriptor of the method it replaces (the process guard then freezes the prototype).
 */
import { GateAuditError, GateFailedError, messageOf } from '../errors.js';
import { hookCallbackMap } from '../frameworks/strands/sdk-internals.js';
import { className, readData } from '../walker/safe-read.js';
import { ERROR } from './call.js';
import { stopRun } from './run-state.js';
import { holdCancel } from '../frameworks/strands/sdk-mutations.js';
import { rejected } from './settle.js';

/** Why an event must not be dispatched (the process guard's judgement), or undefined. */
export type DispatchGuard = (event: object) => string | undefined;

/** gate-audit's hooks of one event class on one registry: the one that must run first, the one that must run last. */
export interface OwnHooks {
  /** Runs before every other hook of the event. */
  readonly first?: unknown;
  /** Runs after every other hook of the event. */
  readonly last?: unknown;
}

type Invoke = (this: unknown, event: unknown) => Promise<unknown>;

interface CopyDispatch {
  readonly wrapper: Invoke;
  guard: DispatchGuard | undefined;
}

// Taken when gate-audit loads: code that replaces them later cannot change what the check does.
const apply = Reflect.apply;
const weakGet = Object.getOwnPropertyDescriptor(WeakMap.prototype, 'get')?.value as (key: object) => unknown;
const mapGet = Object.getOwnPropertyDescriptor(Map.prototype, 'get')?.value as (key: unknown) => unknown;
const isArray = Array.isArray;

const copies = new WeakMap<object, CopyDispatch>();

/** A gated registry's plan: gate-audit's hooks by event class, and its map of hooks as read when it was gated. */
interface Plan {
  readonly hooks: ReadonlyMap<unknown, OwnHooks>;
  /** The registry's hooks of one event class (Map's own `get`, bound when gated: it throws for anything else). */
  readonly entriesOf: (eventClass: unknown) => unknown;
}

const plans = new WeakMap<object, Plan>();
// Bound once (no argument list per call); taken at load like the rest.
const planOf = weakGet.bind(plans) as (registry: object) => Plan | undefined;

/**
 * The registry the SDK's `invokeCallbacks` is run on: it answers `getCallbacksFor` with the list the check
 * verified, and has nothing else.
 */
class Listed {
  constructor(private readonly _list: readonly unknown[]) {}

  getCallbacksFor(): readonly unknown[] {
    return this._list;
  }
}
Object.freeze(Listed.prototype);

/** Stops the event's run, and holds its `cancel` where it has one, so the SDK's drain cannot go on past it. */
function stopAt(event: object, failure: string): void {
  stopRun(readData(event, 'invocationState'), failure);
  if ('cancel' in event) holdCancel(event, `${ERROR} ${failure}`, () => undefined);
}

/**
 * The list to dispatch: the SDK's own, with gate-audit's first hook at its front and its last at its end; or why
 * it cannot be trusted.
 */
function ordered(
  registry: object,
  event: object,
  eventClass: unknown,
  own: OwnHooks,
  plan: Plan,
  getCallbacksFor: (this: unknown, event: unknown) => unknown,
): unknown[] | string {
  const entries: unknown = plan.entriesOf(eventClass);
  if (!isArray(entries)) return 'its hook registry holds no plain list of hooks for the event';
  for (let i = 0; i < entries.length; i += 1) {
    const entry: unknown = entries[i];
    const order: unknown =
      typeof entry === 'object' && entry !== null ? (entry as { order?: unknown }).order : undefined;
    // NaN is the only value not equal to itself.
    if (typeof order !== 'number' || order !== order) {
      return `a hook has an order that is ${typeof order === 'number' ? 'NaN' : `a ${typeof order}, not a number`}, so the SDK's order of the hooks is not sure`;
    }
  }
  const got: unknown = apply(getCallbacksFor, registry, [event]);
  if (!isArray(got)) return "the SDK's list of hooks for the event is not a list";
  const list = got as unknown[];
  // A hook of gate-audit's taken out of the registry is not put back here: the agent reads as no longer gated, and
  // the execution check and the after-call audit refuse what it would have decided.
  if (own.first !== undefined) moveTo(list, own.first, 0);
  if (own.last !== undefined) moveTo(list, own.last, list.length - 1);
  return list;
}

/** Moves `callback` to index `to` (0 or the end) of `list`, keeping the others in order (nothing when it is absent). */
function moveTo(list: unknown[], callback: unknown, to: number): void {
  if (list[to] === callback) return;
  let at = -1;
  for (let i = 0; i < list.length; i += 1) {
    if (list[i] === callback) {
      at = i;
      break;
    }
  }
  if (at === -1) return;
  if (to === 0) {
    for (let i = at; i > 0; i -= 1) list[i] = list[i - 1];
  } else {
    for (let i = at; i < to; i += 1) list[i] = list[i + 1];
  }
  list[to] = callback;
}

/**
 * Stands on one copy's hook registry class: its `invokeCallbacks` becomes the checked dispatch (once per
 * prototype; a second call only sets the process guard's judgement when none is set yet).
 *
 * @param proto - the registry class's prototype
 * @param shapeError - the error to throw when the class has no `invokeCallbacks` that can be replaced
 * @param guard - the process guard's judgement of each event
 */
export function standOnDispatch(proto: object, shapeError: (what: string) => Error, guard?: DispatchGuard): void {
  const known = copies.get(proto);
  if (known !== undefined) {
    // Code that patches the SDK's classes without the process guard is out of reach (the guard freezes them): a
    // wrapper around the check leaves it in place. The guard itself must stand on the check.
    if (guard !== undefined && Object.getOwnPropertyDescriptor(proto, 'invokeCallbacks')?.value !== known.wrapper) {
      throw shapeError('its invokeCallbacks was replaced after gate-audit stood on it');
    }
    known.guard ??= guard;
    return;
  }
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'invokeCallbacks');
  const original: unknown = descriptor?.value;
  const getCallbacksFor: unknown = Object.getOwnPropertyDescriptor(proto, 'getCallbacksFor')?.value;
  if (descriptor === undefined || typeof original !== 'function') {
    throw shapeError('its hook registry has no invokeCallbacks method');
  }
  if (typeof getCallbacksFor !== 'function') throw shapeError('its hook registry has no getCallbacksFor method');
  if (descriptor.configurable !== true) throw shapeError('its invokeCallbacks cannot be replaced');
  const invoke = original as Invoke;
  const list = getCallbacksFor as (this: unknown, event: unknown) => unknown;
  const copy: CopyDispatch = {
    guard,
    wrapper: function invokeCallbacks(this: unknown, event: unknown): Promise<unknown> {
      if (typeof event !== 'object' || event === null) return apply(invoke, this, [event]);
      const judge = copy.guard;
      if (judge !== undefined) {
        let failure: string | undefined;
        try {
          failure = judge(event);
        } catch (error) {
          failure = `the process guard failed while checking a run (${messageOf(error)})`;
        }
        if (failure !== undefined) {
          stopAt(event, failure);
          return rejected(new GateFailedError(failure));
        }
      }
      const plan = typeof this === 'object' && this !== null ? planOf(this) : undefined;
      if (plan === undefined) return apply(invoke, this, [event]);
      const eventClass: unknown = (event as { constructor?: unknown }).constructor;
      const own = plan.hooks.get(eventClass);
      if (own === undefined) return apply(invoke, this, [event]);
      let checked: unknown[] | string;
      try {
        checked = ordered(this as object, event, eventClass, own, plan, list);
      } catch (error) {
        checked = `its hooks could not be read (${messageOf(error)})`;
      }
      if (typeof checked !== 'string') return apply(invoke, new Listed(checked), [event]);
      return failClosed(invoke, event, own, checked);
    },
  };
  Object.defineProperty(proto, 'invokeCallbacks', { ...descriptor, value: copy.wrapper });
  copies.set(proto, copy);
}

/** A dispatch that cannot be trusted: the run stops, only gate-audit's hooks run, and the dispatch rejects. */
function failClosed(invoke: Invoke, event: object, own: OwnHooks, why: string): Promise<never> {
  const failure = `the hooks of ${className(event)} cannot be dispatched with gate-audit's outermost: ${why} | register hooks with a number as their order`;
  stopAt(event, failure);
  const hooks: unknown[] = [];
  if (own.first !== undefined) hooks.push(own.first);
  if (own.last !== undefined) hooks.push(own.last);
  const error = new GateFailedError(failure);
  const dispatched: Promise<unknown> = apply(invoke, new Listed(hooks), [event]);
  return dispatched.then(
    () => rejected(error),
    () => rejected(error),
  );
}

/**
 * Has a registry's dispatches run gate-audit's hooks outermost, until the returned cleanup runs.
 *
 * @param registry - a gated agent's hook registry
 * @param hooks - gate-audit's hooks on it, by event class
 * @returns the cleanup (it leaves a plan that replaced this one alone)
 */
export function planDispatch(registry: object, hooks: ReadonlyMap<unknown, OwnHooks>): () => void {
  // The map is read once (the gate makes the field read-only): a map that is not a plain Map fails every dispatch
  // of the registry closed, as Map's own `get` throws for it.
  const map = hookCallbackMap(registry);
  const plan: Plan = { hooks, entriesOf: mapGet.bind(map) };
  plans.set(registry, plan);
  return () => {
    if (plans.get(registry) === plan) plans.delete(registry);
  };
}

/** The error of a registry class the check cannot stand on. */
export function dispatchShapeError(root: string, what: string): GateAuditError {
  return new GateAuditError(
    'SDK_SHAPE',
    `sdk=<${root}> | gate-audit cannot check the hook dispatch of this copy of the SDK: ${what} | ` +
      'use a version of the SDK gate-audit supports',
  );
}
