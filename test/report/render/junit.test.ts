/** The JUnit renderer (`--format junit`), through the map: cases, accepted nodes, notes, bundles. */
import { describe, expect, it } from 'vitest';
import type { CoverageReport } from '../../../src/index.js';
import { RENDERERS } from '../../../src/report/render/index.js';
import { agentNode, bundle, gatedTeam, mixed, reportOf } from '../../helpers/reports.js';

describe('renderJunit (as RENDERERS.junit)', () => {
  describe('when they render an audit report', () => {
    it('junit: one test case per node, a failure per node that is not gated, escaped XML', () => {
      const xml = RENDERERS.junit(mixed, {});
      expect(xml).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="gate-audit" tests="5" failures="2" errors="0" skipped="0">/,
      );
      expect(xml.match(/<testcase /g)).toHaveLength(5);
      expect(xml.match(/<failure /g)).toHaveLength(2);
      expect(xml).toContain('<testcase classname="gate-audit › pricing" name="publisher" time="0">');
      const tricky = {
        ...mixed,
        nodes: [{ ...mixed.nodes[0]!, id: 'a<b>&"c"', status: 'ungated' as const, reason: "it's <bad>" }],
      };
      const escaped = RENDERERS.junit(tricky, {});
      expect(escaped).toContain('name="a&lt;b&gt;&amp;&quot;c&quot;"');
      expect(escaped).toContain('it&apos;s &lt;bad&gt;');
    });
  });

  describe('when nodes carry gates or are accepted', () => {
    it('junit: an accepted node is skipped with its reason, not a failure', () => {
      const xml = RENDERERS.junit(gatedTeam, {});
      expect(xml).toContain('failures="0" errors="0" skipped="1"');
      expect(xml).toContain(
        '<testcase classname="gate-audit › team" name="partner" time="0">\n      <skipped message="accepted: accepted: the vendor gates it on their side"/>',
      );
    });
  });

  describe('when the report has notes (junit)', () => {
    it('each note is a case of the notes suite: a failure where it fails the run, skipped otherwise', () => {
      const report: CoverageReport = {
        ...mixed,
        notes: [
          {
            kind: 'unaudited-export',
            module: 'app.ts',
            export: 'build',
            message: 'was not called',
            fix: '--export build',
          },
          {
            kind: 'gate-mismatch',
            module: 'app.ts',
            path: ['pricing', 'analyst'],
            message: 'under allow-all',
            fails: true,
          },
        ],
      };
      const xml = RENDERERS.junit(report, {});
      const failuresWithout = (RENDERERS.junit(mixed, {}).match(/<failure /g) ?? []).length;
      expect((xml.match(/<failure /g) ?? []).length).toBe(failuresWithout + 1);
      expect(xml).toContain(`tests="${mixed.nodes.length + 2}"`);
      expect(xml).toMatch(
        /<testsuite name="gate-audit notes" tests="2" failures="1" errors="0" skipped="1">\n.*name="unaudited-export".*\n\s*<skipped message="not audited: app.ts#build: was not called \| --export build"\/>/,
      );
      expect(xml).toContain('<failure type="gate-mismatch" message="wrong gate: ');
    });
  });

  describe('when the report bundles several modules', () => {
    it('junit: one suite per module, class names without dots', () => {
      const xml = RENDERERS.junit(bundle, {});
      expect(xml).toContain('<testsuite name="src/a.graph.ts#graph" tests="2" failures="1" errors="0" skipped="0">');
      expect(xml).toContain('<testsuite name="src/b.ts#team" tests="2" failures="1" errors="0" skipped="0">');
      expect(xml).toContain('<testcase classname="gate-audit › team" name="v1.2" time="0">');
      const dotted = reportOf([agentNode(['app.v2'], 'gated', { kind: 'graph' }), agentNode(['app.v2', 'a'], 'gated')]);
      expect(RENDERERS.junit(dotted, {})).toContain('classname="gate-audit › app\u2024v2" name="a"');
    });
  });
});
