import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { buildLateNodeGraph } from '../../fixtures/graphs/late-node-graph.js';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { buildSupportSwarm } from '../../fixtures/graphs/support-swarm.js';
import { audit, type CoverageNode, type CoverageReport } from '../../src/index.js';
import { summarize } from '../../src/report/audit.js';
import { CoverageApp } from '../../src/tui/CoverageApp.js';

type Rendered = ReturnType<typeof render>;

const plain = (app: Rendered): string => stripVTControlCharacters(app.lastFrame() ?? '');

/** Polls the frame until `expected` holds (no sleeps; ink renders asynchronously after input). */
async function waitFor(
  app: Rendered,
  expected: (frame: string) => boolean,
  what = 'the expected frame',
): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const frame = plain(app);
    if (expected(frame)) return frame;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}; last frame:\n${plain(app)}`);
}

/** Sends keys one chunk at a time, each after the previous one was rendered. */
async function press(app: Rendered, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    const before = app.frames.length;
    app.stdin.write(key);
    for (let i = 0; i < 200 && app.frames.length === before; i++) await new Promise((resolve) => setImmediate(resolve));
  }
}

const selectedLine = (frame: string): string | undefined => frame.split('\n').find((l) => l.startsWith('>'));

const mixed = (): CoverageReport => audit(buildMixedGraph());

describe('CoverageApp', () => {
  describe('when it first renders a report', () => {
    it("counts the run's notes in the header with the first one, within the height it was given", () => {
      const report: CoverageReport = {
        ...mixed(),
        notes: [
          { kind: 'unaudited-export', module: 'app.ts', export: 'build', message: 'was not called' },
          { kind: 'skipped-module', module: 'other.ts', message: 'no orchestrator' },
        ],
      };
      const app = render(<CoverageApp report={report} color={false} width={140} height={24} />);
      const frame = plain(app);
      expect(frame.split('\n')[3]).toBe(
        'notes: 1 export not audited · 1 module skipped: not audited: app.ts#build: was not called (+1 more)',
      );
      expect(frame.split('\n').length).toBeLessThanOrEqual(24);
      expect(plain(render(<CoverageApp report={mixed()} color={false} width={140} height={24} />))).not.toContain(
        'notes:',
      );
    });

    it('shows the summary, the tree and the detail of the first node to fix', () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      expect(plain(app)).toMatchInlineSnapshot(`
      "gate-audit audit · pricing (graph)
      ███████████████░░░░░ 75% coverage of 4 tool-running nodes · 2 to fix
      tool-running ✔ 3 gated  ✘ 1 ungated · orchestrators ✘ 1 ungated
      ────────────────────────────────────────────────────────────────────────────────────────────────────
      >✘ ▾ pricing     graph      ungated     no node guard: nodes added or swapped later run unchecked
       ✔     collector agent      gated       GatePlugin installs the gate at the first run
       ✔     analyst   agent      gated       GatePlugin installs the gate at the first run
       ✘     publisher agent      ungated     runs its tools without a gate
       ✔     auditor   agent      gated       GatePlugin installs the gate at the first run
      ─── 1/5 ────────────────────────────────────────────────────────────────────────────────────────────
      ✘ pricing — graph, ungated
      path     pricing
      reason   no node guard: nodes added or swapped later run unchecked
      tools    -
      fix      call installMultiagent(root) at startup
      ↑↓ jk move · enter expand · u not gated · / filter · ? help · q quit"
    `);
      app.unmount();
    });
  });

  describe('when keys are pressed', () => {
    it('moves with j/k and the arrows, and the detail pane follows', async () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      expect(selectedLine(plain(app))).toContain('pricing');
      await press(app, 'k', 'j');
      await waitFor(app, (f) => selectedLine(f)?.includes('collector') === true, 'collector selected');
      await press(app, '\u001B[B');
      const frame = await waitFor(app, (f) => selectedLine(f)?.includes('analyst') === true, 'analyst selected');
      expect(frame).toContain('path     pricing › analyst');
      await press(app, 'G');
      await waitFor(app, (f) => selectedLine(f)?.includes('auditor') === true, 'last node selected');
      await press(app, 'g');
      await waitFor(app, (f) => selectedLine(f)?.includes('pricing') === true, 'first node selected');
      app.unmount();
    });

    it('collapses and expands a node with enter and space', async () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      await press(app, 'g', '\r');
      let frame = await waitFor(app, (f) => !f.includes('collector'), 'collapsed tree');
      expect(frame).toContain('▸ pricing');
      await press(app, ' ');
      frame = await waitFor(app, (f) => f.includes('collector'), 'expanded tree');
      expect(frame).toContain('▾ pricing');
      app.unmount();
    });

    it('u shows only the nodes that are not gated, and toggles back', async () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      await press(app, 'u');
      const frame = await waitFor(app, (f) => f.includes('not gated only'));
      const rows = frame.split('\n').filter((l) => /^[> ][✔✘⊘■] /.test(l));
      expect(rows).toHaveLength(2);
      expect(rows[0]).toContain('▾ pricing');
      expect(rows[1]).toContain('publisher');
      await press(app, 'u');
      await waitFor(app, (f) => f.includes('collector') && !f.includes('not gated only'));
      app.unmount();
    });

    it('/ filters by path text; enter keeps the filter, esc while typing clears it', async () => {
      const app = render(<CoverageApp report={audit(buildSupportSwarm())} color={false} width={100} height={24} />);
      await press(app, '/', 'r', 'e', 'f');
      let frame = await waitFor(app, (f) => f.includes('filter: ref▏'));
      expect(frame).not.toContain('triage');
      expect(frame).toContain('refund_checker');
      await press(app, '\r');
      await waitFor(app, (f) => f.includes('filter: ref ') && !f.includes('▏'));
      await press(app, '/', '\u001B');
      frame = await waitFor(app, (f) => !f.includes('filter:') && f.includes('triage'));
      expect(frame).toContain('billing');
      app.unmount();
    });

    it('takes several keys arriving in one chunk as separate presses', async () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      app.stdin.write('gjj');
      await waitFor(app, (f) => selectedLine(f)?.includes('analyst') === true);
      app.unmount();
    });

    it('? shows the keys, any key closes the help', async () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      await press(app, '?');
      const frame = await waitFor(app, (f) => f.includes('press any key to close'));
      expect(frame).toContain('only nodes that are not gated');
      await press(app, 'x');
      await waitFor(app, (f) => !f.includes('press any key to close') && f.includes('publisher'));
      app.unmount();
    });
  });

  describe('when the selected node has warnings and tools', () => {
    it('shows warnings, tools and the fix of the selected node', async () => {
      const app = render(<CoverageApp report={audit(buildLateNodeGraph())} color={false} width={100} height={24} />);
      const frame = await waitFor(app, (f) => f.includes('■ drafter — agent, blocked'));
      expect(frame).toContain('tools    write_file');
      expect(frame).toContain('fix      call installMultiagent(root) again so it is gated');
      app.unmount();
    });
  });

  describe('when the terminal is narrow or wide', () => {
    it('fits a 40-column terminal: long ids end with an ellipsis, no line is wider than 40', () => {
      const report = mixed();
      const long: CoverageReport = {
        ...report,
        nodes: report.nodes.map((n) =>
          n.id === 'publisher' ? { ...n, id: 'publisher-with-a-very-long-identifier-indeed' } : n,
        ),
      };
      const app = render(<CoverageApp report={long} color={false} width={40} height={24} />);
      const frame = plain(app);
      expect(Math.max(...frame.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(40);
      expect(frame).toMatch(/ publisher-with-a-\S*… +ungated/);
      expect(frame).toMatchInlineSnapshot(`
      "gate-audit audit · pricing (graph)
      ████████░░ 75% coverage of 4 tool-runni…
      tool-running ✔ 3 gated  ✘ 1 ungated · o…
      ────────────────────────────────────────
      >✘ ▾ pricing                 ungated
       ✔     collector             gated
       ✔     analyst               gated
       ✘     publisher-with-a-ver… ungated
       ✔     auditor               gated
      ─── 1/5 ────────────────────────────────
      ✘ pricing — graph, ungated
      path     pricing
      reason   no node guard: nodes added or
               swapped later run unchecked
      tools    -
      fix      call installMultiagent(root) at
                startup
      ↑↓ jk move · enter expand · u not gated…"
    `);
      app.unmount();
    });

    it('uses the room of a wide terminal for the kind and reason columns', () => {
      const app = render(<CoverageApp report={mixed()} color={false} width={140} height={24} />);
      expect(plain(app)).toMatch(/publisher +agent +ungated +runs its tools without a gate/);
      app.unmount();
    });
  });

  describe('when colour is on or off', () => {
    it('uses colour, and none at all under NO_COLOR, with the glyphs readable either way', () => {
      const colored = render(<CoverageApp report={mixed()} color={true} width={100} height={24} />);
      expect(colored.lastFrame()).toContain('\u001B[');
      colored.unmount();
      const bare = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
      expect(bare.lastFrame()).not.toContain('\u001B[');
      expect(bare.lastFrame()).toMatch(/✘ {5}publisher/);
      bare.unmount();
    });
  });

  describe('when the report is large', () => {
    it('renders only the visible window of a 5,000-node report, and reaches its end', async () => {
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
      for (let i = 0; i < 4999; i++) {
        nodes.push({
          path: ['big', `agent-${i}`],
          id: `agent-${i}`,
          kind: 'agent',
          status: i === 2500 ? 'ungated' : 'gated',
          reason: 'r',
          tools: [],
          toolsUnknownUntilInit: false,
          warnings: [],
        });
      }
      const report: CoverageReport = {
        ...mixed(),
        root: { id: 'big', kind: 'graph' },
        nodes,
        edges: [],
        summary: summarize(nodes),
        refusals: [],
      };
      const app = render(<CoverageApp report={report} color={false} width={100} height={30} />);
      const rows = (f: string): string[] => f.split('\n').filter((l) => /^[> ][✔✘⊘■] /.test(l));
      const first = await waitFor(
        app,
        (f) => selectedLine(f)?.includes('agent-2500') === true,
        'the ungated node selected',
      );
      expect(rows(first).length).toBeLessThanOrEqual(30);
      expect(first).toContain('─── 2502/5000 ');
      expect(first).not.toContain('agent-0 ');
      await press(app, 'G');
      const last = await waitFor(app, (f) => f.includes('─── 5000/5000 '));
      expect(selectedLine(last)).toContain('agent-4998');
      expect(rows(last).length).toBeLessThanOrEqual(30);
      app.unmount();
    });
  });

  describe('when a quit key is pressed', () => {
    for (const [name, key] of [
      ['q', 'q'],
      ['esc', '\u001B'],
    ] as const) {
      it(`quits on ${name}: later keys change nothing`, async () => {
        const app = render(<CoverageApp report={mixed()} color={false} width={100} height={24} />);
        expect(selectedLine(plain(app))).toContain('pricing');
        await press(app, key);
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        app.stdin.write('j');
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        // Had the view not quit, 'j' would have selected the collector in a later frame.
        const frames = app.frames.map((f) => stripVTControlCharacters(f));
        expect(frames.some((f) => selectedLine(f)?.includes('collector') === true)).toBe(false);
        app.unmount();
      });
    }
  });
});
