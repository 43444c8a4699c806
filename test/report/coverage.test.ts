/**
 * The neutral report builder (`src/report/coverage.ts`) on plain places and a reader that answers from a table: no
 * framework is loaded, so each rule of the builder is seen on its own (rows, `same object as`, edges, a declaring
 * node's worst child, flow cycles, gate names two gates share, refusals).
 *
 * Stryker (`GATE_AUDIT_MUTATION_TESTS=report`, `--force`): 14 mutants survive, all equivalent: the flow-cycle
 * search's skips of nodes it visited (speed only: an open node is checked first); a fix, a framework or a sameAs
 * lookup read as undefined where the schema and JSON drop an undefined key; the root's parent key and the parent-row
 * check (the root has no parent, every other parent has its row); the declared-children filter (only contains edges
 * exist when it runs); which rows are searched for flow cycles (a search starts from contains children, which an agent
 * or a sameAs row has none of); a default for absent flows.
 */
import { describe, expect, it } from 'vitest';
import {
  buildCoverage,
  type CoverageEntry,
  type CoverageInput,
  type CoverageReader,
  conflictRefusal,
  type FlowEdge,
} from '../../src/report/coverage.js';
import type { Verdict } from '../../src/report/gate-verdict.js';
import type { CoverageNode, CoverageReport } from '../../src/report/schema.js';

interface Place extends CoverageEntry {
  readonly kind: CoverageNode['kind'];
  readonly verdict: Verdict;
  readonly declares?: boolean;
  readonly tools?: string[];
  readonly warnings?: string[];
  readonly toolsUnknown?: boolean;
}

const generator = { name: 'gate-audit' as const, version: '0.0.0', sdk: 'test@1', sdkTested: true };

function place(path: string, kind: CoverageNode['kind'], verdict: Verdict, more: Partial<Place> = {}): Place {
  const segments = path.split('/');
  return { path: segments, id: segments.at(-1)!, kind, verdict, ...more };
}

const gated = (gate?: { name: string; id: string }): Verdict => ({
  status: 'gated',
  reason: 'gate installed',
  ...(gate === undefined ? {} : { gate }),
});
const status = (s: Verdict['status'], reason: string, fix?: string): Verdict => ({
  status: s,
  reason,
  ...(fix === undefined ? {} : { fix }),
});

const seen: string[] = [];
const reader: CoverageReader<Place> = {
  kind: (entry) => entry.kind,
  verdict: (entry, rowAt) => {
    // Every place before this one is a row already.
    seen.push(`${entry.path.join('/')}:${entry.path.length > 1 ? String(rowAt(entry.path.slice(0, -1))?.id) : '-'}`);
    return entry.verdict;
  },
  details: (entry) => ({
    tools: entry.tools ?? [],
    toolsUnknownUntilInit: entry.toolsUnknown === true,
    warnings: entry.warnings ?? [],
  }),
  declares: (entry) => entry.declares === true,
  declaredReason: (worst) => `node that runs its declared ${worst.kind} "${worst.id}"`,
};

function build(entries: Place[], more: Partial<CoverageInput<Place>> = {}, with_ = reader): CoverageReport {
  return buildCoverage({ mode: 'audit', entries, rootKind: 'graph', refusals: [], generator, ...more }, with_);
}

const rowOf = (report: CoverageReport, path: string): CoverageNode =>
  report.nodes.find((n) => n.path.join('/') === path)!;

