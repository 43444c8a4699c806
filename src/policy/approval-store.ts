/**
 * Durable approvals: the pending approval of an `ask` written to a store (in memory, or PostgreSQL through
 * `gate-audit/stores/postgres`) so that another process can list and answer it, and the paused process, or
 * a restarted one resuming from the SDK's session snapshot, consumes the answer exactly once.
 *
 * Trust: the approval token (`approve`) stays the proof that someone holding the secret approved exactly
 * this call. The store adds durability, single use and "first answer wins". Each pending row carries an
 * HMAC by the gate (its own domain tag) over every field the token signs, the row id, the gate's name, the
 * reason and rule, and the expiry: a row written or edited straight in the table is refused, and a nonce
 * copied into another row does not verify.
 */
import { createHmac } from 'node:crypto';
import { canonicalJson } from '../enforce/digest.js';
import type {
  ApprovalBinding,
  ApprovalOutcome,
  ApprovalPath,
  RaisedApproval,
  ToolCallRequest,
} from '../enforce/gate.js';
import { GateAuditError } from '../errors.js';
import { joinPath } from '../paths.js';
import {
  type ApprovalSecret,
  approvalKey,
  approvalToken,
  equalText,
  inputDigest,
  isApprovalToken,
} from './approval.js';

/** The call a pending approval waits for, as stored. */
export interface PendingRequest {
  readonly toolName: string;
  readonly toolUseId: string;
  /** The judged input (the deep-frozen copy the tool will run with). */
  readonly input: unknown;
  readonly agentId: string;
  readonly agentName: string;
  /** Where the call runs (escaped segments; empty when the place is not known). */
  readonly path: readonly string[];
}

/** A pending approval as a gate writes it to its store. */
export interface PendingApprovalEntry {
  /** Random id; the answer to the interrupt on resume. */
  readonly id: string;
  /** The gate's name (shown to the approver). */
  readonly gate: string;
  /** The gate's identity. */
  readonly gateId: string;
  /** The rule that asked. */
  readonly rule?: string;
  /** Why the gate asks. */
  readonly reason: string;
  /** The call. */
  readonly request: PendingRequest;
  /** SHA-256 of the canonical input: what the approval token will sign. */
  readonly inputDigest: string;
  /** The nonce issued with the interrupt. */
  readonly nonce: string;
  /** When it was raised (ms since the epoch). */
  readonly createdAt: number;
  /** When it expires (ms since the epoch): an answer consumed later is refused. */
  readonly expiresAt: number;
  /** The gate's HMAC over the row (see the module comment). */
  readonly mac: string;
}

/** An answer to a pending approval. */
export interface ApprovalAnswer {
  /** What was decided. */
  readonly decision: 'approve' | 'deny';
  /** Who decided (free text, shown and logged). */
  readonly by: string;
  /** The approval token (approve only). */
  readonly token?: string;
  /** When (ms since the epoch). */
  readonly answeredAt: number;
}

/** A pending approval with its answer and whether it was consumed. */
export interface StoredApproval {
  readonly entry: PendingApprovalEntry;
  readonly answer?: ApprovalAnswer;
  /** When the gate consumed it (ms since the epoch); absent while unconsumed. */
  readonly consumedAt?: number;
}

/**
 * Where pending approvals live. Every method may reject (the gate then refuses the call and stops the run).
 * `answer` and `consume` must be atomic: of two answers exactly one is stored (the first), and of two
 * consumes exactly one returns the row.
 */
export interface ApprovalStore {
  /** Writes a new pending approval (the id is fresh). */
  putPending(entry: PendingApprovalEntry): Promise<void>;
  /** Pending approvals, oldest first: unanswered and unconsumed only unless `all`. */
  listPending(options?: { readonly all?: boolean }): Promise<StoredApproval[]>;
  /** One pending approval by id. */
  getPending(id: string): Promise<StoredApproval | undefined>;
  /** Stores the answer if there is none yet and it is not consumed; `false` when one was there first. */
  answerPending(id: string, answer: ApprovalAnswer): Promise<boolean>;
  /** Marks it consumed and returns it, once; `undefined` when unknown or already consumed. */
  consumePending(id: string): Promise<StoredApproval | undefined>;
}

