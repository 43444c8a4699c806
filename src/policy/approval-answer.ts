/**
 * The approver's side of approvals kept in a store: list the pending ones (each checked: its digests are
 * its call's, and with a keyring each answer's signature), and answer one with an Ed25519 private key. An
 * answer is signed over exactly the pause shown (approval id, nonce, `toolUseId`, the call digest recomputed
 * from the call shown), the decision, the approver's name, the time and the expiry, then inserted; the
 * first answer wins and nothing overwrites it.
 */
import type { KeyObject } from 'node:crypto';
import { GateAuditError, messageOf } from '../errors.js';
import { visibleField } from '../escape.js';
import { callDigest } from './approval.js';
import {
  APPROVER_NAME,
  type ApproverKeysOptions,
  approverKeys,
  type Keyring,
  readPrivateKey,
} from './approval-keys.js';
import { answerProblem, signAnswer } from './approval-signature.js';
import type { ApprovalAnswer, ApprovalStore, StoredApproval } from './approval-store.js';
import { entryProblem } from './approval-stored.js';

/** What an approver sees of a stored approval, checked. */
export interface ListedApproval extends StoredApproval {
  /** Why the row does not hold together (its input or call does not match its digests): never answer it. */
  readonly problem?: string;
  /** With a keyring: why its answer cannot be trusted (unlisted approver, signature not verifying). */
  readonly answerProblem?: string;
  /** Whether it expired. */
  readonly expired: boolean;
}

/**
 * A stored approval checked for an approver.
 *
 * @param stored - the row
 * @param keyring - the approvers' public keys, to check its answer's signature (optional)
 */
export function checkStored(stored: StoredApproval, keyring?: Keyring): ListedApproval {
  const problem = entryProblem(stored.entry);
  let signature: string | undefined;
  if (keyring !== undefined && stored.answer !== undefined && problem === undefined) {
    const { entry } = stored;
    signature = answerProblem(
      stored.answer,
      { approvalId: entry.id, nonce: entry.nonce, toolUseId: entry.request.toolUseId, callDigest: entry.callDigest },
      keyring,
    );
  }
  return {
    ...stored,
    ...(problem === undefined ? {} : { problem }),
    ...(signature === undefined ? {} : { answerProblem: signature }),
    expired: Date.now() > stored.entry.expiresAt,
  };
}

/** What `listPending` lists, and the approvers' public keys to check answers with. */
export interface ListOptions extends Pick<ApproverKeysOptions, 'approvers' | 'keyring'> {
  /** Answered and used approvals too (default: unanswered and unused only). */
  readonly all?: boolean;
}

/**
 * Lists pending approvals, each checked (`checkStored`): with `approvers` or `keyring`, each answer's
 * signature too (`answerProblem` set when it does not verify).
 *
 * @param store - the store
 * @param options - `all`, and `approvers` or `keyring` (as a gate takes them)
 */
export async function listPending(store: ApprovalStore, options: ListOptions = {}): Promise<ListedApproval[]> {
  const keyring =
    options.approvers === undefined && options.keyring === undefined
      ? undefined
      : approverKeys({ ...options, allowWritableKeyring: true }, 'listPending')();
  const rows = await store.listPending({ all: options.all === true });
  return rows.map((row) => checkStored(row, keyring));
}

/** Who answers, with which key. */
export interface AnswerOptions {
  /** The approver's Ed25519 private key: a key object, or the text of its PKCS#8 PEM file. */
  readonly privateKey: KeyObject | string;
  /**
   * The approver's name, which must be the name the gate lists the public key under (default: the name
   * line of the key file, `# gate-audit approver: <name>`).
   */
  readonly approverId?: string;
  /** How long the answer may be used, in ms from now (default and at most: until the approval expires). */
  readonly validForMs?: number;
}

function refused(id: string, why: string): GateAuditError {
  return new GateAuditError('INVALID_ARGUMENT', `approval=<${visibleField(id)}> | ${why}`);
}

