/** The GitHub Actions renderer (`--format github`), through the map: annotations per node, the summary notice. */
import { describe, expect, it } from 'vitest';
import { RENDERERS } from '../../../src/report/render/index.js';
import { agentNode, gatedTeam, mixed, reportOf } from '../../helpers/reports.js';

describe('renderGithub (as RENDERERS.github)', () => {
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