/** Durable approval options of `approvals`. */
export interface DurableApprovalOptions extends ApprovalSecret {
  /** Where pending approvals are written, answered and consumed. Without it approvals live in memory only. */
  readonly store?: ApprovalStore;
  /** How long a pending approval may be answered and consumed, in ms (default one hour). */
  readonly ttlMs?: number;
}

/** Domain tag of the row HMAC: never mistaken for an approval token made with the same key. */
const ROW_DOMAIN = 'gate-audit-approval-row/v1';
const DEFAULT_TTL_MS = 60 * 60 * 1000;

function rowMac(key: Buffer, entry: Omit<PendingApprovalEntry, 'mac'> & { readonly mac?: string }): string {
  const message = canonicalJson([
    ROW_DOMAIN,
    entry.id,
    entry.gate,
    entry.gateId,
    entry.rule ?? null,
    entry.reason,
    entry.request.agentId,
    joinPath(entry.request.path),
    entry.nonce,
    entry.request.toolName,
    entry.request.toolUseId,
    entry.inputDigest,
    entry.createdAt,
    entry.expiresAt,
  ]);
  return createHmac('sha256', key).update(message).digest('hex');
}

/**
 * Why a stored row cannot be trusted, or undefined when its HMAC is the gate's and its input matches its
 * digest.
 */
function forgery(key: Buffer, entry: PendingApprovalEntry): string | undefined {
  let expected: string;
  try {
    expected = rowMac(key, entry);
  } catch {
    return 'the stored approval is malformed';
  }
  if (typeof entry.mac !== 'string' || !equalText(expected, entry.mac)) {
    return 'the stored approval was not written by this gate (its HMAC does not verify): refused';
  }
  let digest: string;
  try {
    digest = inputDigest(entry.request.input);
  } catch {
    return 'the stored approval holds an input that is not plain data';
  }
  if (digest !== entry.inputDigest) return "the stored approval's input does not match its signed digest";
  return undefined;
}

function sameCall(entry: PendingApprovalEntry, request: ToolCallRequest, gateId: string): string | undefined {
  const differs: string[] = [];
  if (entry.gateId !== gateId) differs.push('gate');
  if (entry.request.agentId !== request.agentId) differs.push('agent');
  if (joinPath(entry.request.path) !== joinPath(request.path)) differs.push('place');
  if (entry.request.toolName !== request.toolName) differs.push('tool');
  if (entry.request.toolUseId !== request.toolUseId) differs.push('toolUseId');
  if (entry.inputDigest !== inputDigest(request.input)) differs.push('input');
  return differs.length === 0 ? undefined : `the stored approval is for another call (${differs.join(', ')} differ)`;
}

/**
 * Consumes a stored approval once and checks it against the live call. Integrity problems throw (the gate
 * refuses the call and stops the run); a human's denial is a refusal.
 */
async function redeem(
  key: Buffer,
  store: ApprovalStore,
  id: string,
  request: ToolCallRequest,
  gateId: string,
  nonce: string | undefined,
  answer: unknown,
): Promise<ApprovalOutcome> {
  const stored = await store.consumePending(id);
  if (stored === undefined) {
    throw new Error(`approval ${id} is unknown or was already used`);
  }
  const problem = forgery(key, stored.entry) ?? sameCall(stored.entry, request, gateId);
  if (problem !== undefined) throw new Error(problem);
  if (nonce !== undefined && stored.entry.nonce !== nonce) {
    throw new Error('the stored approval is not the one this gate raised for this interrupt (nonce differs)');
  }
  if (Date.now() > stored.entry.expiresAt) {
    throw new Error(`approval ${id} expired at ${new Date(stored.entry.expiresAt).toISOString()}`);
  }
  const subject = { ...request, gateId, nonce: stored.entry.nonce };
  // A token given directly as the resume answer counts as well as one stored by approvePending.
  const token = isApprovalToken(answer) ? answer : stored.answer?.token;
  if (stored.answer?.decision === 'deny') {
    return { granted: false, reason: `denied by ${stored.answer.by}` };
  }
  if (token === undefined) throw new Error(`approval ${id} was not answered before the run resumed`);
  if (!equalText(approvalToken(key, subject), token)) {
    throw new Error(`the approval token of ${id} is not for this call`);
  }
  return { granted: true };
}

