/**
 * The process guard reads the run context (`src/enforce/run-state.ts`): an ungated agent a governed custom node
 * invokes with a fresh `invocationState` is refused where it runs (the node's place) and stops the root run it
 * belongs to, as any gate failure does. In its own Node process, from dist/, as the other process-guard
 * scenarios (`test/enforce/process-guard.test.ts`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';

describe('guardProcess', () => {
  describe('when a custom node runs an ungated agent with a fresh invocationState', () => {
    it('refuses the agent at the node’s place and stops the root run: the sibling runs no further tool', () => {
      const run = spawnSync(process.execPath, [join(root, 'fixtures/guard/custom-node-run.mjs')], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const outcome = JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as {
        ran: string[];
        run: { ok: boolean; status?: string; yModelCalls: number; siblingModelCalls: number; failure?: string };
      };
      expect(outcome.run).toMatchObject({ ok: true, status: 'FAILED', yModelCalls: 0 });
      expect(outcome.run.failure).toContain('agent "y" ("Strands Agent") is unguarded');
      expect(outcome.run.failure).toContain('invoked at pipeline/sneaky');
      expect(outcome.ran).not.toContain('shell');
      expect(outcome.run.siblingModelCalls).toBeLessThanOrEqual(1);
    });
  });
});
