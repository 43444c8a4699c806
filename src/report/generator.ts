/**
 * The `generator` of a report: which gate-audit wrote it, on which `@strands-agents/sdk`, and whether that
 * SDK lies in the range gate-audit was tested on.
 */
import { ensureSdk } from '../frameworks/strands/sdk-check.js';
import { gateAuditVersion } from './own-version.js';
import type { Generator } from './schema.js';

export { gateAuditVersion };

/**
 * Checks the loaded SDK (once per process; throws `SDK_SHAPE` or `SDK_BEHAVIOUR` when it cannot be used)
 * and returns the report's `generator`.
 */
export function checkedGenerator(): Generator {
  const sdk = ensureSdk();
  return { name: 'gate-audit', version: gateAuditVersion(), sdk: sdk.version, sdkTested: sdk.tested };
}

/**
 * The generator of a report merged from several: one SDK version when all agree (else each, comma-separated),
 * and `sdkTested` only when every part was made on a tested SDK. Parts without a generator count as untested.
 *
 * @param parts - the generators of the merged reports
 */
export function mergeGenerators(parts: readonly (Generator | undefined)[]): Generator {
  const sdks = [...new Set(parts.map((g) => g?.sdk ?? 'unknown'))];
  const versions = [...new Set(parts.map((g) => g?.version ?? 'unknown'))];
  return {
    name: 'gate-audit',
    version: versions.length === 0 ? gateAuditVersion() : versions.join(', '),
    sdk: sdks.length === 0 ? 'unknown' : sdks.join(', '),
    sdkTested: parts.length > 0 && parts.every((g) => g?.sdkTested === true),
  };
}
