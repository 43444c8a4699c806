/** The text renderer (`--format text`), through the map: rows, gates and their legend, --quiet, bundles. */
import { describe, expect, it } from 'vitest';
import { RENDERERS } from '../../../src/report/render/index.js';
import { bundle, gatedTeam, mixed, POLICY_ID } from '../../helpers/reports.js';

describe('renderText (as RENDERERS.text)', () => {
  describe('when they render an audit report', () => {
    it('text: one row per node with a glyph readable without colour, and the summary', () => {
      const text = RENDERERS.text(mixed, {});
      expect(text).not.toContain('\u001b');
      expect(text.split('\n').filter((l) => /^[✔✘⊘■] /.test(l))).toHaveLength(mixed.nodes.length);
      expect(text).toContain(
        'coverage 75% of 4 tool-running nodes (3 gated, 1 ungated) · 1 orchestrator (1 ungated) · 5 nodes, 2 to fix',
      );
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
  });

  describe('when --quiet is given', () => {
    it('text: only the nodes that are not gated, each with its whole path, then the summary of all', () => {
      const text = RENDERERS.text(mixed, { quiet: true });
      const rows = text.split('\n').filter((l) => /^[✔◇◌✘⊘■] /.test(l));
      expect(rows.map((r) => r.split(/ {2,}/)[0])).toEqual(['✘ pricing', '✘ pricing › publisher']);
      expect(text).toContain('(quiet: 3 gated nodes not shown)');
      expect(text).toContain('coverage 75% of 4 tool-running nodes (3 gated, 1 ungated)');
    });
  });

  describe('when the report bundles several modules', () => {
    it('text: each root under a heading naming its module and export', () => {
      const text = RENDERERS.text(bundle, {});
      expect(text).toMatch(/── src\/a\.graph\.ts#graph\n✘ pricing/);
      expect(text).toMatch(/── src\/b\.ts#team \(factory: a new orchestrator per call\)\n✔ team/);
    });
  });
});
