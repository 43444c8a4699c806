/**
 * Loading that cannot fake a result: modules load in a supervised audit child, so a module that exits, kills
 * its process, crashes, hangs, sets `process.exitCode`, exports `then`, hides trees in plain data or behind a
 * Proxy, or runs its tree while it loads cannot turn the built command's answer into a false green. Every
 * case runs the built `gate-audit` on a fixture of `fixtures/apps/unruly/`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { type CoverageReport, CoverageReportSchema } from '../../src/report/schema.js';
import { root } from '../helpers/cli.js';
import { markedRuns } from '../helpers/marked-runs.js';

const bin = join(root, 'bin/gate-audit.js');
const unruly = (name: string): string => `fixtures/apps/unruly/${name}.ts`;

const { ran, gateAudit, json } = markedRuns();

const loadNotes = (report: CoverageReport): NonNullable<CoverageReport['notes']> =>
  (report.notes ?? []).filter((n) => n.kind === 'load');

describe('loadModulesSupervised (the supervised audit child)', () => {
  describe('when a module ends its process while it loads', () => {
    it('process.exit(0) at import: a load failure naming the module and the call, exit 2, with a report', () => {
      const { status, report, stderr } = json([unruly('exits-at-import')]);
      expect(status).toBe(2);
      const [note] = loadNotes(report);
      expect(note).toMatchObject({ kind: 'load', module: unruly('exits-at-import'), fails: true });
      expect(note?.message).toMatch(
        /^called process\.exit\(0\) at fixtures\/apps\/unruly\/exits-at-import\.ts:\d+:\d+ while it was imported/,
      );
      expect(stderr).toContain(`gate-audit: load failed: ${unruly('exits-at-import')}: called process.exit(0)`);
    });

    it('--exit-zero does not hide it', () => {
      expect(gateAudit(['--exit-zero', '--format', 'json', unruly('exits-at-import')]).status).toBe(2);
    });

    it('a module that kills its process is a load failure, and the modules after it are still audited', () => {
      const { status, report } = json([unruly('kills-itself'), 'fixtures/graphs/gated-app.ts']);
      expect(status).toBe(2);
      expect(loadNotes(report).map((n) => [n.module, n.message])).toEqual([
        [
          unruly('kills-itself'),
          'killed its process (SIGKILL) while it was imported, so nothing it exports was audited',
        ],
      ]);
      expect(report.sources.map((s) => s.module)).toEqual(['fixtures/graphs/gated-app.ts']);
      expect(report.summary.gated).toBeGreaterThan(0);
    });

    it('an unhandled rejection while it loads is a load failure naming the error', () => {
      const { status, report } = json([unruly('rejects')]);
      expect(status).toBe(2);
      expect(loadNotes(report)[0]?.message).toBe(
        'threw Error: nobody handles this (an unhandled rejection) while it was imported, so nothing it exports was audited',
      );
    });

    it('a crash after its import settled is reported "after import of" that module, not blamed on the next', () => {
      const { status, report } = json([unruly('throws-later'), 'fixtures/graphs/gated-app.ts']);
      expect(status).toBe(2);
      expect(loadNotes(report).map((n) => [n.module, n.message])).toEqual([
        [
          unruly('throws-later'),
          `after import of ${unruly('throws-later')}: the process threw Error: boom from a timer (an uncaught exception)`,
        ],
      ]);
      // Its own tree was audited before it crashed, and the next module was loaded by a fresh child.
      expect(report.sources.map((s) => s.module).sort()).toEqual([
        unruly('throws-later'),
        'fixtures/graphs/gated-app.ts',
      ]);
    });

    it('a busy loop is ended at --timeout by the CLI itself: a load failure, exit 2', () => {
      const { status, report } = json(['--timeout', '1500', unruly('busy')]);
      expect(status).toBe(2);
      expect(loadNotes(report)[0]?.message).toMatch(/^did not finish loading within 1500 ms/);
    });

    it('process.exitCode set from an exit listener never decides the exit code', () => {
      // The module's ungated tree fails the run; its `exit` listener tries to make the process exit 0.
      const run = gateAudit(['--format', 'text', unruly('exit-code-zero')]);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain('coverage 0%');
    });
  });

  describe('when a load failure is written in every output', () => {
    const args = [unruly('exits-at-import')];

    it('SARIF: an error result at the module', () => {
      const run = gateAudit(['--format', 'sarif', ...args]);
      const sarif = JSON.parse(run.stdout) as {
        runs: { results: { ruleId: string; level: string; locations: { physicalLocation?: unknown }[] }[] }[];
      };
      const result = sarif.runs[0]?.results.find((r) => r.ruleId === 'gate-audit/load');
      expect(result?.level).toBe('error');
      expect(JSON.stringify(result?.locations)).toContain('exits-at-import.ts');
    });

    it('JUnit: a failure', () => {
      const run = gateAudit(['--format', 'junit', ...args]);
      const xml = new XMLParser({ ignoreAttributes: false }).parse(run.stdout) as {
        testsuites: { '@_failures': string };
      };
      expect(Number(xml.testsuites['@_failures'])).toBeGreaterThan(0);
      expect(run.stdout).toContain('load failed: fixtures/apps/unruly/exits-at-import.ts');
    });

    it('markdown, github and html name it', () => {
      expect(gateAudit(['--format', 'markdown', ...args]).stdout).toMatch(
        /load failed\\?: fixtures.*exits\\?-at\\?-import/,
      );
      expect(gateAudit(['--format', 'github', ...args]).stdout).toMatch(
        /^::error file=fixtures\/apps\/unruly\/exits-at-import\.ts,title=gate-audit%3A load failed .*::.*called process\.exit\(0\)/m,
      );
      expect(gateAudit(['--format', 'html', ...args]).stdout).toContain('load failed');
    });

    it('survives merge, which exits 2 for it', () => {
      const dir = mkdtempSync(join(tmpdir(), 'gate-audit-merge-'));
      try {
        const a = join(dir, 'a.json');
        const b = join(dir, 'b.json');
        gateAudit(['--format', 'json', '--output-file', a, ...args]);
        gateAudit(['--format', 'json', '--output-file', b, 'fixtures/graphs/gated-app.ts']);
        const merged = spawnSync(process.execPath, [bin, 'merge', '--format', 'json', '--exit-zero', a, b], {
          cwd: root,
          encoding: 'utf8',
        });
        expect(merged.status).toBe(2);
        const report = CoverageReportSchema.parse(JSON.parse(merged.stdout));
        expect(loadNotes(report).map((n) => n.module)).toEqual([unruly('exits-at-import')]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("when a module's exports are read (without running its code)", () => {
    it('a module exporting then: then is never called, and its ungated Graph is audited', () => {
      const { status, report } = json([unruly('thenable')]);
      expect(status).toBe(1);
      expect(report.sources.map((s) => s.export)).toEqual(['graph']);
      expect(report.summary.ungated).toBeGreaterThan(0);
      expect(ran()).toEqual([]);
    });

    it('orchestrators in plain data are audited under their export path; deeper or behind an object: not audited', () => {
      const { status, report } = json(['--fail-on-unaudited', unruly('graphs-in-config')]);
      expect(status).toBe(1);
      expect(report.sources.map((s) => s.export).sort()).toEqual([
        'config.extra[0]',
        'config.graphs[0]',
        'config.routes["billing/eu"]',
      ]);
      const unaudited = (report.notes ?? []).filter((n) => n.kind === 'unaudited-export');
      expect(unaudited.map((n) => [n.export, n.fails])).toEqual([
        ['config.deep.a.b.c.d', true],
        ['registry.held', true],
      ]);
      expect(unaudited[0]?.message).toContain('deeper than 4 steps');
      expect(unaudited[1]?.message).toContain('not plain data');
    });

    it('an export whose prototype is a Proxy is listed as not audited, and no trap runs', () => {
      const { report } = json(['--call-factories', unruly('proxy-prototype')]);
      const sneaky = (report.notes ?? []).find((n) => n.export === 'sneaky');
      expect(sneaky?.message).toMatch(/^is a Proxy/);
      expect(ran()).toEqual([]);
    });
  });

  describe('when a module invokes its tree while it is imported', () => {
    it('the invocation is stopped before any model call or tool body, its tree is audited, and a note says --entry', () => {
      const { status, report } = json([unruly('invokes-at-import')]);
      // Its import ended in the stop (a top-level await): its exports were never read, a load failure.
      expect(status).toBe(2);
      expect(loadNotes(report)[0]?.message).toMatch(/^its import ended in the audit's stop/);
      expect(report.sources.map((s) => s.export)).toEqual(['(invoked)']);
      expect(report.nodes.map((n) => n.path.join('/'))).toContain('runner/review/drafter/helper');
      const note = (report.notes ?? []).find((n) => n.kind === 'invoked-at-import');
      expect(note?.fix).toBe(`audit the app as it runs: gate-audit --entry ${unruly('invokes-at-import')}`);
      expect(ran()).toEqual([]);
    });
  });

  describe('when code in the audit process tries to write or rewrite its results', () => {
    it('lines a module writes to the results file itself fail their authentication: exit 2, its results refused', () => {
      const { status, report } = json([unruly('forges-results')]);
      expect(status).toBe(2);
      expect(loadNotes(report).map((n) => n.message)).toContain(
        "the audit process's results held 2 lines gate-audit did not write (code in the process wrote to them): its results are not trusted",
      );
      expect(report.summary.gated).toBe(0);
    });

    it('an inspector session or a heap snapshot (to read the results key) is refused in the audit process', () => {
      const { status, report } = json([unruly('reads-its-auditor')]);
      expect(status).toBe(1);
      expect(report.summary.ungated).toBe(7);
      expect(ran()).toEqual([]);
    });

    it('Object.prototype.toJSON does not rewrite the rows: the ungated Graph stays ungated (exit 1)', () => {
      const { status, report } = json([unruly('poisons-tojson')]);
      expect(status).toBe(1);
      expect(report.summary).toMatchObject({ total: 7, ungated: 7, gated: 0 });
    });

    it('a Proxy hidden by replacing util.types.isProxy is still named, and none of its traps runs', () => {
      const { report } = json([unruly('hides-proxy')]);
      expect((report.notes ?? []).find((n) => n.export === 'config')?.message).toMatch(/^is a Proxy/);
      expect(ran()).toEqual([]);
    });

    it('thousands of plain values before a Graph do not hide it', () => {
      const { status, report } = json([unruly('many-values')]);
      expect(status).toBe(1);
      expect(report.sources.map((s) => s.export)).toEqual(['config.graphs[0]']);
    });
  });

  describe('when code in the audit process tries to lose, grow or outlive its results', () => {
    it('pointing the results descriptor at another file stops the process: exit 2, nothing of it passes', () => {
      const { status, report } = json([unruly('swaps-results-fd')]);
      expect(status).toBe(2);
      expect(loadNotes(report).map((n) => n.message)).toContain(
        'found its results file replaced under it, and stopped while it was imported, so nothing it exports was audited',
      );
    });

    it('a results file grown to hundreds of MB is refused, not read: exit 2', () => {
      const { status, report } = json([unruly('grows-results')]);
      expect(status).toBe(2);
      expect(loadNotes(report).some((n) => n.message.startsWith('wrote more results than an audit writes'))).toBe(true);
    });

    it('a process that replaced its exit and keeps throwing is ended: the report comes, exit 1', () => {
      const started = Date.now();
      const { status, report } = json(['--timeout', '3000', unruly('never-exits')]);
      expect(status).toBe(1);
      expect(report.summary.ungated).toBe(7);
      expect(Date.now() - started).toBeLessThan(30_000);
    });

    it('an import that ends in the stop is a load failure: its exports were never read (exit 2)', () => {
      const { status, report } = json([unruly('decoy-stop')]);
      expect(status).toBe(2);
      expect(loadNotes(report)[0]?.message).toMatch(/^its import ended in the audit's stop/);
    });

    it("Node's internal bindings are refused in the audit process", () => {
      const { status, report } = json([unruly('uses-bindings')]);
      expect(status).toBe(1);
      expect(report.summary.ungated).toBe(7);
      expect(ran()).toEqual([]);
    });
  });
});
