/**
 * A second copy of @strands-agents/sdk on disk, as when an app and gate-audit each resolve their own.
 * It lives under node_modules so its own dependencies still resolve.
 */
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Makes the copy (once) and returns its folder. */
export function sdkCopy(): string {
  const copy = join(root, 'node_modules/.gate-audit-test/dup/node_modules/@strands-agents/sdk');
  if (!existsSync(join(copy, 'package.json'))) {
    mkdirSync(dirname(copy), { recursive: true });
    cpSync(join(root, 'node_modules/@strands-agents/sdk'), copy, { recursive: true });
  }
  return copy;
}
