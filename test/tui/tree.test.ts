/** The view's tree: the forest of a report, the rows a filter leaves visible, the window kept around the selection. */
import { describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { audit } from '../../src/index.js';
import { buildTree, initiallyExpanded, truncate, visibleRows, windowStart } from '../../src/tui/tree.js';

const report = audit(buildMixedGraph());
const forest = buildTree(report);
const all = initiallyExpanded(forest, report.nodes.length);

describe('buildTree and visibleRows', () => {
  describe('when the tree is small and nothing filters it', () => {
    it('shows every node once, each child right under its parent, all open', () => {
      const rows = visibleRows(forest, all, { notGatedOnly: false, text: '' });
      expect(rows.map((r) => r.node)).toHaveLength(report.nodes.length);
      expect(new Set(rows.map((r) => r.key)).size).toBe(report.nodes.length);
      expect(rows[0]!.depth).toBe(0);
      expect(rows.filter((r) => r.hasChildren).every((r) => r.expanded)).toBe(true);
    });
  });

  describe('when a node is closed', () => {
    it('hides its descendants', () => {
      const rows = visibleRows(forest, new Set(), { notGatedOnly: false, text: '' });
      expect(rows).toHaveLength(forest.length);
    });
  });

  describe('when only the nodes that are not gated are asked for', () => {
    it('keeps them and their ancestors, opened, even when closed', () => {
      const rows = visibleRows(forest, new Set(), { notGatedOnly: true, text: '' });
      const notGated = report.nodes.filter((n) => n.status !== 'gated');
      expect(notGated.length).toBeGreaterThan(0);
      for (const node of notGated) expect(rows.map((r) => r.node)).toContain(node);
      expect(rows.length).toBeLessThan(report.nodes.length);
      expect(rows.filter((r) => r.node.status === 'gated').every((r) => r.hasChildren)).toBe(true);
    });
  });

  describe('when a text filter is typed', () => {
    it('matches the path text whatever its case, and keeps the ancestors', () => {
      const rows = visibleRows(forest, all, { notGatedOnly: false, text: 'PUBLISHER' });
      expect(rows.map((r) => r.node.id)).toContain('publisher');
      expect(rows.at(-1)!.node.id).toBe('publisher');
      expect(visibleRows(forest, all, { notGatedOnly: false, text: 'no such node' })).toEqual([]);
    });
  });
});

describe('windowStart', () => {
  describe('when every row fits', () => {
    it('starts at the first row', () => {
      expect(windowStart(7, 10, 10, 3)).toBe(0);
    });
  });

  describe('when the selection leaves the window', () => {
    it('moves the window just enough to show it, and keeps it otherwise', () => {
      expect(windowStart(5, 10, 100, 0)).toBe(0);
      expect(windowStart(12, 10, 100, 0)).toBe(3);
      expect(windowStart(2, 10, 100, 5)).toBe(2);
      expect(windowStart(99, 10, 100, 95)).toBe(90);
    });
  });
});

describe('truncate', () => {
  describe('when the text is wider than the room', () => {
    it('cuts it to the width with an ellipsis, counting characters rather than code units', () => {
      expect(truncate('publisher', 5)).toBe('publ…');
      expect(truncate('🚀🚀🚀', 2)).toBe('🚀…');
      expect(truncate('publisher', 1)).toBe('…');
      expect(truncate('publisher', 0)).toBe('');
    });
  });

  describe('when the text fits', () => {
    it('leaves it alone', () => {
      expect(truncate('pub', 3)).toBe('pub');
    });
  });
});
