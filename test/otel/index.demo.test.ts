/**
 * The README's OpenTelemetry example: `fixtures/otel-demo.ts` run as the README says (`npx jiti`, the built
 * package), printing exactly the output the README shows.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('gateSpanProcessor', () => {
  describe('when fixtures/otel-demo.ts is run as the README says', () => {
    it('prints the spans docs/decisions.md shows', () => {
      const page = readFileSync(join(root, 'docs/decisions.md'), 'utf8');
      const section = page.slice(page.indexOf('## Decisions in OpenTelemetry'));
      const shown = /```text\n([\s\S]*?)```/.exec(section)?.[1];
      expect(shown).toBeDefined();
      const run = spawnSync(
        process.execPath,
        [join(root, 'node_modules/jiti/lib/jiti-cli.mjs'), 'fixtures/otel-demo.ts'],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 60_000,
          env: { ...process.env, NODE_NO_WARNINGS: '1' },
        },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(shown);
    }, 90_000);
  });
});
