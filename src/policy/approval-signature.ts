/**
 * The signed answer of an approval kept in a store: an approver's Ed25519 signature over a domain-tagged
 * canonical encoding of the approval id, the pause's nonce, the `toolUseId`, the call digest (tool, input,
 * agent, place, gate id: `callDigest`), the answer (grant or deny), the approver's id, and the answer's time
 * and expiry. Changing any of them (the approver's name included) breaks the signature; an answer signed for
 * one pause cannot answer another pause of the same call (its nonce and approval id differ).
 */
import { type KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '../enforce/digest.js';
import { quoted } from '../escape.js';
import type { Keyring } from './approval-keys.js';
import type { ApprovalAnswer } from './approval-store.js';

/** Domain tag of a signed answer: a signature over it can never pass for a signature over anything else. */
const ANSWER_DOMAIN = 'gate-audit-approval-answer/v1';

/** Everything an answer's signature covers. */
export interface AnswerSubject {
  readonly approvalId: string;
  /** The nonce of the pause answered. */
  readonly nonce: string;
  readonly toolUseId: string;
  /** `callDigest` of the call answered. */
  readonly callDigest: string;
  readonly decision: 'approve' | 'deny';
  readonly approverId: string;
  readonly answeredAt: number;
  readonly expiresAt: number;
}

/**
 * The bytes an answer's signature covers: canonical JSON of the domain tag and each field, in order.
 *
 * @param subject - the answer and what it answers
 */
export function answerMessage(subject: AnswerSubject): Buffer {
  return Buffer.from(
    canonicalJson([
      ANSWER_DOMAIN,
      subject.approvalId,
      subject.nonce,
      subject.toolUseId,
      subject.callDigest,
      subject.decision === 'approve' ? 'grant' : 'deny',
      subject.approverId,
      subject.answeredAt,
      subject.expiresAt,
    ]),
    'utf8',
  );
}

/**
 * Signs an answer with an approver's private key.
 *
 * @param subject - the answer and what it answers
 * @param key - the approver's Ed25519 private key
 * @returns the signature, base64
 */
export function signAnswer(subject: AnswerSubject, key: KeyObject): string {
  return sign(null, answerMessage(subject), key).toString('base64');
}

/**
 * Why an answer cannot be trusted for a pause of a call, or undefined when its approver is listed in the
 * keyring and the signature is that approver's over exactly this answer to exactly this pause.
 *
 * @param answer - the stored answer
 * @param pause - the approval id, nonce, `toolUseId` and call digest of the pause being resumed
 * @param keyring - the approvers the gate trusts
 */
export function answerProblem(
  answer: ApprovalAnswer,
  pause: Pick<AnswerSubject, 'approvalId' | 'nonce' | 'toolUseId' | 'callDigest'>,
  keyring: Keyring,
): string | undefined {
  if (typeof answer.approverId !== 'string') return 'the answer names no approver';
  const key = keyring.publicKey(answer.approverId);
  if (key === undefined) {
    return `the answer's approver ${quoted(answer.approverId)} is not listed in ${quoted(keyring.source)}`;
  }
  if (answer.decision !== 'approve' && answer.decision !== 'deny') return 'the answer is neither approve nor deny';
  if (!Number.isSafeInteger(answer.answeredAt) || !Number.isSafeInteger(answer.expiresAt)) {
    return 'the answer has no valid time or expiry';
  }
  if (typeof answer.signature !== 'string' || !/^[A-Za-z0-9+/]{86}==$/.test(answer.signature)) {
    return 'the answer carries no Ed25519 signature';
  }
  const message = answerMessage({
    ...pause,
    decision: answer.decision,
    approverId: answer.approverId,
    answeredAt: answer.answeredAt,
    expiresAt: answer.expiresAt,
  });
  if (answer.approvalId !== pause.approvalId || !verify(null, message, key, Buffer.from(answer.signature, 'base64'))) {
    return `the answer's signature is not by ${quoted(answer.approverId)} over this answer to this pause of this call (approval, nonce, call, decision, approver, time or expiry differ)`;
  }
  return undefined;
}
