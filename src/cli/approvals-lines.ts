/**
 * A stored approval as lines for the terminal (`approvals list`, `show`, `watch`): every value from the
 * store neutralised (`visible`), so a hostile input can neither move the cursor nor forge a line.
 */
import { canonicalJson } from '../enforce/digest.js';
import { joinPath } from '../tree-paths.js';
import { callDigest } from '../policy/approval.js';
import type { ListedApproval } from '../policy/approval-answer.js';
import { visible } from '../escape.js';

const time = (ms: number): string => (Number.isFinite(ms) ? new Date(ms).toISOString() : visible(String(ms)));

/** The status word of a stored approval. */
export function statusOf(listed: ListedApproval): string {
  const { answer, consumption } = listed;
  if (listed.problem !== undefined) return 'NOT TRUSTED';
  if (consumption !== undefined) return `used (${visible(String(consumption.outcome))})`;
  if (answer !== undefined) {
    return `${answer.decision === 'approve' ? 'approved' : 'denied'} by ${visible(String(answer.approverId))}`;
  }
  if (listed.supersededBy !== undefined) return 'superseded';
  return listed.expired ? 'expired' : 'pending';
}

function digestLine(listed: ListedApproval): string {
  const { entry } = listed;
  let shown: string;
  try {
    shown = callDigest({ ...entry.request, gateId: entry.gateId });
  } catch {
    return '  call digest: the call shown is not plain data (NOT TRUSTED)';
  }
  return shown === entry.callDigest
    ? `  call digest: ${shown} (recomputed from the call shown: matches; an answer signs it)`
    : `  call digest: ${shown} recomputed from the call shown DOES NOT MATCH the stored ${visible(String(entry.callDigest))}`;
}

/**
 * One approval as lines: the status, the gate and rule, the reason, the call, its input and call digest,
 * the expiry; with `detail`, the nonce, who answered and when, the answer's signature check and the use.
 *
 * @param listed - the checked approval
 * @param detail - `show`'s full view
 * @param keyringShown - where answers' signatures were checked (undefined: not checked)
 */
export function approvalLines(listed: ListedApproval, detail = false, keyringShown?: string): string {
  const { entry, answer, consumption } = listed;
  let input: string;
  try {
    input = canonicalJson(entry.request.input);
  } catch {
    input = '(not plain data)';
  }
  const lines = [
    `${visible(entry.id)}  ${statusOf(listed)}`,
    `  gate ${visible(entry.gate)} (${visible(entry.gateId)})${entry.rule === undefined ? '' : `, rule ${visible(entry.rule)}`}`,
    `  reason: ${visible(entry.reason)}`,
    `  agent ${visible(entry.request.agentId)} at ${visible(joinPath(entry.request.path)) || '(no place known)'}: tool ${visible(entry.request.toolName)}, toolUseId ${visible(entry.request.toolUseId)}`,
    `  input: ${visible(input)}`,
    digestLine(listed),
    `  expires ${time(entry.expiresAt)}`,
  ];
  if (listed.problem !== undefined) lines.push(`  NOT TRUSTED: ${visible(listed.problem)}`);
  if (listed.supersededBy !== undefined) {
    lines.push(`  superseded: the call paused again as ${visible(listed.supersededBy)} (a resume binds to that pause)`);
  }
  if (detail) {
    lines.splice(6, 0, `  nonce ${visible(String(entry.nonce))}, raised ${time(entry.createdAt)}`);
    if (answer === undefined) lines.push('  answer: none yet');
    else {
      lines.push(
        `  answer: ${answer.decision === 'approve' ? 'approve' : 'deny'} by ${visible(String(answer.approverId))} at ${time(answer.answeredAt)}, valid until ${time(answer.expiresAt)}`,
      );
      lines.push(
        keyringShown === undefined
          ? '  signature: not checked (pass --keyring <file> to check it against the approvers the gate trusts)'
          : listed.answerProblem === undefined
            ? `  signature: verified, ${visible(String(answer.approverId))}'s key in ${visible(keyringShown)}`
            : `  signature: NOT VERIFIED: ${visible(listed.answerProblem)}`,
      );
    }
    if (consumption !== undefined) {
      lines.push(
        `  used: ${time(consumption.consumedAt)} by ${visible(String(consumption.by))} (${visible(String(consumption.outcome))})`,
      );
    }
  } else if (listed.answerProblem !== undefined) {
    lines.push(`  answer NOT VERIFIED: ${visible(listed.answerProblem)}`);
  }
  return `${lines.join('\n')}\n`;
}
