import { describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../../fixtures/graphs/mixed-graph.js';
import { buildLateNodeGraph } from '../../../fixtures/graphs/late-node-graph.js';
import { buildRemoteGraph } from '../../../fixtures/graphs/remote-graph.js';
import { audit, type CoverageNode, type CoverageReport, CoverageReportSchema } from '../../../src/index.js';
import { summarize } from '../../../src/report/audit.js';
import { isFormatName, RENDERERS } from '../../../src/report/render/index.js';
import { pathFingerprint } from '../../../src/report/render/sarif.js';

const mixed = audit(buildMixedGraph());

describe('renderers', () => {
  describe('when looked up by name', () => {
    it('are registered by name', () => {
      expect(Object.keys(RENDERERS)).toEqual([
        'text',
        'json',
        'markdown',
        'sarif',
        'junit',
        'mermaid',
        'dot',
        'github',
      ]);
      expect(isFormatName('sarif')).toBe(true);
      expect(isFormatName('toString')).toBe(false);
    });
  });
  describe('when they render an audit report', () => {
    it('text: one row per node with a glyph readable without colour, and the summary', () => {
      const text = RENDERERS.text(mixed, {});
      expect(text).not.toContain('\u001b');
      expect(text.split('\n').filter((l) => /^[✔✘⊘■] /.test(l))).toHaveLength(mixed.nodes.length);
      expect(text).toContain(
        'coverage 75% of 4 tool-running nodes (3 gated, 1 ungated) · 1 orchestrator (1 ungated) · 5 nodes, 2 to fix',
      );
    });

    it('json: the report itself, valid against the schema', () => {
      expect(CoverageReportSchema.parse(JSON.parse(RENDERERS.json(mixed, {})))).toEqual(mixed);
    });

    it('markdown: a heading with the verdict, a table with not-gated nodes first', () => {
      const md = RENDERERS.markdown(mixed, {});
      expect(md).toMatch(/^## gate-audit audit: `pricing` ✘ not fully gated: 2 to fix\n/);
      const rows = md.split('\n').filter((l) => l.startsWith('| ✘') || l.startsWith('| ✔'));
      expect(rows).toHaveLength(5);
      expect(rows[0]).toContain('`pricing`');
      expect(rows[1]).toContain('`pricing › publisher`');
      expect(rows.slice(2).every((r) => r.startsWith('| ✔'))).toBe(true);
    });

    it('sarif: 2.1.0, one rule per problem kind, one result per not-gated node with a stable path fingerprint', () => {
      const report = audit(buildRemoteGraph());
      const withSource = {
        ...report,
        sources: [
          { module: 'fixtures/graphs/remote-graph.ts', export: 'graph', path: ['procurement'], factory: false },
        ],
      };
      const sarif = JSON.parse(RENDERERS.sarif(withSource, { version: '1.2.3' })) as {
        version: string;
        runs: {
          tool: { driver: { name: string; version: string; rules: { id: string }[] } };
          results: {
            ruleId: string;
            ruleIndex: number;
            level: string;
            locations: {
              physicalLocation?: { artifactLocation: { uri: string } };
              logicalLocations: { fullyQualifiedName: string }[];
            }[];
            partialFingerprints: Record<string, string>;
          }[];
        }[];
      };
      expect(sarif.version).toBe('2.1.0');
      const run = sarif.runs[0]!;
      expect(run.tool.driver).toMatchObject({ name: 'gate-audit', version: '1.2.3' });
      const ruleIds = run.tool.driver.rules.map((r) => r.id);
      expect(new Set(ruleIds).size).toBe(ruleIds.length);
      expect(ruleIds).toEqual(
        expect.arrayContaining([
          'gate-audit/ungated',
          'gate-audit/blocked',
          'gate-audit/remote',
          'gate-audit/custom-node',
          'gate-audit/sdk-mismatch',
        ]),
      );
      expect(run.results.map((r) => r.ruleId)).toEqual([
        'gate-audit/ungated',
        'gate-audit/ungated',
        'gate-audit/remote',
      ]);
      for (const result of run.results) expect(run.tool.driver.rules[result.ruleIndex]?.id).toBe(result.ruleId);
      const remote = run.results[2]!;
      expect(remote.locations[0]?.physicalLocation?.artifactLocation.uri).toBe('fixtures/graphs/remote-graph.ts');
      expect(remote.locations[0]?.logicalLocations[0]?.fullyQualifiedName).toBe('procurement/partner-agent');
      expect(remote.partialFingerprints['gateAuditNodePath/v1']).toBe(
        pathFingerprint(['procurement', 'partner-agent']),
      );
      const again = JSON.parse(RENDERERS.sarif(audit(buildRemoteGraph()), {})) as typeof sarif;
      expect(again.runs[0]!.results.map((r) => r.partialFingerprints)).toEqual(
        run.results.map((r) => r.partialFingerprints),
      );
    });

    it('sarif: a blocked node is a warning', () => {
      const sarif = JSON.parse(RENDERERS.sarif(audit(buildLateNodeGraph()), {})) as {
        runs: { results: { ruleId: string; level: string }[] }[];
      };
      expect(sarif.runs[0]!.results).toEqual([
        expect.objectContaining({ ruleId: 'gate-audit/blocked', level: 'warning' }),
      ]);
    });

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

  const agentNode = (
    path: string[],
    status: CoverageNode['status'],
    extra: Partial<CoverageNode> = {},
  ): CoverageNode => ({
    path,
    id: path.at(-1)!,
    kind: 'agent',
    status,
    reason: `is ${status}`,
    tools: [],
    toolsUnknownUntilInit: false,
    warnings: [],
    ...extra,
  });

  function reportOf(nodes: CoverageNode[], extra: Partial<CoverageReport> = {}): CoverageReport {
    return CoverageReportSchema.parse({
      schemaVersion: 2,
      mode: 'audit',
      root: { id: nodes[0]?.path[0] ?? 'root', kind: 'graph' },
      nodes,
      edges: [],
      summary: summarize(nodes),
      refusals: [],
      sources: [],
      ...extra,
    });
  }

  const POLICY_ID = 'f'.repeat(64);
  const gatedTeam = reportOf([
    agentNode(['team'], 'gated', { kind: 'graph', gate: { name: 'policy', id: POLICY_ID } }),
    agentNode(['team', 'writer'], 'gated', { gate: { name: 'policy', id: POLICY_ID } }),
    agentNode(['team', 'reviewer'], 'gated', { gate: { name: 'policy', id: 'e'.repeat(64) } }),
    agentNode(['team', 'local'], 'gated', { gate: { name: 'mine', id: 'gate-7', perProcess: true } }),
    agentNode(['team', 'partner'], 'accepted', {
      kind: 'remote',
      problem: 'remote',
      reason: 'accepted: the vendor gates it on their side',
      fix: 'gate it on its own server or remove it',
    }),
  ]);

  describe('when a summary could read as a contradiction', () => {
    it('an ungated orchestrator over a gated agent: the orchestrator is counted apart, one to fix', () => {
      const report = reportOf([agentNode(['g'], 'ungated', { kind: 'graph' }), agentNode(['g', 'a'], 'gated')]);
      const line = RENDERERS.text(report, {}).trimEnd().split('\n').at(-1);
      expect(line).toBe(
        'coverage 100% of 1 tool-running node (1 gated) · 1 orchestrator (1 ungated) · 2 nodes, 1 to fix',
      );
      expect(RENDERERS.markdown(report, {})).toContain('## gate-audit audit: `g` ✘ not fully gated: 1 to fix');
    });

    it('an attested 13th node: 13 of 13 covered, nothing to fix, never "12/13 gated"', () => {
      const report = reportOf([
        ...Array.from({ length: 12 }, (_, i) => agentNode([`a${i}`], 'gated')),
        agentNode(['custom'], 'attested', { kind: 'custom' }),
      ]);
      const text = RENDERERS.text(report, {});
      expect(text).toContain(
        'coverage 100% of 13 tool-running nodes (12 gated, 1 attested) · 13 nodes, nothing to fix',
      );
      expect(text).not.toMatch(/12\/13/);
      expect(RENDERERS.markdown(report, {})).toMatch(/✔ nothing to fix \(1 attested\)\n/);
    });

    it('a report whose summary disagrees with its nodes renders the nodes', () => {
      const honest = reportOf([agentNode(['g'], 'gated', { kind: 'graph' }), agentNode(['g', 'a'], 'ungated')]);
      const lying = { ...honest, summary: { ...honest.summary, ungated: 0, gated: 2, coverage: 1 } };
      for (const format of ['text', 'markdown', 'github'] as const) {
        expect(RENDERERS[format](lying, {})).toMatch(/coverage 0%(\*\*|25)? of 1 tool-running node \(1 ungated\)/i);
      }
    });
  });

  describe('when nodes carry gates or are accepted', () => {
    it('text: each gated row names its gate, the legend gives full ids, per-process ids and same-name gates', () => {
      const text = RENDERERS.text(gatedTeam, {});
      expect(text).toMatch(/^✔ {3}writer +agent +gated +is gated {2}gate: policy \[1\]$/m);
      expect(text).toMatch(/^✔ {3}reviewer .* gate: policy \[2\]$/m);
      expect(text).toContain(`  [1] policy  id ${POLICY_ID} · 2 nodes`);
      expect(text).toContain(
        `  [2] policy  id ${'e'.repeat(64)} · 1 node (same name as [1], another gate: names are not identities)`,
      );
      expect(text).toContain('  [3] mine  id gate-7 (per-process id: compared within this report only) · 1 node');
    });

    it('text: an accepted node keeps its glyph and reason and is counted apart, never in coverage', () => {
      const text = RENDERERS.text(gatedTeam, {});
      expect(text).toMatch(/^◌ {3}partner +remote +accepted +accepted: the vendor gates it on their side\n\n/m);
      expect(text.trimEnd().split('\n').at(-1)).toBe(
        'coverage 100% of 3 tool-running nodes (3 gated) · 1 accepted, not counted · 1 orchestrator (1 gated) · 5 nodes, nothing to fix',
      );
    });

    it('markdown: a gate column, a table of gates, the accepted row with its reason', () => {
      const md = RENDERERS.markdown(gatedTeam, {});
      expect(md).toMatch(/^## gate-audit audit: `team` ✔ nothing to fix \(1 accepted\)$/m);
      expect(md).toContain('| ✔ | `team › writer` | agent | gated | is gated | policy \\[1\\] |  |');
      expect(md).toContain(
        '| ◌ | `team › partner` | remote | accepted | accepted\\: the vendor gates it on their side |  |  |',
      );
      expect(md).toContain(`| \\[1\\] | policy | \`${POLICY_ID}\` | 2 |`);
      expect(md).toContain('| \\[3\\] | mine | `gate-7` (per\\-process id: compared within this report only) | 1 |');
    });

    it('sarif: gates in result and run properties, an accepted node as a suppressed note', () => {
      const sarif = JSON.parse(RENDERERS.sarif(gatedTeam, {})) as {
        runs: {
          properties?: { gates: { name: string; id: string; perProcess?: boolean; nodes: number }[] };
          results: {
            ruleId: string;
            level: string;
            suppressions?: { kind: string; justification: string }[];
            properties: Record<string, unknown>;
          }[];
        }[];
      };
      const run = sarif.runs[0]!;
      expect(run.properties?.gates).toEqual([
        { name: 'policy', id: POLICY_ID, nodes: 2 },
        { name: 'policy', id: 'e'.repeat(64), nodes: 1 },
        { name: 'mine', id: 'gate-7', perProcess: true, nodes: 1 },
      ]);
      expect(run.results).toEqual([
        expect.objectContaining({
          ruleId: 'gate-audit/remote',
          level: 'note',
          suppressions: [
            { kind: 'external', status: 'accepted', justification: 'accepted: the vendor gates it on their side' },
          ],
          properties: { status: 'accepted' },
        }),
      ]);
      const blocked = reportOf([
        agentNode(['g'], 'gated', { kind: 'graph' }),
        agentNode(['g', 'a'], 'blocked', { gate: { name: 'policy', id: POLICY_ID } }),
      ]);
      const result = (JSON.parse(RENDERERS.sarif(blocked, {})) as typeof sarif).runs[0]!.results[0]!;
      expect(result.properties).toEqual({ status: 'blocked', gate: { name: 'policy', id: POLICY_ID } });
    });

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

  describe('when --quiet is given', () => {
    it('text: only the nodes that are not gated, each with its whole path, then the summary of all', () => {
      const text = RENDERERS.text(mixed, { quiet: true });
      const rows = text.split('\n').filter((l) => /^[✔◇◌✘⊘■] /.test(l));
      expect(rows.map((r) => r.split(/ {2,}/)[0])).toEqual(['✘ pricing', '✘ pricing › publisher']);
      expect(text).toContain('(quiet: 3 gated nodes not shown)');
      expect(text).toContain('coverage 75% of 4 tool-running nodes (3 gated, 1 ungated)');
    });

    it('markdown: only the rows that are not gated, and says how many were left out', () => {
      const md = RENDERERS.markdown(mixed, { quiet: true });
      expect(md.split('\n').filter((l) => /^\| [✔◇◌✘⊘■] \|/.test(l))).toHaveLength(2);
      expect(md).toContain('3 gated nodes not shown \\(quiet\\)\\.');
    });
  });

  describe('when the report bundles several modules', () => {
    const bundle = reportOf(
      [
        agentNode(['src/a.graph.ts#graph', 'pricing'], 'ungated', { kind: 'graph' }),
        agentNode(['src/a.graph.ts#graph', 'pricing', 'writer'], 'gated'),
        agentNode(['src/b.ts#team', 'team'], 'gated', { kind: 'swarm' }),
        agentNode(['src/b.ts#team', 'team', 'v1.2'], 'ungated'),
      ],
      {
        root: { id: 'gate-audit', kind: 'bundle' },
        sources: [
          { module: 'src/a.graph.ts', export: 'graph', path: ['src/a.graph.ts#graph'], factory: false },
          { module: 'src/b.ts', export: 'team', path: ['src/b.ts#team'], factory: true },
        ],
      },
    );

    it('text: each root under a heading naming its module and export', () => {
      const text = RENDERERS.text(bundle, {});
      expect(text).toMatch(/── src\/a\.graph\.ts#graph\n✘ pricing/);
      expect(text).toMatch(/── src\/b\.ts#team \(factory: a new orchestrator per call\)\n✔ team/);
    });

    it('junit: one suite per module, class names without dots', () => {
      const xml = RENDERERS.junit(bundle, {});
      expect(xml).toContain('<testsuite name="src/a.graph.ts#graph" tests="2" failures="1" errors="0" skipped="0">');
      expect(xml).toContain('<testsuite name="src/b.ts#team" tests="2" failures="1" errors="0" skipped="0">');
      expect(xml).toContain('<testcase classname="gate-audit › team" name="v1.2" time="0">');
      const dotted = reportOf([agentNode(['app.v2'], 'gated', { kind: 'graph' }), agentNode(['app.v2', 'a'], 'gated')]);
      expect(RENDERERS.junit(dotted, {})).toContain('classname="gate-audit › app\u2024v2" name="a"');
    });

    it('markdown: lists the modules', () => {
      expect(RENDERERS.markdown(bundle, {})).toContain(
        'Modules:\n\n- `src/a.graph.ts#graph`\n- `src/b.ts#team` (factory: a new orchestrator per call)\n',
      );
    });
  });

  describe('when the format is github', () => {
    it('an error per node that fails the run, a warning per accepted node, a notice with the summary', () => {
      const report = {
        ...reportOf([...gatedTeam.nodes, agentNode(['team', 'rogue'], 'ungated', { fix: 'gate it, now' })]),
        sources: [{ module: 'src/team.ts', export: 'team', path: ['team'], factory: false }],
      };
      expect(RENDERERS.github(report, {}).split('\n')).toEqual([
        '::warning file=src/team.ts,title=gate-audit%3A accepted remote team › partner::team › partner is accepted: accepted: the vendor gates it on their side',
        '::error file=src/team.ts,title=gate-audit%3A ungated agent team › rogue::team › rogue is ungated: is ungated | fix: gate it, now',
        '::notice title=gate-audit audit%3A team::coverage 75%25 of 4 tool-running nodes (3 gated, 1 ungated) · 1 accepted, not counted · 1 orchestrator (1 gated) · 6 nodes, 1 to fix',
        '',
      ]);
    });

    it('with a minimum coverage, nodes that do not fail the run are warnings, and coverage under it is an error', () => {
      const out = RENDERERS.github(mixed, { exitRule: { minCoverage: 80 } });
      expect(out).toContain('::error title=gate-audit%3A ungated graph pricing::');
      expect(out).toContain('::warning title=gate-audit%3A ungated agent pricing › publisher::');
      expect(out).toContain(
        '::error title=gate-audit%3A coverage under the minimum::coverage 75%25 is under the minimum of 80%25',
      );
      expect(RENDERERS.github(mixed, { exitRule: { minCoverage: 70 } })).not.toContain('under the minimum');
    });

    it('escapes values as workflow commands require, after showing hidden characters', () => {
      const report = reportOf([
        agentNode(['g'], 'gated', { kind: 'graph' }),
        agentNode(['g', 'a,b:c%\u202e'], 'ungated', { reason: 'x\r\n::error::forged' }),
      ]);
      expect(RENDERERS.github(report, {})).toContain(
        '::error title=gate-audit%3A ungated agent g › a%2Cb%3Ac%25\\u202e::g › a,b:c%25\\u202e is ungated: x\\r\\n::error::forged\n',
      );
    });
  });
});
