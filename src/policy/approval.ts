/**
 * Human approval for `ask`, bound to the exact arguments and used once (the signer reference in
 * `../shared/research/peers.md`).
 *
 * - `approve(request, { secret })` signs an approval: HMAC-SHA256 over the tool name, the `toolUseId` and a
 *   SHA-256 digest of the canonical input. The resume answer of the SDK interrupt is trusted only if it is
 *   such a token, for exactly this call, not used before. A plain "yes" proves nothing: anyone who can
 *   resume the agent, or write its session, can send one (`sdk-gaps.md` rows 40–41).
 * - Or an in-process `approver(request)` with a timeout: only a `true` answer in time approves.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson, withoutMarker } from '../enforce/digest.js';
import type { ApprovalOutcome, ApprovalPath, AskDecision, ToolCallRequest } from '../enforce/gate.js';
import { GateAuditError, messageOf } from '../errors.js';

/** The shared secret approvals are signed with (at least 32 bytes). */
export interface ApprovalSecret {
  /** The HMAC key; keep it where the approving side is, never where the agent's session is stored. */
  readonly secret: string | Uint8Array;
}

/** The part of a request an approval is bound to. */
export type ApprovalSubject = Pick<ToolCallRequest, 'toolName' | 'toolUseId' | 'input'>;

/** An in-process approver: resolves `true` to approve; anything else, a rejection or a timeout denies. */
export type Approver = (request: ToolCallRequest) => Promise<boolean>;

const TOKEN_PREFIX = 'ga1.';
const MIN_SECRET_BYTES = 32;

/** SHA-256 (hex) of the canonical form of an input, without the SDK's background marker. */
export function inputDigest(input: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(withoutMarker(input)))
    .digest('hex');
}

function keyOf(options: ApprovalSecret | undefined, subject: string): Buffer {
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

function sign(key: Buffer, subject: ApprovalSubject): string {
  const message = canonicalJson([
    'gate-audit-approval/v1',
    subject.toolName,
    subject.toolUseId,
    inputDigest(subject.input),
  ]);
  return `${TOKEN_PREFIX}${createHmac('sha256', key).update(message).digest('hex')}`;
}

/**
 * Signs the approval of exactly one tool call: this tool name, this `toolUseId`, this input. Give the token
 * as the interrupt's resume answer: `agent.invoke([{ interruptResponse: { interruptId, response: token } }])`.
 * The request is in the interrupt's `reason.request`.
 *
 * @param request - the call to approve (`toolName`, `toolUseId`, `input`)
 * @param options - `{ secret }`, the same secret the gate was given
 * @returns the approval token
 * @throws GateAuditError `INVALID_ARGUMENT` when the secret is missing or shorter than 32 bytes
 */
export function approve(request: ApprovalSubject, options: ApprovalSecret): string {
  return sign(keyOf(options, 'approve'), request);
}

/**
 * The interrupt approval path of a gate: checks that a resume answer is a token for exactly this call and
 * that it was not used before.
 *
 * @param options - `{ secret }`
 */
export function tokenApprovals(options: ApprovalSecret): ApprovalPath {
  const key = keyOf(options, 'approvals');
  const used = new Set<string>();
  return {
    via: 'interrupt',
    check: (request, answer): ApprovalOutcome => {
      if (typeof answer !== 'string' || !/^ga1\.[0-9a-f]{64}$/.test(answer)) {
        return { granted: false, reason: 'the answer is not an approval token; sign the call with approve()' };
      }
      const expected = Buffer.from(sign(key, request));
      const given = Buffer.from(answer);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
        return { granted: false, reason: 'the approval token is not for this call (tool, toolUseId or input differ)' };
      }
      if (used.has(answer)) return { granted: false, reason: 'the approval token was used already' };
      used.add(answer);
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
