/**
 * Human approval for `ask`, bound to the exact arguments and to the one interrupt it answers, used once.
 *
 * - `approve(request, { secret })` signs an approval answered in the process that paused (the symmetric
 *   secret is refused with a store: approvals kept in a store are signed by approvers' Ed25519 keys, see
 *   `approval-keys.ts`): HMAC-SHA256 (under its own domain tag) over the gate's
 *   identity, the agent id, the place, the nonce the gate issued with the interrupt, the tool name, the
 *   `toolUseId` and a SHA-256 digest of the canonical input. The resume answer of the SDK interrupt is
 *   trusted only if it is such a token, for exactly the interrupt this gate raised and still waits on. A
 *   plain "yes" proves nothing: anyone who can resume the agent, or write its session, can send one.
 * - Or an in-process `approver(request)` with a timeout: only a `true` answer in time approves.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson, sha256Hex, withoutMarker } from '../enforce/digest.js';
import { joinPath } from '../tree-paths.js';
import type { ApprovalOutcome, ApprovalPath, AskDecision, ToolCallRequest } from '../enforce/gate.js';
import { GateAuditError, messageOf } from '../errors.js';

/** The shared secret approvals are signed with (at least 32 bytes). */
export interface ApprovalSecret {
  /** The HMAC key; keep it where the approving side is, never where the agent's session is stored. */
  readonly secret: string | Uint8Array;
}

/**
 * What an approval token is bound to: the interrupt's request as shown in its `reason.request` (tool name,
 * `toolUseId`, input, agent id, place) plus the identity of the gate that raised it and the nonce issued
 * with that interrupt.
 */
export type ApprovalSubject = Pick<ToolCallRequest, 'toolName' | 'toolUseId' | 'input' | 'agentId' | 'path'> & {
  /** The `id` of the gate that raised the interrupt. */
  readonly gateId: string;
  /** The random nonce issued with the interrupt. */
  readonly nonce: string;
};

/** An in-process approver: resolves `true` to approve; anything else, a rejection or a timeout denies. */
export type Approver = (request: ToolCallRequest) => Promise<boolean>;

const TOKEN_PREFIX = 'ga2.';
const MIN_SECRET_BYTES = 32;
/** Domain tag of approval tokens: a token can never be mistaken for another HMAC made with the same key. */
const TOKEN_DOMAIN = 'gate-audit-approval/v2';

/** SHA-256 (hex) of the canonical form of an input, without the SDK's background marker. */
export function inputDigest(input: unknown): string {
  return sha256Hex(canonicalJson(withoutMarker(input)));
}

/** Domain tag of a call digest: never mistaken for the digest of anything else. */
const CALL_DOMAIN = 'gate-audit-call/v1';

/** What a call digest covers: the tool, its input, the agent, its place and the gate that judged it. */
export type CallSubject = Pick<ToolCallRequest, 'toolName' | 'input' | 'agentId' | 'path'> & {
  /** The `id` of the gate that asked. */
  readonly gateId: string;
};

/**
 * SHA-256 (hex) of a call as an approver's signature covers it: the gate id, the agent id, the place, the
 * tool name and the input's digest (`inputDigest`), under their own domain tag.
 *
 * @param call - the call and the gate that judged it
 * @throws when the input is not plain data
 */
export function callDigest(call: CallSubject): string {
  return sha256Hex(
    canonicalJson([
      CALL_DOMAIN,
      call.gateId,
      call.agentId,
      joinPath(call.path),
      call.toolName,
      inputDigest(call.input),
    ]),
  );
}

/**
 * The HMAC key of a secret, checked (at least 32 bytes).
 *
 * @param options - `{ secret }`
 * @param subject - what needs it, for the error message
 * @throws GateAuditError `INVALID_ARGUMENT` when the secret is missing or short
 */
export function approvalKey(options: ApprovalSecret | undefined, subject: string): Buffer {
  const secret = options?.secret;
  const key =
    typeof secret === 'string'
      ? Buffer.from(secret, 'utf8')
      : secret instanceof Uint8Array
        ? Buffer.from(secret)
        : undefined;
  if (key === undefined || key.length < MIN_SECRET_BYTES) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `subject=<${subject}> | the approval secret must be a string or bytes of at least ${MIN_SECRET_BYTES} bytes | ` +
        "generate one, e.g. crypto.randomBytes(32).toString('hex')",
    );
  }
  return key;
}

