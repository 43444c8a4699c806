/** What each key does to the view's state (`reduce`), and how a chunk of input becomes key presses (`keyPresses`). */
import { describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { audit } from '../../src/index.js';
import { type InkKey, type KeyPress, keyPresses, reduce, type ViewState } from '../../src/tui/keys.js';
import { buildTree, initiallyExpanded, visibleRows } from '../../src/tui/tree.js';

const NO_KEY: InkKey = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  return: false,
  escape: false,
  backspace: false,
  delete: false,
  ctrl: false,
  meta: false,
};

const report = audit(buildMixedGraph());
const forest = buildTree(report);
const start: ViewState = {
  expanded: initiallyExpanded(forest, report.nodes.length),
  selectedKey: undefined,
  notGatedOnly: false,
  filter: '',
  editing: false,
  help: false,
  quit: false,
};
const rows = visibleRows(forest, start.expanded, { notGatedOnly: false, text: '' });

/** The state after each press, in order. */
const after = (state: ViewState, ...presses: KeyPress[]): ViewState =>
  presses.reduce((s, press) => reduce(s, press, forest), state);
const chars = (text: string): KeyPress[] => [...text].map((char) => ({ char }));

describe('keyPresses', () => {
  describe('when ink reports a named key', () => {
    it('is that one key, whatever the input', () => {
      expect(keyPresses('', { ...NO_KEY, upArrow: true })).toEqual([{ name: 'up' }]);
      expect(keyPresses('', { ...NO_KEY, downArrow: true })).toEqual([{ name: 'down' }]);
      expect(keyPresses('', { ...NO_KEY, leftArrow: true })).toEqual([{ name: 'left' }]);
      expect(keyPresses('', { ...NO_KEY, rightArrow: true })).toEqual([{ name: 'right' }]);
      expect(keyPresses('', { ...NO_KEY, escape: true })).toEqual([{ name: 'escape' }]);
      expect(keyPresses('', { ...NO_KEY, delete: true })).toEqual([{ name: 'backspace' }]);
      expect(keyPresses('\r', { ...NO_KEY, return: true })).toEqual([{ name: 'return' }]);
    });
  });

  describe('when a chunk holds several characters', () => {
    it('is one press per character, a CR or LF among them a return', () => {
      expect(keyPresses('jj/a\rk', NO_KEY)).toEqual([
        { char: 'j' },
        { char: 'j' },
        { char: '/' },
        { char: 'a' },
        { name: 'return' },
        { char: 'k' },
      ]);
    });
  });

  describe('when ctrl or meta is held', () => {
    it('is no press at all', () => {
      expect(keyPresses('c', { ...NO_KEY, ctrl: true })).toEqual([]);
      expect(keyPresses('x', { ...NO_KEY, meta: true })).toEqual([]);
    });
  });
});

describe('reduce', () => {
  describe('when moving through the rows', () => {
    it('selects down and up with j/k and the arrows, the first and last with g/G, never past either end', () => {
      expect(rows.length).toBeGreaterThan(2);
      expect(after(start, { char: 'j' }).selectedKey).toBe(rows[1]!.key);
      expect(after(start, { name: 'down' }, { name: 'down' }, { name: 'up' }).selectedKey).toBe(rows[1]!.key);
      expect(after(start, { char: 'k' }).selectedKey).toBe(rows[0]!.key);
      expect(after(start, { char: 'G' }).selectedKey).toBe(rows.at(-1)!.key);
      expect(after(start, { char: 'G' }, { char: 'j' }).selectedKey).toBe(rows.at(-1)!.key);
      expect(after(start, { char: 'G' }, { char: 'g' }).selectedKey).toBe(rows[0]!.key);
    });
  });

  describe('when opening and closing a node', () => {
    it('collapses an open node with space or left, and opens it again with return or right', () => {
      const root = rows[0]!;
      expect(root.hasChildren && root.expanded).toBe(true);
      const closed = after(start, { char: ' ' });
      expect(closed.expanded.has(root.key)).toBe(false);
      expect(closed.selectedKey).toBe(root.key);
      expect(after(closed, { name: 'return' }).expanded.has(root.key)).toBe(true);
      expect(after(start, { name: 'left' }).expanded.has(root.key)).toBe(false);
      expect(after(closed, { name: 'right' }).expanded.has(root.key)).toBe(true);
    });
  });

  describe('when typing a filter', () => {
    it('takes characters after /, return keeps the filter, escape clears it, backspace drops one', () => {
      const typing = after(start, ...chars('/pubx'), { name: 'backspace' });
      expect(typing).toMatchObject({ editing: true, filter: 'pub' });
      expect(after(typing, { char: 'q' })).toMatchObject({ filter: 'pubq', quit: false });
      expect(after(typing, { name: 'return' })).toMatchObject({ editing: false, filter: 'pub' });
      expect(after(typing, { name: 'escape' })).toMatchObject({ editing: false, filter: '', quit: false });
    });
  });

  describe('when toggling the not-gated view, the help or quitting', () => {
    it('u toggles, ? opens the help that the next key only closes, q and escape quit', () => {
      expect(after(start, { char: 'u' }).notGatedOnly).toBe(true);
      expect(after(start, { char: 'u' }, { char: 'u' }).notGatedOnly).toBe(false);
      const help = after(start, { char: '?' });
      expect(help.help).toBe(true);
      expect(after(help, { char: 'q' })).toMatchObject({ help: false, quit: false });
      expect(after(start, { char: 'q' }).quit).toBe(true);
      expect(after(start, { name: 'escape' }).quit).toBe(true);
      expect(after(start, { char: 'z' })).toBe(start);
    });
  });
});