function approvalIdOf(answer: unknown): string | undefined {
  return typeof answer === 'string' && /^[0-9a-f-]{36}$/.test(answer) ? answer : undefined;
}

/**
 * The interrupt approval path with a durable store: `raise` writes the pending approval (HMAC'd) before the
 * run pauses; on resume the answer (the approval id, or a token) is consumed from the store once, in this
 * process or in a restarted one.
 *
 * @param options - `{ secret, store, ttlMs? }`
 */
export function storedApprovals(options: DurableApprovalOptions & { readonly store: ApprovalStore }): ApprovalPath {
  const key = approvalKey(options, 'approvals');
  const { store } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
    throw new GateAuditError('INVALID_ARGUMENT', 'option=<approvals.ttlMs> | must be a positive whole number of ms');
  }
  for (const method of ['putPending', 'consumePending', 'answerPending', 'getPending', 'listPending'] as const) {
    if (typeof (store as unknown as Record<string, unknown>)?.[method] !== 'function') {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `option=<approvals.store> | the store has no ${method}() | pass postgresStore(...) or memoryApprovalStore()`,
      );
    }
  }
  return {
    via: 'interrupt',
    raise: async (pending: RaisedApproval): Promise<void> => {
      const createdAt = Date.now();
      const { request } = pending;
      const fields: Omit<PendingApprovalEntry, 'mac'> = {
        id: pending.id,
        gate: pending.gate,
        gateId: pending.gateId,
        ...(pending.rule === undefined ? {} : { rule: pending.rule }),
        reason: pending.reason,
        request: {
          toolName: request.toolName,
          toolUseId: request.toolUseId,
          input: request.input,
          agentId: request.agentId,
          agentName: request.agentName,
          path: [...request.path],
        },
        inputDigest: inputDigest(request.input),
        nonce: pending.nonce,
        createdAt,
        expiresAt: createdAt + ttlMs,
      };
      await store.putPending({ ...fields, mac: rowMac(key, fields) });
    },
    check: async (request: ToolCallRequest, answer: unknown, binding: ApprovalBinding): Promise<ApprovalOutcome> => {
      if (binding.approvalId === undefined) throw new Error('no stored approval is waiting for this interrupt');
      if (!isApprovalToken(answer) && approvalIdOf(answer) !== binding.approvalId) {
        // The interrupt is answered: its stored approval is spent too, so it cannot be used later.
        await store.consumePending(binding.approvalId);
        return {
          granted: false,
          reason: `the answer is neither the approval id ${binding.approvalId} nor an approval token`,
        };
      }
      return redeem(key, store, binding.approvalId, request, binding.gateId, binding.nonce, answer);
    },
    resume: (
      request: ToolCallRequest,
      answer: unknown,
      gate: { readonly gateId: string },
    ): Promise<ApprovalOutcome> => {
      const id = approvalIdOf(answer);
      if (id === undefined) {
        return Promise.resolve({
          granted: false,
          reason:
            'the approval answer was not requested by this gate in this process, and it is not the id of a stored approval',
        });
      }
      return redeem(key, store, id, request, gate.gateId, undefined, answer);
    },
  };
}

/** What an approver sees of a stored approval, checked. */
export interface ListedApproval extends StoredApproval {
  /** Why the row cannot be trusted (written or edited in the table, input not matching its digest). */
  readonly forged?: string;
  /** Whether it expired. */
  readonly expired: boolean;
}

/**
 * Lists pending approvals with each row's HMAC checked.
 *
 * @param store - the store
 * @param options - `{ secret }` and `all` (answered and consumed ones too)
 */
export async function listPending(
  store: ApprovalStore,
  options: ApprovalSecret & { readonly all?: boolean },
): Promise<ListedApproval[]> {
  const key = approvalKey(options, 'approvals list');
  const rows = await store.listPending({ all: options.all === true });
  const now = Date.now();
  return rows.map((row) => {
    const forged = forgery(key, row.entry);
    return { ...row, ...(forged === undefined ? {} : { forged }), expired: now > row.entry.expiresAt };
  });
}

