/** The Markdown renderer (`--format markdown`), through the map: the verdict, tables, gates, --quiet, bundles. */
import { describe, expect, it } from 'vitest';
import { RENDERERS } from '../../../src/report/render/index.js';
import { bundle, gatedTeam, mixed, POLICY_ID } from '../../helpers/reports.js';

describe('renderMarkdown (as RENDERERS.markdown)', () => {
  describe('when they render an audit report', () => {
    it('markdown: a heading with the verdict, a table with not-gated nodes first', () => {
      const md = RENDERERS.markdown(mixed, {});
      expect(md).toMatch(/^## gate-audit audit: `pricing` ✘ not fully gated: 2 to fix\n/);
      const rows = md.split('\n').filter((l) => l.startsWith('| ✘') || l.startsWith('| ✔'));
      expect(rows).toHaveLength(5);
      expect(rows[0]).toContain('`pricing`');
      expect(rows[1]).toContain('`pricing › publisher`');
      expect(rows.slice(2).every((r) => r.startsWith('| ✔'))).toBe(true);
    });
  });

  describe('when nodes carry gates or are accepted', () => {
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
  });

  describe('when --quiet is given', () => {
    it('markdown: only the rows that are not gated, and says how many were left out', () => {
      const md = RENDERERS.markdown(mixed, { quiet: true });
      expect(md.split('\n').filter((l) => /^\| [✔◇◌✘⊘■] \|/.test(l))).toHaveLength(2);
      expect(md).toContain('3 gated nodes not shown \\(quiet\\)\\.');
    });
  });

  describe('when the report bundles several modules', () => {
    it('markdown: lists the modules', () => {
      expect(RENDERERS.markdown(bundle, {})).toContain(
        'Modules:\n\n- `src/a.graph.ts#graph`\n- `src/b.ts#team` (factory: a new orchestrator per call)\n',
      );
    });
  });
});
