/** gate-audit's own version, and what `--version` prints. */
import { readFileSync } from 'node:fs';
import { sdkStatus } from '../frameworks/strands/sdk-check.js';

/** gate-audit's own version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** What `--version` prints: gate-audit's version, the SDK it found and where, and the tested range. */
export function versionText(): string {
  const sdk = sdkStatus();
  const verdict = sdk.tested ? 'inside the tested range' : 'OUTSIDE the tested range';
  return [
    `gate-audit ${version()}`,
    `@strands-agents/sdk ${sdk.version} (${sdk.where}): ${verdict}`,
    `tested range: @strands-agents/sdk ${sdk.range}`,
  ].join('\n');
}
