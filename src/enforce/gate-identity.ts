/**
 * A gate as gate-audit uses it: its members read once per use (a getter that answers differently on a
 * second read cannot change a judgement), and its identity. Names are not identities: every unnamed
 * policy gate is called `policy`. A gate's `id` is what it declares (a policy gate: the SHA-256 of its
 * canonical policy); without one, gate-audit gives each gate object an id valid in this process only.
 */
import { randomBytes } from 'node:crypto';
import { messageOf } from '../errors.js';
import { PROCESS_IDS_KEY } from '../walker/marks.js';
import type { ApprovalPath, Decision, DecideContext, Gate, GateRecord, ToolCallRequest } from './gate.js';

/** Which gate: its name, its identity, and whether that identity holds in this process only. */
export interface GateIdentity {
  readonly name: string;
  readonly id: string;
  readonly perProcess?: true;
}

/** A gate's members, each read exactly once. */
export interface GateView {
  readonly gate: Gate;
  readonly name: string;
  readonly id: string;
  readonly perProcess: boolean;
  readonly decide: (request: ToolCallRequest, context?: DecideContext) => Decision | Promise<Decision>;
  readonly approval: ApprovalPath | undefined;
  readonly record: ((record: GateRecord) => unknown) | undefined;
}

/**
 * The per-process ids, shared by every copy of gate-audit in the process (a `Symbol.for` key on `globalThis`):
 * the app's copy and the one the CLI or the guard loaded must name one gate object alike. The store is one frozen
 * function that hands out new ids only: no code can give its own gate the id of another.
 */
type IdOf = (gate: object) => string;

const PROCESS_IDS = PROCESS_IDS_KEY;

/** The prefix of per-process ids; a gate may not declare an id with it. */
export const PROCESS_ID_PREFIX = 'process:';

function makeIdOf(): IdOf {
  const tag = randomBytes(4).toString('hex');
  const ids = new WeakMap<object, string>();
  let counter = 0;
  return Object.freeze((gate: object): string => {
    let id = ids.get(gate);
    if (id === undefined) {
      counter += 1;
      id = `${PROCESS_ID_PREFIX}${tag}:${counter}`;
      ids.set(gate, id);
    }
    return id;
  });
}

function sharedIdOf(): IdOf {
  const existing: unknown = Object.getOwnPropertyDescriptor(globalThis, PROCESS_IDS)?.value;
  if (typeof existing === 'function') return existing as IdOf;
  const created = makeIdOf();
  Object.defineProperty(globalThis, PROCESS_IDS, { value: created, writable: false, configurable: false });
  return created;
}

const idOfGate = sharedIdOf();

/** The per-process id of a gate object that declares none. */
function processIdOf(gate: object): string {
  return idOfGate(gate);
}

/** The members of a gate, in the order every use reads them. */
const MEMBERS = ['name', 'id', 'decide', 'approval', 'record'] as const;

type Members = Record<(typeof MEMBERS)[number], unknown>;

/**
 * Reads each member of a gate once, or says which read threw: a member that cannot be read is a broken gate,
 * never an absent member (an approval path, a record or a declared id read as "none" would fail open).
 */
function readMembers(gate: object): { readonly values: Members } | { readonly error: string } {
  const values: Partial<Members> = {};
  for (const key of MEMBERS) {
    try {
      values[key] = (gate as Record<string, unknown>)[key];
    } catch (error) {
      return { error: `reading the gate's "${key}" threw: ${messageOf(error)}` };
    }
  }
  return { values: values as Members };
}

/**
 * Reads a gate's members once each and checks their types.
 *
 * @param gate - the gate
 * @returns the view, or what is wrong with the gate
 */
export function viewGate(gate: unknown): GateView | { readonly error: string } {
  if (typeof gate !== 'object' || gate === null) return { error: 'the gate is not an object' };
  const read = readMembers(gate);
  if ('error' in read) return read;
  const { name, id: declared, decide, approval, record } = read.values;
  if (typeof name !== 'string') return { error: 'the gate has no string name' };
  if (typeof decide !== 'function') return { error: `gate "${name}" has no decide() method` };
  if (declared !== undefined && (typeof declared !== 'string' || declared === '')) {
    return { error: `gate "${name}" declares an id that is not a non-empty string` };
  }
  if (typeof declared === 'string' && declared.startsWith(PROCESS_ID_PREFIX)) {
    return {
      error: `gate "${name}" declares an id starting with "${PROCESS_ID_PREFIX}", which names per-process ids only`,
    };
  }
  if (record !== undefined && typeof record !== 'function')
    return { error: `gate "${name}" has a record that is not a function` };
  if (approval !== undefined && (typeof approval !== 'object' || approval === null)) {
    return { error: `gate "${name}" has an approval that is not an object` };
  }
  const perProcess = declared === undefined;
  return {
    gate: gate as Gate,
    name,
    id: perProcess ? processIdOf(gate) : declared,
    perProcess,
    decide: (request, context) => (decide as Gate['decide']).call(gate, request, context),
    approval: approval as ApprovalPath | undefined,
    record: record === undefined ? undefined : (entry) => (record as (r: GateRecord) => unknown).call(gate, entry),
  };
}

/**
 * The identity of a usable gate, for reports.
 *
 * @param view - the gate as `viewGate` read it
 */
export function gateIdentity(view: GateView): GateIdentity {
  return view.perProcess ? { name: view.name, id: view.id, perProcess: true } : { name: view.name, id: view.id };
}
