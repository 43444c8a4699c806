/**
 * One `sarifLocations` for the audit and `merge`: a finding of a module is at its export's line (the variable an
 * export like `team.graph` or `build(…)` names), a node's at the one line that defines it when the command knows
 * what the module imports, else at its export's line.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarifLocations } from '../../src/cli/sarif-locations.js';
import { type CoverageReport, CoverageReportSchema } from '../../src/report/schema.js';
import { cli, root } from '../helpers/cli.js';

const scratchRel = 'test/.generated/sarif-locations';
const scratch = join(root, scratchRel);
const APP = [
  "import { graph as mixed } from '../../../fixtures/graphs/mixed-graph.js';",
  '',
  'export const other = 1;',
  '',
  'export const team = { graph: mixed };',
  '',
  'export { mixed as graph };',
  '',
].join('\n');
const HELPER = ["export const publisher = { id: 'publisher' };", ''].join('\n');

let report: CoverageReport;

beforeAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'app.ts'), APP);
  writeFileSync(join(scratch, 'helper.ts'), HELPER);
  const run = await cli(`${scratchRel}/app.ts`, '--export', 'graph', '--format', 'json');
  report = CoverageReportSchema.parse(JSON.parse(run.out));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The report with its one source renamed to a nested export of the same module. */
function nested(exportName: string): CoverageReport {
  return { ...report, sources: report.sources.map((s) => ({ ...s, export: exportName })) };
}

describe('sarifLocations', () => {
  const app = join(scratch, 'app.ts');
  const helper = join(scratch, 'helper.ts');
  const module = `${scratchRel}/app.ts`;

  describe('when a module has a finding', () => {
    it("puts a module's finding at the line of the variable its export names", () => {
      const { locateModule } = sarifLocations(report, { root, fileOf: (m) => (m === module ? app : undefined) });
      expect(locateModule?.(module, 'team.graph')).toEqual({
        uri: `${scratchRel}/app.ts`,
        underRoot: true,
        startLine: 5,
      });
      expect(locateModule?.(module, 'team[0]')?.startLine).toBe(5);
      expect(locateModule?.(module, 'graph')?.startLine).toBe(7);
      expect(locateModule?.(module, 'missing')?.startLine).toBe(1);
      expect(locateModule?.('elsewhere.ts', 'graph')).toBeUndefined();
    });
  });

  describe('when a node has a finding', () => {
    it("puts a node at its definition in the module's imports when they are known, else at its export's line", () => {
      const publisher = report.nodes.find((n) => n.id === 'publisher');
      expect(publisher).toBeDefined();
      const source = report.sources[0]!;
      const fileOf = (m: string): string | undefined => (m === source.module ? app : undefined);
      const withImports = sarifLocations(nested('team.graph'), { root, fileOf, closureOf: (file) => [file, helper] });
      expect(withImports.locate?.(publisher!)).toEqual({
        uri: `${scratchRel}/helper.ts`,
        underRoot: true,
        startLine: 1,
      });
      const without = sarifLocations(nested('team.graph'), { root, fileOf });
      expect(without.locate?.(publisher!)?.startLine).toBe(5);
    });
  });
});

describe('gate-audit merge <report> --format sarif', () => {
  describe('when the report names a nested export', () => {
    it('points a nested export at the line of its variable, as the audit does', async () => {
      const file = join(scratch, 'nested.json');
      writeFileSync(file, JSON.stringify(nested('team.graph')));
      const run = await cli('merge', `${scratchRel}/nested.json`, '--format', 'sarif');
      expect(run.code).toBe(1);
      const sarif = JSON.parse(run.out) as {
        runs: {
          results: {
            locations?: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
          }[];
        }[];
      };
      const lines = sarif.runs[0]!.results.flatMap((r) =>
        (r.locations ?? []).map(
          (l) => `${l.physicalLocation.artifactLocation.uri}:${l.physicalLocation.region.startLine}`,
        ),
      );
      expect(lines.length).toBeGreaterThan(0);
      expect([...new Set(lines)]).toEqual([`${scratchRel}/app.ts:5`]);
      expect(readFileSync(file, 'utf8')).toContain('team.graph');
    });
  });
});