function checkSubject(subject: ApprovalSubject): void {
  const missing = (['toolName', 'toolUseId', 'agentId', 'gateId', 'nonce'] as const).filter(
    (key) => typeof subject?.[key] !== 'string' || subject[key] === '',
  );
  if (!Array.isArray(subject?.path)) missing.push('path' as never);
  if (missing.length > 0) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `fields=<${missing.join(', ')}> | the request to approve is incomplete | ` +
        "sign the interrupt's reason.request exactly as the gate gave it",
    );
  }
}

/**
 * Whether two texts (tokens, MACs) are equal, compared in constant time for texts of one length.
 *
 * @param a - the expected text
 * @param b - the given text
 */
export function equalText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function sign(key: Buffer, subject: ApprovalSubject): string {
  const message = canonicalJson([
    TOKEN_DOMAIN,
    subject.gateId,
    subject.agentId,
    joinPath(subject.path),
    subject.nonce,
    subject.toolName,
    subject.toolUseId,
    inputDigest(subject.input),
  ]);
  return `${TOKEN_PREFIX}${createHmac('sha256', key).update(message).digest('hex')}`;
}

/**
 * The approval token of a subject under a key (see `approve`).
 *
 * @param key - from `approvalKey`
 * @param subject - the interrupt's request with `gateId` and `nonce`
 */
export function approvalToken(key: Buffer, subject: ApprovalSubject): string {
  checkSubject(subject);
  return sign(key, subject);
}

/** Whether a value has the shape of an approval token. */
export function isApprovalToken(value: unknown): value is string {
  return typeof value === 'string' && /^ga2\.[0-9a-f]{64}$/.test(value);
}

/**
 * Signs the approval of exactly one interrupt: this gate, this agent, this place, this nonce, this tool
 * name, this `toolUseId`, this input. Give the token as the interrupt's resume answer:
 * `agent.invoke([{ interruptResponse: { interruptId, response: token } }])`. The request is the interrupt's
 * `reason.request` (it carries `gateId` and `nonce`).
 *
 * @param request - the interrupt's `reason.request`
 * @param options - `{ secret }`, the same secret the gate was given
 * @returns the approval token
 * @throws GateAuditError `INVALID_ARGUMENT` when the secret is missing or short, or the request incomplete
 */
export function approve(request: ApprovalSubject, options: ApprovalSecret): string {
  const key = approvalKey(options, 'approve');
  checkSubject(request);
  return sign(key, request);
}

/**
 * The interrupt approval path of a gate: checks that a resume answer is the token for exactly the interrupt
 * the gate raised (its nonce and gate identity come from the gate's memory, never from the answer or from
 * interrupt state). The gate consumes each interrupt once, so a token can never be used twice.
 *
 * @param options - `{ secret }`
 */
export function tokenApprovals(options: ApprovalSecret): ApprovalPath {
  const key = approvalKey(options, 'approvals');
  return {
    via: 'interrupt',
    check: (request, answer, binding): ApprovalOutcome => {
      if (!isApprovalToken(answer)) {
        return { granted: false, reason: 'the answer is not an approval token; sign the call with approve()' };
      }
      if (typeof binding?.nonce !== 'string' || typeof binding.gateId !== 'string') {
        return { granted: false, reason: 'no interrupt of this gate is waiting for this answer' };
      }
      if (!equalText(sign(key, { ...request, gateId: binding.gateId, nonce: binding.nonce }), answer)) {
        return {
          granted: false,
          reason:
            'the approval token is not for this interrupt (gate, agent, place, nonce, tool, toolUseId or input differ)',
        };
      }
      return { granted: true };
    },
  };
}

/**
 * The in-process approval path of a gate: asks `approver`, and denies on a timeout, a rejection, an error
 * or any answer but `true`.
 *
 * @param approver - the function asked
 * @param timeoutMs - how long it may take
 */
export function approverApprovals(approver: Approver, timeoutMs: number): ApprovalPath {
  return {
    via: 'callback',
    ask: async (request: ToolCallRequest, _decision: AskDecision): Promise<ApprovalOutcome> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        const answer = await Promise.race([Promise.resolve().then(() => approver(structuredClone(request))), timeout]);
        if (answer === 'timeout')
          return { granted: false, reason: `the approver did not answer within ${timeoutMs} ms` };
        return answer === true ? { granted: true } : { granted: false, reason: 'the approver said no' };
      } catch (error) {
        return {
          granted: false,
          reason: `the approver failed: ${messageOf(error)}`,
        };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
