/**
 * Renderers take time linear in the number of nodes. Counted, not timed: every array element a renderer
 * touches through an array method, a spread or an iteration is counted while it runs, and the count for
 * 50,000 siblings must be about twice the count for 25,000 (a child list copied per child makes it four
 * times). Wall and CPU time are for `npm run bench`, never for a test.
 */
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../src/report/audit.js';
import { RENDERERS } from '../../../src/report/render/index.js';
import type { CoverageEdge, CoverageNode, CoverageReport } from '../../../src/report/schema.js';
import { buildTree, visibleRows } from '../../../src/tui/tree.js';

type AnyArray = unknown[];
type Method = (this: AnyArray, ...args: unknown[]) => unknown;

const COUNTED = [
  'slice',
  'concat',
  'map',
  'filter',
  'forEach',
  'join',
  'indexOf',
  'lastIndexOf',
  'includes',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'some',
  'every',
  'reduce',
  'reduceRight',
  'flat',
  'flatMap',
  'reverse',
  'fill',
  'splice',
  'sort',
  'toSorted',
  'toReversed',
  'copyWithin',
] as const;

/**
 * Runs `work` and returns how many array elements it touched. Restores `Array.prototype` afterwards. Past
 * `budget` elements it stops the work with an error, so a quadratic renderer fails fast instead of hanging.
 */
function countArrayWork(work: () => void, budget = 100_000_000): number {
  let touched = 0;
  let stopped = false;
  const over = (): void => {
    // Once only: building the error's stack trace uses array methods too.
    if (touched <= budget || stopped) return;
    stopped = true;
    throw new Error(`more than ${budget} array elements touched: not linear`);
  };
  const proto = Array.prototype as unknown as Record<string | symbol, Method>;
  const saved = new Map<string | symbol, Method>();
  const wrap = (name: string | symbol, count: (self: AnyArray, args: unknown[]) => number): void => {
    const original = proto[name];
    if (original === undefined) return;
    saved.set(name, original);
    proto[name] = function (this: AnyArray, ...args: unknown[]): unknown {
      touched += count(this, args);
      over();
      return original.apply(this, args);
    };
  };
  // The counters use plain loops: they run while the array methods they would call are wrapped.
  const lengths = (self: AnyArray, args: unknown[]): number => {
    let n = Array.isArray(self) ? self.length : 0;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (Array.isArray(arg)) n += arg.length;
    }
    return n;
  };
  for (let i = 0; i < COUNTED.length; i++) wrap(COUNTED[i] as string, lengths);
  wrap('push', (_, args) => args.length);
  wrap('unshift', (self) => (Array.isArray(self) ? self.length : 0));
  const iterate = proto[Symbol.iterator]!;
  saved.set(Symbol.iterator, iterate);
  // Spreads and for-of loops go through the iterator once it is replaced: count each step.
  proto[Symbol.iterator] = function (this: AnyArray): Iterator<unknown> {
    const inner = iterate.call(this) as Iterator<unknown>;
    return {
      next: () => {
        touched += 1;
        over();
        return inner.next();
      },
      [Symbol.iterator]() {
        return this;
      },
    } as Iterator<unknown>;
  };
  try {
    work();
  } finally {
    for (const [name, original] of saved) proto[name] = original;
  }
  return touched;
}

/** A Graph with `siblings` agents in a chain of flow edges, every 100th with an agent used as a tool. */
function siblingsReport(siblings: number): CoverageReport {
  const nodes: CoverageNode[] = [
    {
      path: ['big'],
      id: 'big',
      kind: 'graph',
      status: 'gated',
      reason: 'node guard installed',
      tools: [],
      toolsUnknownUntilInit: false,
      warnings: [],
    },
  ];
  const edges: CoverageEdge[] = [];
  for (let i = 0; i < siblings; i++) {
    nodes.push({
      path: ['big', `agent-${i}`],
      id: `agent-${i}`,
      kind: 'agent',
      status: i % 7 === 0 ? 'ungated' : 'gated',
      reason: 'r',
      tools: ['read_file'],
      toolsUnknownUntilInit: false,
      warnings: [],
      ...(i % 7 === 0 ? { fix: 'f' } : { gate: { name: 'policy', id: 'a'.repeat(64) } }),
    });
    if (i % 100 === 0)
      nodes.push({
        path: ['big', `agent-${i}`, 'helper'],
        id: 'helper',
        kind: 'agent-tool',
        status: 'gated',
        reason: 'r',
        tools: [],
        toolsUnknownUntilInit: false,
        warnings: [],
      });
    if (i > 0) edges.push({ from: ['big', `agent-${i - 1}`], to: ['big', `agent-${i}`], kind: 'flow' });
  }
  return {
    schemaVersion: 2,
    mode: 'audit',
    root: { id: 'big', kind: 'graph' },
    nodes,
    edges,
    summary: summarize(nodes),
    refusals: [],
    sources: [{ module: 'big.ts', export: 'graph', path: ['big'], factory: false }],
  };
}

describe('renderers (counted array work)', () => {
  const small = siblingsReport(25_000);
  const large = siblingsReport(50_000);
  describe('when the sibling count doubles', () => {
    for (const format of ['mermaid', 'dot'] as const) {
      it(`--format ${format}: 25,000 → 50,000 siblings`, () => {
        const render = RENDERERS[format];
        const a = countArrayWork(() => void render(small, {}), 50 * small.nodes.length);
        const b = countArrayWork(() => void render(large, {}), 50 * large.nodes.length);
        expect(a).toBeGreaterThan(25_000);
        expect(b / a).toBeLessThan(2.2);
      });
    }

    const tenK = siblingsReport(10_000);
    const twentyK = siblingsReport(20_000);
    for (const format of ['text', 'markdown', 'junit', 'github', 'sarif'] as const) {
      it(`--format ${format}: 10,000 → 20,000 siblings`, () => {
        const render = RENDERERS[format];
        const a = countArrayWork(() => void render(tenK, {}), 50 * tenK.nodes.length);
        const b = countArrayWork(() => void render(twentyK, {}), 50 * twentyK.nodes.length);
        expect(a).toBeGreaterThan(10_000);
        expect(b / a).toBeLessThan(2.2);
      });
    }

    it('the interactive view builds its tree and rows', () => {
      const work = (report: CoverageReport): number =>
        countArrayWork(() => {
          const forest = buildTree(report);
          visibleRows(forest, new Set([forest[0]!.key]), { notGatedOnly: false, text: '' });
          visibleRows(forest, new Set(), { notGatedOnly: true, text: 'agent' });
        });
      const a = work(tenK);
      expect(a).toBeGreaterThan(10_000);
      expect(work(twentyK) / a).toBeLessThan(2.2);
    });
  });
  describe('when a child list is copied per child (the counter itself)', () => {
    it('the counter sees it (the old grouping)', () => {
      const quadratic = (n: number): number =>
        countArrayWork(() => {
          const children = new Map<string, number[]>();
          for (let i = 0; i < n; i++) children.set('p', [...(children.get('p') ?? []), i]);
        });
      expect(quadratic(2_000) / quadratic(1_000)).toBeGreaterThan(3.5);
    });
  });
});
