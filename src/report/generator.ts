/**
 * The `generator` of a report: which gate-audit wrote it, on which `@strands-agents/sdk`, and whether that
 * SDK lies in the range gate-audit was tested on.
 */
import { ensureSdk } from '../frameworks/strands/sdk-check.js';
import { gateAuditVersion, mergeGenerators } from './own-version.js';
import type { Generator } from './schema.js';

export { gateAuditVersion, mergeGenerators };

/**
 * Checks the loaded SDK (once per process; throws `SDK_SHAPE` or `SDK_BEHAVIOUR` when it cannot be used)
 * and returns the report's `generator`.
 */
export function checkedGenerator(): Generator {
  const sdk = ensureSdk();
  return { name: 'gate-audit', version: gateAuditVersion(), sdk: sdk.version, sdkTested: sdk.tested };
}
