/**
 * `gate-audit merge` on reports the command did not write itself (the CLI's own runs are in
 * test/cli/commands/merge-command.test.ts): a library `audit()` report, and reports carrying hostile ids.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { audit, type CoverageReport, CoverageReportSchema } from '../../src/index.js';
import { hasHiddenCharacters } from '../../src/escape.js';
import { cli, root } from '../helpers/cli.js';

const scratch = join(root, 'test/.generated/merge-unit');
const file = (name: string, report: unknown): string => {
  const path = join(scratch, name);
  writeFileSync(path, JSON.stringify(report));
  return path;
};

beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('gate-audit merge, on reports from elsewhere', () => {
  describe('when given a library audit() report', () => {
    it('refuses a library audit() report: its nodes belong to no module, so they cannot be keyed', async () => {
      const report = audit(buildMixedGraph());
      expect(report.sources).toEqual([]);
      const result = await cli('merge', file('library.json', report));
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/library\.json> \| node "pricing" belongs to no module of the report's sources/);
      expect(result.out).toBe('');
    });
  });
  describe('when ids and file names are hostile', () => {
    it('neutralises hostile ids and file names in its warnings', async () => {
      const hostile = 'pub\u001b[2J\u202Elisher';
      const base = audit(buildMixedGraph());
      const withSources = (status: CoverageReport['nodes'][number]['status']): CoverageReport => ({
        ...base,
        nodes: base.nodes.map((n) =>
          n.id === 'publisher' ? { ...n, id: hostile, path: [...n.path.slice(0, -1), hostile], status } : n,
        ),
        edges: [],
        sources: [{ module: 'app/\u001b]8;;x\u0007graph.ts', export: 'graph', path: ['pricing'], factory: false }],
      });
      const a = file('a\u001b[31m.json', withSources('gated'));
      const b = file('b.json', withSources('ungated'));
      const result = await cli('merge', a, b, '--format', 'json');
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/warning: reports disagree on .*kept ungated, the worse/);
      // No raw control or bidi character reaches the terminal.
      expect(result.err.split('\n').filter((line) => hasHiddenCharacters(line))).toEqual([]);
      const merged = CoverageReportSchema.parse(JSON.parse(result.out));
      expect(merged.nodes.find((n) => n.id === hostile)?.status).toBe('ungated');
    });
  });
});
