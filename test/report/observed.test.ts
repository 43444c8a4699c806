/**
 * The observed report's pure parts: drift notes against an audit report (single and combined), joining the
 * reports of several hosts, and the exit code.
 */
import { describe, expect, it } from 'vitest';
import { mergeObserved, observedExitCode, summarizeRows, withAuditNotes } from '../../src/report/observed.js';
import type { ObservedReport, ObservedRow } from '../../src/report/observed-schema.js';
import type { CoverageNode, CoverageReport } from '../../src/report/schema.js';

const row = (
  where: Partial<ObservedRow>,
  counts: [number, number, number],
  seen = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z'],
): ObservedRow => ({
  ...where,
  tool: where.tool ?? 't',
  calls: counts[0] + counts[1] + counts[2],
  decided: counts[0],
  undecided: counts[1],
  refused: counts[2],
  firstSeen: seen[0]!,
  lastSeen: seen[1]!,
});

function observed(rows: ObservedRow[], extra: Partial<ObservedReport> = {}): ObservedReport {
  return {
    schemaVersion: 1,
    mode: 'observed',
    generator: { name: 'gate-audit', version: '1' },
    window: {},
    hosts: [],
    sources: [],
    rows,
    summary: summarizeRows(rows),
    notes: [],
    ...extra,
  };
}

const node = (path: string[], status: CoverageNode['status']): CoverageNode => ({
  path,
  id: path.at(-1)!,
  kind: 'agent',
  status,
  reason: '',
  tools: [],
  toolsUnknownUntilInit: false,
  warnings: [],
});

function auditOf(nodes: CoverageNode[], bundle = false): CoverageReport {
  return {
    schemaVersion: 2,
    mode: 'audit',
    root: bundle ? { id: 'gate-audit', kind: 'bundle' } : { id: 'g', kind: 'graph' },
    nodes,
    edges: [],
    summary: {
      total: 0,
      gated: 0,
      attested: 0,
      accepted: 0,
      ungated: 0,
      ungateable: 0,
      blocked: 0,
      toolRunning: 0,
      coverage: 1,
    },
    refusals: [],
    sources: bundle ? [{ module: 'app.ts', export: 'graph', path: ['app.ts%23graph'], factory: false }] : [],
  };
}

describe('withAuditNotes', () => {
  const rows = [
    row({ path: ['g', 'a'], tool: 'read' }, [1, 2, 0]),
    row({ path: ['g', 'b'], tool: 'read' }, [3, 0, 0]),
    row({ path: ['g', 'u'], tool: 'read' }, [0, 1, 0]),
    row({ agentId: 'solo', tool: 'read' }, [0, 0, 1]),
    row({ agentId: 'a/x', tool: 'read' }, [1, 0, 0]),
  ];
  const notes = (audit: CoverageReport): string[] =>
    withAuditNotes(observed(rows), audit).notes.map((n) => `${n.kind} ${n.path?.join('/') ?? n.agentId}`);

  describe('when a row has an in-tree path', () => {
    it('joins by the in-tree path from the root id, in a single or a combined audit report', () => {
      const expected = ['gated-undecided g/a', 'unaudited g/b', 'unaudited solo', 'unaudited a/x'];
      const single = [node(['g'], 'gated'), node(['g', 'a'], 'gated'), node(['g', 'u'], 'ungated')];
      expect(notes(auditOf(single))).toEqual(expected);
      expect(
        notes(
          auditOf(
            single.map((n) => ({ ...n, path: ['app.ts%23graph', ...n.path] })),
            true,
          ),
        ),
      ).toEqual(expected);
    });
  });
  describe('when a row has no place', () => {
    it('joins a row without a place by its agent id when exactly one audited node has it (escaped as a segment)', () => {
      const withSolo = [node(['g', 'a'], 'gated'), node(['g', 'solo'], 'gated'), node(['g', 'a%2Fx'], 'gated')];
      expect(notes(auditOf(withSolo))).toEqual(['gated-undecided g/a', 'unaudited g/b']);
      const twoSolos = [...withSolo, node(['g', 'b', 'solo'], 'gated')];
      expect(notes(auditOf(twoSolos))).toEqual(['gated-undecided g/a', 'unaudited g/b', 'unaudited solo']);
    });
  });
});

describe('mergeObserved', () => {
  describe('when the reports are held against one root', () => {
    it('sums one agent and tool across hosts, widens first and last seen, joins hosts; bounds the window only where every part does', () => {
      const a = observed(
        [row({ path: ['g', 'a'] }, [1, 1, 0], ['2026-01-01T00:00:05.000Z', '2026-01-01T00:00:06.000Z'])],
        {
          hosts: ['h1'],
          window: { since: '2026-01-01T00:00:00.000Z' },
        },
      );
      const b = observed(
        [
          row({ path: ['g', 'a'] }, [2, 0, 1], ['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:03.000Z']),
          row({ agentId: 'x' }, [0, 1, 0]),
        ],
        { hosts: ['h0', 'h1'], window: { since: '2026-01-01T00:00:01.000Z', until: '2026-01-02T00:00:00.000Z' } },
      );
      const merged = mergeObserved([
        { name: 'a.json', report: a },
        { name: 'b.json', report: b },
      ]);
      expect(merged.rows[0]).toEqual(
        row({ path: ['g', 'a'] }, [3, 1, 1], ['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:06.000Z']),
      );
      expect(merged.summary).toEqual({ calls: 6, decided: 3, undecided: 2, refused: 1, rows: 2 });
      expect(merged.hosts).toEqual(['h0', 'h1']);
      expect(merged.window).toEqual({
        since: '2026-01-01T00:00:00.000Z',
        first: '2026-01-01T00:00:00.000Z',
        last: '2026-01-01T00:00:06.000Z',
      });
      expect(observedExitCode(merged)).toBe(1);
    });
  });
  describe('when the reports are held against different roots', () => {
    it('refuses reports held against audits of different roots', () => {
      const held = (root: string) => observed([row({ agentId: 'x' }, [1, 0, 0])], { audit: { root } });
      expect(() =>
        mergeObserved([
          { name: 'a.json', report: held('one') },
          { name: 'b.json', report: held('two') },
        ]),
      ).toThrow(/report=<b\.json> \| it was held against the audit of "two", a\.json against "one"/);
    });
  });
});

describe('observedExitCode', () => {
  describe('when it counts the calls of a report', () => {
    it('is 2 with no call, 1 with an undecided call, else 0 (refused calls never fail)', () => {
      expect(observedExitCode(observed([]))).toBe(2);
      expect(observedExitCode(observed([row({ agentId: 'x' }, [0, 1, 0])]))).toBe(1);
      expect(observedExitCode(observed([row({ agentId: 'x' }, [2, 0, 3])]))).toBe(0);
    });
  });
});
