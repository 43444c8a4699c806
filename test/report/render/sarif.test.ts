/** The SARIF renderer (`--format sarif`), through the map: rules, results, fingerprints, gates, accepted nodes. */
import { describe, expect, it } from 'vitest';
import { buildLateNodeGraph } from '../../../fixtures/graphs/late-node-graph.js';
import { buildRemoteGraph } from '../../../fixtures/graphs/remote-graph.js';
import { audit } from '../../../src/index.js';
import { RENDERERS } from '../../../src/report/render/index.js';
import { pathFingerprint } from '../../../src/report/render/sarif.js';
import { agentNode, gatedTeam, POLICY_ID, reportOf } from '../../helpers/reports.js';

describe('renderSarif (as RENDERERS.sarif)', () => {
  describe('when they render an audit report', () => {
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
  });

  describe('when nodes carry gates or are accepted', () => {
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
  });
});
