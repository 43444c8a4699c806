/** gate-audit's own version (no framework is loaded for it: every command's failure line names it). */
import { readFileSync } from 'node:fs';

/** gate-audit's own version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