function signerOf(options: AnswerOptions): { key: KeyObject; approverId: string } {
  let key: KeyObject;
  let named: string | undefined;
  if (typeof options?.privateKey === 'string') {
    try {
      ({ key, name: named } = readPrivateKey(options.privateKey));
    } catch (error) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `option=<privateKey> | ${visibleField(messageOf(error))} | give the file gate-audit approvals keygen wrote`,
      );
    }
  } else if (
    typeof options?.privateKey === 'object' &&
    options.privateKey !== null &&
    options.privateKey.type === 'private' &&
    options.privateKey.asymmetricKeyType === 'ed25519'
  ) {
    key = options.privateKey;
  } else {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      'option=<privateKey> | expected an Ed25519 private key (its PEM text or a KeyObject) | make one with gate-audit approvals keygen --name <you>',
    );
  }
  const approverId = options.approverId ?? named;
  if (approverId === undefined || !APPROVER_NAME.test(approverId)) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `option=<approverId> | ${approverId === undefined ? 'the key file names no approver' : `"${visibleField(approverId)}" is not an approver name`} | pass the name the gate lists your public key under`,
    );
  }
  return { key, approverId };
}

async function answer(
  store: ApprovalStore,
  id: string,
  options: AnswerOptions,
  decision: 'approve' | 'deny',
): Promise<ApprovalAnswer> {
  const { key, approverId } = signerOf(options);
  const validForMs = options.validForMs;
  if (validForMs !== undefined && (!Number.isInteger(validForMs) || validForMs <= 0)) {
    throw new GateAuditError('INVALID_ARGUMENT', 'option=<validForMs> | expected a positive whole number of ms');
  }
  const stored = await store.getPending(id);
  if (stored === undefined) throw refused(id, 'no such pending approval | list them first');
  const { entry } = stored;
  const problem = entryProblem(entry);
  if (problem !== undefined) throw refused(id, `${problem}: it was not written by a gate | do not answer it`);
  if (stored.supersededBy !== undefined) {
    throw refused(
      id,
      `the call paused again as ${visibleField(stored.supersededBy)}, and a resume binds to that pause | answer that one`,
    );
  }
  if (stored.consumption !== undefined) throw refused(id, 'it was already used by the gate');
  if (stored.answer !== undefined) {
    throw refused(id, 'it was answered already (the first answer wins) | show it to see the answer');
  }
  const now = Date.now();
  if (now > entry.expiresAt) throw refused(id, 'it expired | rerun the agent to ask again');
  const expiresAt = validForMs === undefined ? entry.expiresAt : Math.min(entry.expiresAt, now + validForMs);
  const subject = {
    approvalId: entry.id,
    nonce: entry.nonce,
    toolUseId: entry.request.toolUseId,
    // Recomputed from the call as shown, never taken from the row: the signature covers what was shown.
    callDigest: callDigest({ ...entry.request, gateId: entry.gateId }),
    decision,
    approverId,
    answeredAt: now,
    expiresAt,
  };
  const signed: ApprovalAnswer = {
    approvalId: entry.id,
    decision,
    approverId,
    answeredAt: now,
    expiresAt,
    signature: signAnswer(subject, key),
  };
  if (!(await store.answerPending(signed))) {
    throw refused(id, 'it was answered already (the first answer wins) | show it to see the answer');
  }
  return signed;
}

/**
 * Approves a stored pending approval: checks the row holds together (its digests are its call's), is the
 * latest pause of its call, not expired, not answered and not used, then inserts an answer signed with the
 * approver's private key over exactly that pause and call. The first answer wins.
 *
 * @param store - the store the gate writes to
 * @param id - the pending approval's id
 * @param options - `{ privateKey, approverId?, validForMs? }`
 * @returns the signed answer stored
 * @throws GateAuditError `INVALID_ARGUMENT` when the key or name is bad, or the approval is unknown,
 *   malformed, superseded, expired, used or answered already
 */
export function approvePending(store: ApprovalStore, id: string, options: AnswerOptions): Promise<ApprovalAnswer> {
  return answer(store, id, options, 'approve');
}

/**
 * Denies a stored pending approval, signed like an approval (the first answer wins: a denial stored first is
 * never overwritten, and the runtime's database role cannot remove it).
 *
 * @param store - the store the gate writes to
 * @param id - the pending approval's id
 * @param options - `{ privateKey, approverId?, validForMs? }`
 * @returns the signed answer stored
 * @throws GateAuditError `INVALID_ARGUMENT` as `approvePending`
 */
export function denyPending(store: ApprovalStore, id: string, options: AnswerOptions): Promise<ApprovalAnswer> {
  return answer(store, id, options, 'deny');
}