/** Who answers. */
export interface AnswerOptions extends ApprovalSecret {
  /** Who decides (shown and stored). */
  readonly by: string;
}

async function answer(
  store: ApprovalStore,
  id: string,
  options: AnswerOptions,
  decision: 'approve' | 'deny',
): Promise<void> {
  const key = approvalKey(options, `approvals ${decision}`);
  if (typeof options.by !== 'string' || options.by.trim() === '') {
    throw new GateAuditError('INVALID_ARGUMENT', `approval=<${id}> | say who answers | pass { by: 'name' }`);
  }
  const stored = await store.getPending(id);
  if (stored === undefined) {
    throw new GateAuditError('INVALID_ARGUMENT', `approval=<${id}> | no such pending approval | list them first`);
  }
  const forged = forgery(key, stored.entry);
  if (forged !== undefined) throw new GateAuditError('INVALID_ARGUMENT', `approval=<${id}> | ${forged}`);
  if (stored.consumedAt !== undefined) {
    throw new GateAuditError('INVALID_ARGUMENT', `approval=<${id}> | it was already used by the gate`);
  }
  if (Date.now() > stored.entry.expiresAt) {
    throw new GateAuditError('INVALID_ARGUMENT', `approval=<${id}> | it expired | rerun the agent to ask again`);
  }
  const token =
    decision === 'approve'
      ? approvalToken(key, { ...stored.entry.request, gateId: stored.entry.gateId, nonce: stored.entry.nonce })
      : undefined;
  const first = await store.answerPending(id, {
    decision,
    by: options.by,
    ...(token === undefined ? {} : { token }),
    answeredAt: Date.now(),
  });
  if (!first) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `approval=<${id}> | it was answered already (the first answer wins) | list it with --all to see the answer`,
    );
  }
}

/**
 * Approves a stored pending approval: checks the row is the gate's (HMAC), not expired, not answered and
 * not used, then stores the approval token for exactly that call. The first answer wins.
 *
 * @param store - the store the gate writes to
 * @param id - the pending approval's id
 * @param options - `{ secret, by }`
 * @throws GateAuditError `INVALID_ARGUMENT` when it is unknown, forged, expired, used or answered already
 */
export function approvePending(store: ApprovalStore, id: string, options: AnswerOptions): Promise<void> {
  return answer(store, id, options, 'approve');
}

/**
 * Denies a stored pending approval (the first answer wins: a denial stored first is never overwritten).
 *
 * @param store - the store the gate writes to
 * @param id - the pending approval's id
 * @param options - `{ secret, by }`
 * @throws GateAuditError `INVALID_ARGUMENT` when it is unknown, forged, expired, used or answered already
 */
export function denyPending(store: ApprovalStore, id: string, options: AnswerOptions): Promise<void> {
  return answer(store, id, options, 'deny');
}

/**
 * An in-memory `ApprovalStore` (one process; for tests, and for approving from the same process).
 */
export function memoryApprovalStore(): ApprovalStore {
  const rows = new Map<string, { entry: PendingApprovalEntry; answer?: ApprovalAnswer; consumedAt?: number }>();
  const copy = (row: StoredApproval): StoredApproval => structuredClone(row);
  return {
    putPending: (entry) => {
      if (rows.has(entry.id)) return Promise.reject(new Error(`approval ${entry.id} exists already`));
      rows.set(entry.id, { entry: structuredClone(entry) });
      return Promise.resolve();
    },
    listPending: (options) =>
      Promise.resolve(
        [...rows.values()]
          .filter((row) => options?.all === true || (row.answer === undefined && row.consumedAt === undefined))
          .map(copy),
      ),
    getPending: (id) => {
      const row = rows.get(id);
      return Promise.resolve(row === undefined ? undefined : copy(row));
    },
    answerPending: (id, given) => {
      const row = rows.get(id);
      if (row === undefined || row.answer !== undefined || row.consumedAt !== undefined) return Promise.resolve(false);
      row.answer = structuredClone(given);
      return Promise.resolve(true);
    },
    consumePending: (id) => {
      const row = rows.get(id);
      if (row === undefined || row.consumedAt !== undefined) return Promise.resolve(undefined);
      row.consumedAt = Date.now();
      return Promise.resolve(copy(row));
    },
  };
}
