/**
 * What a part of gate-audit that runs on `@strands-agents/sdk` says where the SDK is not installed (an optional
 * peer: a LangGraph.js-only app has none): one line naming the part and the package, instead of a module
 * resolution stack.
 */
import { GateAuditError } from '../../errors.js';
import { SDK_PACKAGE, strandsSdkInstalled } from './sdk-package.js';

/**
 * Throws `LOAD_FAILED` naming `what` when `@strands-agents/sdk` cannot be resolved from gate-audit.
 *
 * @param what - the part that needs it, as a sentence's subject (`the process guard`)
 * @throws GateAuditError `LOAD_FAILED` when the SDK is not installed
 */
export function requireStrandsSdk(what: string): void {
  if (strandsSdkInstalled()) return;
  throw new GateAuditError(
    'LOAD_FAILED',
    `sdk=<${SDK_PACKAGE}> | ${what} runs on ${SDK_PACKAGE}, which cannot be resolved from gate-audit | npm i ${SDK_PACKAGE}`,
  );
}
