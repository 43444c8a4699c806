/** gate-audit's own version, read once from its `package.json` (no framework is loaded for it). */
import { readFileSync } from 'node:fs';

let own: string | undefined;

/** gate-audit's own version, from its `package.json`. */
export function gateAuditVersion(): string {
  own ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return own;
}
