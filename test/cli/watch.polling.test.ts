/**
 * `--watch` where the system will not watch a folder (no inotify watch or instance left: `ENOSPC`): the watch
 * says so on stderr and polls the folder's files instead, so a change still runs the audit again.
 */
import type * as fs from 'node:fs';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { watchRuns } from '../../src/cli/watch.js';
import { root } from '../helpers/cli.js';

vi.mock('node:fs', async (original) => ({
  ...(await original<typeof fs>()),
  watch: () => {
    throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
  },
}));

const scratch = join(root, 'test/.generated/watch-polling');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('watchRuns', () => {
  describe('when a folder cannot be watched', () => {
    it('says so, polls its files, and runs again when one changes', async () => {
      mkdirSync(scratch, { recursive: true });
      const file = join(scratch, 'agents.ts');
      writeFileSync(file, "export const id = 'clerk';\n");
      let stderr = '';
      let runs = 0;
      const stopped = new AbortController();
      const watching = watchRuns({
        run: async (watched) => {
          runs += 1;
          watched.add(file);
          return await Promise.resolve(runs === 1 ? 1 : 0);
        },
        report: (error) => {
          throw error;
        },
        streams: { stderr: { write: (chunk: string) => (stderr += chunk) } },
        signal: stopped.signal,
      });
      await vi.waitFor(() =>
        expect(stderr).toMatch(/cannot watch .*watch-polling \(ENOSPC: .*\); polling its 1 file instead/),
      );
      writeFileSync(file, "export const id = 'archivist';\n");
      await vi.waitFor(() => expect(runs).toBe(2), { timeout: 10_000, interval: 100 });
      expect(stderr).toContain('a watched file changed, auditing again');
      stopped.abort();
      expect(await watching).toBe(0);
    });
  });
});
