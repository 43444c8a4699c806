/**
 * A second copy of @strands-agents/sdk on disk, as when an app and gate-audit each resolve their own.
 * It lives under node_modules so its own dependencies still resolve.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Makes the copy (once) and returns its folder. The copy is written beside its place and renamed into it, so
 * a run that starts while another is copying never sees half a copy.
 */
export function sdkCopy(): string {
  const copy = join(root, 'node_modules/.gate-audit-test/dup/node_modules/@strands-agents/sdk');
  if (!existsSync(join(copy, 'package.json'))) {
    mkdirSync(dirname(copy), { recursive: true });
    const partial = mkdtempSync(`${copy}.partial-`);
    cpSync(join(root, 'node_modules/@strands-agents/sdk'), partial, { recursive: true });
    try {
      renameSync(partial, copy);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      // Another run renamed its copy into place first: use that one.
      if (!existsSync(join(copy, 'package.json'))) throw error;
    }
  }
  return copy;
}
