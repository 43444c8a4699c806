/**
 * gate-audit's own version, read once from its `package.json`, and the generator of a merged report: neither loads
 * a framework, so `merge` and `observed` never load the SDK.
 */
import { readFileSync } from 'node:fs';
import type { Generator } from './schema.js';

let own: string | undefined;

/** gate-audit's own version, from its `package.json`. */
export function gateAuditVersion(): string {
  own ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return own;
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
