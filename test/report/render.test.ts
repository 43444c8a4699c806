import { describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { buildLateNodeGraph } from '../../fixtures/graphs/late-node-graph.js';
import { buildRemoteGraph } from '../../fixtures/graphs/remote-graph.js';
import { audit, CoverageReportSchema } from '../../src/index.js';
import { isFormatName, RENDERERS } from '../../src/report/render/index.js';
import { pathFingerprint } from '../../src/report/render/sarif.js';

const mixed = audit(buildMixedGraph());

describe('renderers', () => {
  it('are registered by name', () => {
    expect(Object.keys(RENDERERS)).toEqual(['text', 'json', 'markdown', 'sarif', 'junit', 'mermaid', 'dot', 'github']);
    expect(isFormatName('sarif')).toBe(true);
    expect(isFormatName('toString')).toBe(false);
  });

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
      sources: [{ module: 'fixtures/graphs/remote-graph.ts', export: 'graph', path: ['procurement'], factory: false }],
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
    expect(run.results.map((r) => r.ruleId)).toEqual(['gate-audit/ungated', 'gate-audit/ungated', 'gate-audit/remote']);
    for (const result of run.results) expect(run.tool.driver.rules[result.ruleIndex]?.id).toBe(result.ruleId);
    const remote = run.results[2]!;
    expect(remote.locations[0]?.physicalLocation?.artifactLocation.uri).toBe('fixtures/graphs/remote-graph.ts');
    expect(remote.locations[0]?.logicalLocations[0]?.fullyQualifiedName).toBe('procurement/partner-agent');
    expect(remote.partialFingerprints['gateAuditNodePath/v1']).toBe(pathFingerprint(['procurement', 'partner-agent']));
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