describe('buildCoverage', () => {
  describe('when it walks the places', () => {
    it('makes one row per place in walk order, each judged after the places before it', () => {
      seen.length = 0;
      const report = build([
        place('g', 'graph', gated()),
        place('g/a', 'agent', gated(), { tools: ['rm'], warnings: ['w'] }),
        place('g/s', 'swarm', gated()),
        place('g/s/b', 'agent', status('ungated', 'no gate', 'install it')),
      ]);
      expect(report.nodes.map((n) => [n.path.join('/'), n.kind, n.status])).toEqual([
        ['g', 'graph', 'gated'],
        ['g/a', 'agent', 'gated'],
        ['g/s', 'swarm', 'gated'],
        ['g/s/b', 'agent', 'ungated'],
      ]);
      expect(seen).toEqual(['g:-', 'g/a:g', 'g/s:g', 'g/s/b:s']);
      expect(rowOf(report, 'g/a')).toMatchObject({ tools: ['rm'], warnings: ['w'], toolsUnknownUntilInit: false });
      expect(rowOf(report, 'g/s/b').fix).toBe('install it');
      expect(report.root).toEqual({ id: 'g', kind: 'graph' });
      expect(report.mode).toBe('audit');
      expect(report.generator).toEqual(generator);
      expect(report.summary).toMatchObject({ gated: 3, ungated: 1 });
      expect(report.nodes.every((n) => n.framework === undefined)).toBe(true);
      expect(report.edges).toEqual([
        { from: ['g'], to: ['g', 'a'], kind: 'contains' },
        { from: ['g'], to: ['g', 's'], kind: 'contains' },
        { from: ['g', 's'], to: ['g', 's', 'b'], kind: 'contains' },
      ]);
    });

    it("names a place met again after its first, and gives it none of the first's tools or warnings", () => {
      const report = build([
        place('g', 'graph', gated()),
        place('g/a', 'agent', gated(), { tools: ['rm'], warnings: ['w'], toolsUnknown: true }),
        place('g/s', 'swarm', gated()),
        place('g/s/a', 'agent', status('blocked', 'cancelled by the guard'), {
          sameAs: ['g', 'a'],
          tools: ['rm'],
          warnings: ['w'],
          toolsUnknown: true,
        }),
      ]);
      expect(rowOf(report, 'g/s/a')).toMatchObject({
        status: 'blocked',
        reason: 'same object as g › a: cancelled by the guard',
        sameAs: ['g', 'a'],
        tools: [],
        warnings: [],
        toolsUnknownUntilInit: false,
      });
      expect(rowOf(report, 'g/a').toolsUnknownUntilInit).toBe(true);
    });
  });
  describe('when the reader names a framework', () => {
    it('tags rows with the framework its reader names, and warns on an id with hidden characters first', () => {
      const report = build(
        [place('g', 'graph', gated()), place('g/a\u202e', 'agent', gated(), { warnings: ['w'] })],
        {},
        {
          ...reader,
          framework: 'langgraph',
        },
      );
      expect(report.nodes.map((n) => n.framework)).toEqual(['langgraph', 'langgraph']);
      expect(rowOf(report, 'g/a\u202e').warnings).toEqual([
        'its id holds control, bidi or invisible characters (shown escaped): check where the id comes from',
        'w',
      ]);
    });
  });
  describe('when given the refusals of a plan', () => {
    it('keeps the refusals of a plan, in order', () => {
      const refusals = [
        { path: ['g', 'r'], kind: 'remote' as const, reason: 'is remote', fix: 'accept it' },
        conflictRefusal({ path: ['g', 'a'], existing: 'x', requested: 'y' }, 'agent'),
      ];
      expect(build([place('g', 'graph', gated())], { mode: 'plan', refusals }).refusals).toEqual([
        { path: ['g', 'r'], kind: 'remote', reason: 'is remote', fix: 'accept it' },
        {
          path: ['g', 'a'],
          kind: 'gate-conflict',
          reason: 'carries gate "x", not "y"',
          fix: 'install every agent with one gate (pass the same gate object), or remove the other gate first',
        },
      ]);
    });

    it('says a conflict between two gates of one name is another gate object', () => {
      expect(conflictRefusal({ path: ['g'], existing: 'p', requested: 'p' }, 'tool node')).toEqual({
        path: ['g'],
        kind: 'gate-conflict',
        reason: 'carries another gate also named "p" (a different gate object)',
        fix: 'install every tool node with one gate (pass the same gate object), or remove the other gate first',
      });
    });
  });
  describe('when a node declares what it runs', () => {
    const attested = status('attested', 'declares');
    const tree = (...children: Place[]): Place[] => [
      place('g', 'graph', gated()),
      place('g/n', 'custom', attested, { declares: true }),
      ...children,
    ];

    it('answers with its worst declared child: ungated before ungateable before blocked before accepted', () => {
      const children = [
        place('g/n/acc', 'agent', status('accepted', 'accepted: remote')),
        place('g/n/blk', 'agent', status('blocked', 'cancelled', 'gate it')),
        place('g/n/unx', 'remote', status('ungateable', 'is remote', 'accept it')),
        place('g/n/ung', 'agent', status('ungated', 'no gate', 'install it')),
      ];
      const orders: [Place[], string, string | undefined][] = [
        [children, 'ungated: no gate', 'install it'],
        [children.slice(0, 3), 'ungateable: is remote', 'accept it'],
        [children.slice(0, 2), 'blocked: cancelled', 'gate it'],
        [children.slice(0, 1), 'accepted: accepted: remote', undefined],
      ];
      for (const [list, reason, fix] of orders) {
        const row = rowOf(build(tree(...list)), 'g/n');
        const worst = list.find((c) => `${c.verdict.status}: ${c.verdict.reason}` === reason)!;
        expect(row.status).toBe(worst.verdict.status);
        expect(row.reason).toBe(`node that runs its declared ${worst.kind} "${worst.id}", which is ${reason}`);
        expect(row.fix).toBe(fix);
      }
    });

    it('stays attested when every declared child is covered, and reads only its own children', () => {
      const row = rowOf(
        build(
          tree(
            place('g/n/a', 'agent', gated()),
            place('g/n/s', 'swarm', gated()),
            place('g/n/s/x', 'agent', status('ungated', 'no')),
          ),
        ),
        'g/n',
      );
      expect(row).toMatchObject({ status: 'attested', reason: 'declares' });
    });

    it('is left as judged when it is not attested, has a problem, or declares nothing', () => {
      const ungatedChild = place('g/n/a', 'agent', status('ungated', 'no gate'));
      const notAttested = [
        place('g', 'graph', gated()),
        place('g/n', 'custom', status('gated', 'fine'), { declares: true }),
        ungatedChild,
      ];
      expect(rowOf(build(notAttested), 'g/n').status).toBe('gated');
      const withProblem = [
        place('g', 'graph', gated()),
        place('g/n', 'custom', attested, {
          declares: true,
          problem: { kind: 'custom-node', reason: 'opaque', fix: 'declare it' },
        }),
        ungatedChild,
      ];
      expect(rowOf(build(withProblem), 'g/n').status).toBe('attested');
      const notDeclaring = [place('g', 'graph', gated()), place('g/n', 'custom', attested), ungatedChild];
      expect(rowOf(build(notDeclaring), 'g/n').status).toBe('attested');
    });

    it('answers for a declared node that itself answers for its own (deepest first)', () => {
      const report = build(
        tree(
          place('g/n/m', 'custom', attested, { declares: true }),
          place('g/n/m/a', 'agent', status('ungated', 'no gate', 'install it')),
        ),
      );
      expect(rowOf(report, 'g/n/m').status).toBe('ungated');
      expect(rowOf(report, 'g/n').status).toBe('ungated');
      expect(rowOf(report, 'g/n').reason).toMatch(
        /^node that runs its declared custom "m", which is ungated: node that/,
      );
    });
  });

  describe('when rows are joined by flow edges', () => {
    const nodes = (root: 'graph' | 'swarm', sameAs?: string[]): Place[] => [
      place('g', 'graph', gated()),
      place('g/x', root, gated(), sameAs === undefined ? {} : { sameAs }),
      place('g/x/a', 'agent', gated()),
      place('g/x/b', 'agent', gated()),
      place('g/x/c', 'agent', gated()),
    ];
    const flow = (from: string, to: string, conditional = false): FlowEdge => ({
      from: from.split('/'),
      to: to.split('/'),
      conditional,
    });

    it('joins rows that exist, marking a conditional edge, and drops an edge to a place with no row', () => {
      const report = build(nodes('graph'), {
        flows: [
          flow('g/x/a', 'g/x/b', true),
          flow('g/x/b', 'g/x/c'),
          flow('g/x/c', 'g/x/gone'),
          flow('g/gone', 'g/x/a'),
        ],
      });
      expect(report.edges.filter((e) => e.kind === 'flow')).toEqual([
        { from: ['g', 'x', 'a'], to: ['g', 'x', 'b'], kind: 'flow', conditional: true },
        { from: ['g', 'x', 'b'], to: ['g', 'x', 'c'], kind: 'flow' },
      ]);
      expect(rowOf(report, 'g/x').warnings).toEqual([]);
    });

    it('warns on a graph or swarm whose edges form a cycle, naming the loop', () => {
      for (const kind of ['graph', 'swarm'] as const) {
        const report = build(nodes(kind), {
          flows: [flow('g/x/a', 'g/x/b'), flow('g/x/b', 'g/x/c'), flow('g/x/c', 'g/x/b')],
        });
        expect(rowOf(report, 'g/x').warnings).toEqual([
          'its edges form a cycle (b → c → b): nodes can run more than once, each time under the guard',
        ]);
        expect(rowOf(report, 'g').warnings).toEqual([]);
      }
    });

    it('finds a cycle that does not start at the first node, and a node looping on itself', () => {
      const late = build(nodes('graph'), { flows: [flow('g/x/a', 'g/x/b'), flow('g/x/c', 'g/x/c')] });
      expect(rowOf(late, 'g/x').warnings).toEqual([
        'its edges form a cycle (c → c): nodes can run more than once, each time under the guard',
      ]);
      const diamond = build(nodes('graph'), {
        flows: [flow('g/x/a', 'g/x/b'), flow('g/x/a', 'g/x/c'), flow('g/x/b', 'g/x/c')],
      });
      expect(rowOf(diamond, 'g/x').warnings).toEqual([]);
    });

    it("leaves a nested orchestrator that is a node of its parent's cycle to its parent, and a cycle row alike", () => {
      const report = build(
        [
          place('g', 'graph', gated()),
          place('g/a', 'agent', gated()),
          place('g/x', 'swarm', gated()),
          place('g/x/i', 'agent', gated()),
          place('g/y', 'graph', status('ungateable', 'contains itself')),
        ],
        { flows: [flow('g/a', 'g/x'), flow('g/x', 'g/a'), flow('g/x', 'g/y'), flow('g/y', 'g/x')] },
      );
      expect(rowOf(report, 'g').warnings).toEqual([
        'its edges form a cycle (x → y → x): nodes can run more than once, each time under the guard',
      ]);
      expect(rowOf(report, 'g/x').warnings).toEqual([]);
      expect(rowOf(report, 'g/y').warnings).toEqual([]);
    });

    it('does not warn on a place met again (its first place does)', () => {
      const report = build(nodes('graph', ['g', 'y']), { flows: [flow('g/x/a', 'g/x/a')] });
      expect(rowOf(report, 'g/x').warnings).toEqual([]);
    });
  });

  describe('when gates share a name', () => {
    it('warns on every row whose gate shares its name with another gate, naming both ids', () => {
      const report = build([
        place('g', 'graph', gated({ name: 'p', id: '1' })),
        place('g/a', 'agent', gated({ name: 'p', id: '1' })),
        place('g/b', 'agent', gated({ name: 'p', id: '2' })),
        place('g/c', 'agent', gated({ name: 'q', id: '3' })),
        place('g/d', 'agent', status('ungated', 'no gate')),
      ]);
      const clash =
        'gate name "p" is used by 2 different gates in this report (ids 1, 2): names are not identities; give each gate its own name';
      expect(report.nodes.map((n) => n.warnings)).toEqual([[clash], [clash], [clash], [], []]);
    });

    it('says nothing when one gate is named at every row', () => {
      const report = build([
        place('g', 'graph', gated({ name: 'p', id: '1' })),
        place('g/a', 'agent', gated({ name: 'p', id: '1' })),
      ]);
      expect(report.nodes.flatMap((n) => n.warnings)).toEqual([]);
    });
  });
});
