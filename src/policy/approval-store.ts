/**
 * Durable approvals: where the pending approval of an `ask` is written (in memory, or PostgreSQL through
 * `gate-audit/stores/postgres`) so that another process can list and answer it, and the paused process, or a
 * restarted one resuming from the SDK's session snapshot, consumes the answer once.
 *
 * The store is append-only: a pending approval, its answer and its consumption are three inserts, and of
 * two answers (or two consumptions) of one approval the store takes exactly one, the first; nothing is
 * ever updated or deleted by a gate or an approver. Trust does not come from the store: every answer is
 * signed by an approver's Ed25519 key over exactly one pause of exactly one call (`approval-signature.ts`),
 * and the gate checks it against the public keys it holds (`approval-keys.ts`). The store adds
 * durability, "first answer wins" and single use.
 */
import { GateAuditError, messageOf } from '../errors.js';
import { visibleField } from '../escape.js';

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

/** A pending approval as a gate writes it to its store: one pause of one call. */
export interface PendingApprovalEntry {
  /** Random id; the answer to the interrupt on resume. */
  readonly id: string;
  /** The gate's name (shown to the approver). */
  readonly gate: string;
  /** The gate's identity. */
  readonly gateId: string;
  /** The rule that asked. */
  readonly rule?: string;
  /** Why the gate asks (shown to the approver; not signed: judge the call). */
  readonly reason: string;
  /** The call. */
  readonly request: PendingRequest;
  /** SHA-256 of the canonical input. */
  readonly inputDigest: string;
  /** `callDigest` of the call: what an approver's signature covers (with the ids below). */
  readonly callDigest: string;
  /** The nonce issued with this pause (the interrupt). */
  readonly nonce: string;
  /** When it was raised (ms since the epoch). */
  readonly createdAt: number;
  /** When it expires (ms since the epoch): an answer consumed later is refused. */
  readonly expiresAt: number;
}

/** An approver's signed answer to one pending approval. */
export interface ApprovalAnswer {
  /** The pending approval answered. */
  readonly approvalId: string;
  /** What was decided. */
  readonly decision: 'approve' | 'deny';
  /** Who decided: the name the approver's public key is listed under. */
  readonly approverId: string;
  /** When (ms since the epoch). */
  readonly answeredAt: number;
  /** Until when the answer may be used (ms since the epoch; at most the pending approval's expiry). */
  readonly expiresAt: number;
  /** Ed25519 signature (base64) over the canonical answer (`answerMessage`). */
  readonly signature: string;
}

/** A gate's use of a pending approval: written once, whatever the outcome. */
export interface ApprovalConsumption {
  /** The pending approval used. */
  readonly approvalId: string;
  /** When (ms since the epoch). */
  readonly consumedAt: number;
  /** What the gate did with it: ran the call, refused it (a denial, a wrong answer), or found no answer. */
  readonly outcome: 'granted' | 'refused' | 'unanswered';
  /** Who used it: host and process id of the gate. */
  readonly by: string;
}

/** A pending approval with its answer and its consumption, when there are. */
export interface StoredApproval {
  readonly entry: PendingApprovalEntry;
  readonly answer?: ApprovalAnswer;
  readonly consumption?: ApprovalConsumption;
  /**
   * The id of a later pending approval of the same call (same `callDigest` and `toolUseId`): the call
   * paused again, and that later pause is the one a resume binds to.
   */
  readonly supersededBy?: string;
}

/** How long to wait for an answer. */
export interface WaitOptions {
  /** Stops the wait (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /**
   * Gives up after this many ms (the promise resolves `undefined`); no limit without it. The first look in the store
   * always finishes, so an answer already there is found whatever the timeout (`0` looks once).
   */
  readonly timeoutMs?: number;
}

/**
 * Where pending approvals live. Every method may reject (the gate then refuses the call and stops the run).
 * `answerPending` and `consumePending` are inserts that must be atomic: of two for one approval exactly one
 * is stored (the first), the other resolves `false`.
 */
export interface ApprovalStore {
  /** Writes a new pending approval (the id is fresh). */
  putPending(entry: PendingApprovalEntry): Promise<void>;
  /** Pending approvals, oldest first: unanswered and unconsumed only unless `all`. */
  listPending(options?: { readonly all?: boolean }): Promise<StoredApproval[]>;
  /** One pending approval by id, with its answer, consumption and any later pause of the same call. */
  getPending(id: string): Promise<StoredApproval | undefined>;
  /** Stores an answer unless one is there; `false` when one was there first (or the approval is unknown). */
  answerPending(answer: ApprovalAnswer): Promise<boolean>;
  /** Stores a consumption unless one is there; `false` when one was there first (or the approval is unknown). */
  consumePending(consumption: ApprovalConsumption): Promise<boolean>;
  /**
   * Waits until the pending approval is answered: resolves the answer, or `undefined` after `timeoutMs`;
   * rejects when the signal aborts or the approval is unknown. The answer is not checked here (the gate
   * checks its signature on resume).
   */
  waitForAnswer(approvalId: string, options?: WaitOptions): Promise<ApprovalAnswer | undefined>;
}

/** The methods a store must have (checked when a gate is made). */
export const STORE_METHODS = [
  'putPending',
  'listPending',
  'getPending',
  'answerPending',
  'consumePending',
  'waitForAnswer',
] as const;

/** What a wait rejects with: the abort reason or the failure, as an `Error`. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(messageOf(reason));
}

/**
 * Waits for `check` to find an answer, again each time `subscribe` reports news, until `timeoutMs` or the
 * signal (shared by the stores' `waitForAnswer`).
 *
 * @param check - looks in the store: the answer, `undefined` while there is none; rejects for an unknown id
 * @param subscribe - calls its argument on news (a notification, a reconnect); returns the unsubscribe
 * @param options - the signal and the timeout
 */
export function waitUntilAnswered(
  check: () => Promise<ApprovalAnswer | undefined>,
  subscribe: (news: () => void) => () => void,
  options: WaitOptions = {},
): Promise<ApprovalAnswer | undefined> {
  const { signal, timeoutMs } = options;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 0)) {
    return Promise.reject(
      new GateAuditError('INVALID_ARGUMENT', 'option=<timeoutMs> | expected a whole number of ms, 0 or more'),
    );
  }
  if (signal?.aborted === true) return Promise.reject(asError(signal.reason));
  return new Promise((resolve, reject) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let checking = false;
    let again = false;
    // The first look always finishes: an answer already there is found, however short the timeout (a slow
    // store's first read may take longer than it).
    let looked = false;
    let expired = false;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      unsubscribe();
      settle();
    };
    const onAbort = (): void => finish(() => reject(asError(signal?.reason)));
    const look = (): void => {
      if (done) return;
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      check().then(
        (answer) => {
          checking = false;
          looked = true;
          if (answer !== undefined) finish(() => resolve(answer));
          else if (expired) finish(() => resolve(undefined));
          else if (again) {
            again = false;
            look();
          }
        },
        (error: unknown) => finish(() => reject(asError(error))),
      );
    };
    const unsubscribe = subscribe(look);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        if (looked) finish(() => resolve(undefined));
        else expired = true;
      }, timeoutMs);
    }
    look();
  });
}

/**
 * An in-memory `ApprovalStore` (one process; for tests, and for approving from the same process). It keeps
 * the same rules as the PostgreSQL store: inserts only, one answer and one consumption per approval.
 */
export function memoryApprovalStore(): ApprovalStore {
  const pending = new Map<string, { entry: PendingApprovalEntry; order: number }>();
  const answers = new Map<string, ApprovalAnswer>();
  const consumptions = new Map<string, ApprovalConsumption>();
  const listeners = new Set<() => void>();
  let order = 0;
  const read = (id: string): StoredApproval | undefined => {
    const row = pending.get(id);
    if (row === undefined) return undefined;
    const { entry } = row;
    let later: { id: string; order: number } | undefined;
    for (const [otherId, other] of pending) {
      if (
        other.order > row.order &&
        other.entry.callDigest === entry.callDigest &&
        other.entry.request.toolUseId === entry.request.toolUseId &&
        (later === undefined || other.order > later.order)
      ) {
        later = { id: otherId, order: other.order };
      }
    }
    const answer = answers.get(id);
    const consumption = consumptions.get(id);
    return structuredClone({
      entry,
      ...(answer === undefined ? {} : { answer }),
      ...(consumption === undefined ? {} : { consumption }),
      ...(later === undefined ? {} : { supersededBy: later.id }),
    });
  };
  const store: ApprovalStore = {
    putPending: (entry) => {
      if (pending.has(entry.id)) return Promise.reject(new Error(`approval ${entry.id} exists already`));
      order += 1;
      pending.set(entry.id, { entry: structuredClone(entry), order });
      return Promise.resolve();
    },
    listPending: (options) =>
      Promise.resolve(
        [...pending.keys()]
          .filter((id) => options?.all === true || (!answers.has(id) && !consumptions.has(id)))
          .map((id) => read(id)!),
      ),
    getPending: (id) => Promise.resolve(read(id)),
    answerPending: (answer) => {
      if (!pending.has(answer.approvalId) || answers.has(answer.approvalId)) return Promise.resolve(false);
      answers.set(answer.approvalId, structuredClone(answer));
      for (const listener of [...listeners]) listener();
      return Promise.resolve(true);
    },
    consumePending: (consumption) => {
      if (!pending.has(consumption.approvalId) || consumptions.has(consumption.approvalId)) {
        return Promise.resolve(false);
      }
      consumptions.set(consumption.approvalId, structuredClone(consumption));
      return Promise.resolve(true);
    },
    waitForAnswer: (approvalId, options) =>
      waitUntilAnswered(
        () => {
          if (!pending.has(approvalId)) return Promise.reject(unknownApproval(approvalId));
          const answer = answers.get(approvalId);
          return Promise.resolve(answer === undefined ? undefined : structuredClone(answer));
        },
        (news) => {
          listeners.add(news);
          return () => listeners.delete(news);
        },
        options,
      ),
  };
  return store;
}

/**
 * The error of a wait for an approval that is not in the store.
 *
 * @param id - the approval id
 */
export function unknownApproval(id: string): GateAuditError {
  return new GateAuditError(
    'INVALID_ARGUMENT',
    `approval=<${visibleField(id)}> | no such pending approval | list them first`,
  );
}
