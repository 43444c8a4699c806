/**
 * The HTML report in a real browser (Debian's Chromium, driven by playwright-core): opened from its file
 * with every request recorded, it shows every node with its status, filters, selects, draws its picture,
 * asks for nothing but its own file, and shows hostile data as text without running any of it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../../src/report/audit.js';
import { DEFAULT_FIX } from '../../../src/report/render/glyphs.js';
import { renderHtmlPage } from '../../../src/report/render/html.js';
import { noteLines } from '../../../src/report/render/notes.js';
import { type CoverageNode, type CoverageReport, CoverageReportSchema } from '../../../src/report/schema.js';
import { hasHiddenCharacters, visible, visiblePath } from '../../../src/escape.js';
import { launchBrowser, openFile } from '../../helpers/browser.js';
import { cli } from '../../helpers/cli.js';
import { ATTACKS } from '../../helpers/hostile-report.js';

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-html-'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** What the page says about one node element. */
interface RowState {
  path: string;
  status: string;
  context: boolean;
  shown: boolean;
  name: string;
  selected: boolean;
}

/** What page-side code uses of a DOM element (this project's types have no DOM). */
interface PageElement {
  readonly localName: string;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  checkVisibility(): boolean;
  querySelector(selector: string): PageElement | null;
}
/** What page-side code uses of the page's globals. */
interface PageGlobals {
  readonly document: { activeElement: PageElement | null; querySelectorAll(selector: string): Iterable<PageElement> };
  readonly __pwned?: unknown;
}

async function rowsOf(page: Page): Promise<RowState[]> {
  return await page.locator('[data-path]').evaluateAll((elements) =>
    (elements as unknown as PageElement[]).map((e) => ({
      path: e.getAttribute('data-path') ?? '',
      status: e.getAttribute('data-status') ?? '',
      context: e.hasAttribute('data-context'),
      shown: e.checkVisibility(),
      name: e.querySelector('.name')?.textContent ?? '',
      selected: e.getAttribute('aria-selected') === 'true',
    })),
  );
}

const sorted = (items: readonly string[]): string[] => [...items].sort();
const keyOf = (node: CoverageNode): string => `${JSON.stringify(node.path)} ${node.status}`;

/** The page's fields of the detail panel, by `data-field`. */
async function detailOf(page: Page): Promise<Record<string, string>> {
  const pairs = await page
    .locator('#detail [data-field]')
    .evaluateAll((elements) =>
      (elements as unknown as PageElement[]).map((e): [string, string] => [
        e.getAttribute('data-field') ?? '',
        e.textContent ?? '',
      ]),
    );
  return Object.fromEntries(pairs);
}

/** Checks the not-gated filter's contract: every node that is not gated shows; a gated one shows only as context. */
function expectNotGatedFilter(rows: readonly RowState[]): void {
  for (const row of rows) {
    if (row.status !== 'gated') expect(row.shown, `${row.path} is not gated and must show`).toBe(true);
    else if (row.shown) expect(row.context, `${row.path} is gated and shown without data-context`).toBe(true);
    if (row.context) {
      const path = JSON.parse(row.path) as string[];
      const below = rows.filter((r) => {
        const p = JSON.parse(r.path) as string[];
        return r.status !== 'gated' && p.length > path.length && path.every((s, i) => p[i] === s);
      });
      expect(below.length, `${row.path} is context for no node`).toBeGreaterThan(0);
    }
  }
}

describe('the HTML report, in Chromium', () => {
  describe('when it shows a fixture (mixed-graph)', () => {
    let report: CoverageReport;
    let opened: Awaited<ReturnType<typeof openFile>>;

    beforeAll(async () => {
      const html = join(dir, 'mixed.html');
      const json = join(dir, 'mixed.json');
      const run = await cli(
        'fixtures/graphs/mixed-graph.ts',
        '--reporter',
        `html=${html}`,
        '--reporter',
        `json=${json}`,
      );
      expect(run.code).toBe(1);
      expect(run.err).toContain('wrote html report to');
      report = CoverageReportSchema.parse(JSON.parse(readFileSync(json, 'utf8')));
      opened = await openFile(browser, html);
    }, 60_000);

    it('shows every node of the report, with its status', async () => {
      const rows = await rowsOf(opened.page);
      expect(rows).toHaveLength(report.nodes.length);
      expect(sorted(rows.map((r) => `${r.path} ${r.status}`))).toEqual(sorted(report.nodes.map(keyOf)));
      expect(rows.every((r) => r.shown)).toBe(true);
      expect(await opened.page.locator('[data-count="ungated"]').textContent()).toContain('2 ungated');
    });

    it('under "not gated" hides every gated node not kept for context, and shows every other', async () => {
      const { page } = opened;
      await page.locator('[data-filter="not-gated"]').click();
      const rows = await rowsOf(page);
      expectNotGatedFilter(rows);
      expect(rows.filter((r) => r.shown).map((r) => JSON.parse(r.path) as string[])).toEqual([
        ['pricing'],
        ['pricing', 'publisher'],
      ]);
      await page.locator('[data-filter="not-gated"]').click();
      expect((await rowsOf(page)).every((r) => r.shown && !r.context)).toBe(true);
    });

    it('selecting a node shows its path, status, reason, gate, tools and fix', async () => {
      const { page } = opened;
      const publisher = report.nodes.find((n) => n.id === 'publisher')!;
      await page.locator(`[data-path='${JSON.stringify(publisher.path)}']`).click();
      const detail = await detailOf(page);
      expect(detail.fix).toBe(visible(publisher.fix ?? DEFAULT_FIX[publisher.status]));
      expect(detail.fix).toContain('installMultiagent');
      expect(detail.path).toBe(visiblePath(publisher.path));
      expect(detail.status).toBe('✘ ungated');
      expect(detail.reason).toBe(visible(publisher.reason));
      expect(detail.tools).toBe(publisher.tools.join(', '));
      const collector = report.nodes.find((n) => n.id === 'collector')!;
      await page.locator(`[data-path='${JSON.stringify(collector.path)}']`).click();
      expect((await detailOf(page)).gate).toContain(collector.gate!.name);
    });

    it('draws the picture, and a click on a node in it selects that node in the tree', async () => {
      const { page } = opened;
      expect(await page.locator('#picture svg').count()).toBe(1);
      // One box per agent, one cluster for the Graph.
      expect(await page.locator('#picture svg g.node').count()).toBe(report.nodes.length - 1);
      expect(await page.locator('#picture svg g.cluster').count()).toBe(1);
      const index = report.nodes.findIndex((n) => n.id === 'analyst');
      await page.locator(`#picture svg g.node[data-index="${index}"]`).click();
      const selected = (await rowsOf(page)).filter((r) => r.selected);
      expect(selected.map((r) => r.path)).toEqual([JSON.stringify(report.nodes[index]!.path)]);
      expect((await detailOf(page)).path).toBe(visiblePath(report.nodes[index]!.path));
      // The picture's colours are the dot format's: the ungated agent is drawn red.
      const publisher = report.nodes.findIndex((n) => n.id === 'publisher');
      expect(
        await page.locator(`#picture svg g.node[data-index="${publisher}"] path`).first().getAttribute('fill'),
      ).toBe('#ffd9d9');
    });

    it('is usable from the keyboard: arrows move, / filters by path, Esc clears it', async () => {
      const { page } = opened;
      await page.locator('[data-path=\'["pricing"]\']').click();
      await page.keyboard.press('ArrowDown');
      let selected = (await rowsOf(page)).filter((r) => r.selected);
      expect(selected.map((r) => r.path)).toEqual(['["pricing","collector"]']);
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).document.activeElement?.getAttribute('data-path'),
        ),
      ).toBe('["pricing","collector"]');
      await page.keyboard.press('ArrowDown');
      selected = (await rowsOf(page)).filter((r) => r.selected);
      expect(selected.map((r) => r.path)).toEqual(['["pricing","analyst"]']);
      await page.keyboard.press('/');
      await page.keyboard.type('PUB');
      const rows = await rowsOf(page);
      expect(rows.filter((r) => r.shown).map((r) => [r.path, r.context])).toEqual([
        ['["pricing"]', true],
        ['["pricing","publisher"]', false],
      ]);
      await page.keyboard.press('Escape');
      expect((await rowsOf(page)).every((r) => r.shown)).toBe(true);
      await page.locator('#tree').focus();
      await page.keyboard.press('n');
      expect(await page.locator('[data-filter="not-gated"]').getAttribute('aria-pressed')).toBe('true');
      expectNotGatedFilter(await rowsOf(page));
      await page.keyboard.press('n');
      // ← folds the selected orchestrator, → unfolds it; End and Home go to the last and first visible rows.
      await page.locator('[data-path=\'["pricing"]\']').click();
      await page.keyboard.press('ArrowLeft');
      expect((await rowsOf(page)).filter((r) => r.shown).map((r) => r.path)).toEqual(['["pricing"]']);
      expect(await page.locator('[data-path=\'["pricing"]\']').getAttribute('aria-expanded')).toBe('false');
      await page.keyboard.press('ArrowRight');
      expect((await rowsOf(page)).every((r) => r.shown)).toBe(true);
      await page.keyboard.press('End');
      expect((await rowsOf(page)).filter((r) => r.selected).map((r) => r.path)).toEqual(['["pricing","auditor"]']);
      await page.keyboard.press('Home');
      expect((await rowsOf(page)).filter((r) => r.selected).map((r) => r.path)).toEqual(['["pricing"]']);
    });

    it('lists what the run did not audit, as the text report does', async () => {
      expect(report.notes?.length).toBeGreaterThan(0);
      expect(await opened.page.locator('#notes').isVisible()).toBe(true);
      expect(await opened.page.locator('#notes-list li').allTextContents()).toEqual(noteLines(report));
    });

    it('asked for nothing but its own file, and nothing went wrong in it (no CSP violation)', async () => {
      expect(opened.problems).toEqual([]);
      expect([...new Set(opened.requests)]).toEqual([opened.url]);
      const csp = await opened.page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'; script-src 'sha256-[\w+/=]+';/);
    });
  });

  describe('when the report bundles several modules', () => {
    it('shows each root under its module', async () => {
      const html = join(dir, 'bundle.html');
      const json = join(dir, 'bundle.json');
      const run = await cli(
        'fixtures/graphs/mixed-graph.ts',
        'fixtures/graphs/support-swarm.ts',
        '--reporter',
        `html=${html}`,
        '--reporter',
        `json=${json}`,
      );
      expect(run.err).toContain('wrote html report to');
      const report = CoverageReportSchema.parse(JSON.parse(readFileSync(json, 'utf8')));
      expect(report.root.kind).toBe('bundle');
      const { page, problems } = await openFile(browser, html);
      const items = await page
        .locator('#tree > *')
        .evaluateAll((elements) =>
          (elements as unknown as PageElement[]).map((e) =>
            e.hasAttribute('data-module')
              ? `module ${e.textContent ?? ''}`
              : `${e.getAttribute('aria-level') ?? ''} ${e.getAttribute('data-path') ?? ''}`,
          ),
        );
      const modules = items.filter((i) => i.startsWith('module '));
      expect(modules).toEqual(report.sources.map((s) => `module ${s.module}#${s.export}`));
      // Each root (level 1) comes after the heading of its own module.
      for (const source of report.sources) {
        const heading = items.indexOf(`module ${source.module}#${source.export}`);
        const next = items.findIndex((item, i) => i > heading && item.startsWith('module '));
        const roots = items
          .slice(heading + 1, next === -1 ? undefined : next)
          .filter((i) => i.startsWith('1 '))
          .map((i) => JSON.parse(i.slice(2)) as string[]);
        expect(roots.length).toBeGreaterThan(0);
        for (const root of roots) expect(root.slice(0, source.path.length)).toEqual(source.path);
      }
      expect(items.filter((i) => !i.startsWith('module '))).toHaveLength(report.nodes.length);
      // The detail of a root names its module.
      const root = report.nodes.find((n) => n.path.length === 2)!;
      await page.locator(`[data-path='${JSON.stringify(root.path)}']`).click();
      const source = report.sources.find((s) => s.path[0] === root.path[0])!;
      expect((await detailOf(page)).module).toBe(
        `${source.module}#${source.export}${source.factory ? ' (factory: a new orchestrator per call)' : ''}`,
      );
      expect(problems).toEqual([]);
      await page.context().close();
    });
  });

  /** A node of a hand-made report. */
  function node(
    path: string[],
    status: CoverageNode['status'],
    text: string,
    kind: CoverageNode['kind'],
  ): CoverageNode {
    return {
      path,
      id: path.at(-1)!,
      kind,
      status,
      reason: `reason ${text}`,
      fix: `fix ${text}`,
      tools: [text],
      toolsUnknownUntilInit: false,
      warnings: [text],
      gate: { name: text, id: text },
    };
  }

  describe('when the data is hostile', () => {
    const payloads = [
      ...ATTACKS.filter((a) => a !== ''),
      '<script>window.__pwned = 1</script>',
      '</script><script>window.__pwned = 2</script>',
      '<!--<script>window.__pwned = 3</script>',
      '<img src=x onerror="window.__pwned = 4">',
      '<svg onload="window.__pwned = 5"></svg>',
      '"><img src=x onerror=window.__pwned=6>',
      '\'><a href="javascript:window.__pwned=7">click</a>',
      'javascript:window.__pwned=8',
      '[x](javascript:window.__pwned=9)',
      '&lt;script&gt;window.__pwned=10&lt;/script&gt;',
      '&#x202e;evil',
      'ab\u202ecd\u2066ef\u200bgh',
      '\u0001\u0002\u001b[31mred',
    ];
    const kinds = ['agent', 'remote', 'custom', 'agent-tool'] as const;
    const statuses = ['gated', 'ungated', 'ungateable', 'accepted', 'blocked', 'attested'] as const;
    const nodes: CoverageNode[] = [node(['<script>alert(1)</script>'], 'gated', '</script>', 'graph')];
    payloads.forEach((payload, i) => {
      const id = `${payload}#${i}`;
      nodes.push(node([nodes[0]!.id, id], statuses[i % statuses.length]!, payload, kinds[i % kinds.length]!));
      if (i % 5 === 0) nodes.push(node([nodes[0]!.id, id, `${payload}/tool`], 'gated', payload, 'agent-tool'));
    });
    const report: CoverageReport = CoverageReportSchema.parse({
      schemaVersion: 2,
      mode: 'audit',
      root: { id: '</script><!--', kind: 'graph' },
      nodes,
      edges: [],
      summary: summarize(nodes),
      refusals: [],
      sources: [],
      notes: [
        {
          kind: 'unaudited-export',
          module: '<img src=x onerror="window.__pwned=11">',
          export: '\u202e',
          message: '</script>',
        },
        { kind: 'gate-mismatch', module: 'm', path: ['"a"', '\u200b'], message: '<!--', fix: 'javascript:x' },
      ],
    });
    let opened: Awaited<ReturnType<typeof openFile>>;

    beforeAll(async () => {
      const file = join(dir, 'hostile.html');
      writeFileSync(file, await renderHtmlPage(report));
      opened = await openFile(browser, file);
    }, 60_000);

    it('has exactly one element per node, each with its own path and status, and its id as text', async () => {
      const rows = await rowsOf(opened.page);
      expect(rows).toHaveLength(report.nodes.length);
      expect(sorted(rows.map((r) => `${r.path} ${r.status}`))).toEqual(sorted(report.nodes.map(keyOf)));
      expect(sorted(rows.map((r) => r.name))).toEqual(sorted(report.nodes.map((n) => visible(n.id))));
      // The picture has one box per node too, and the markup only the page's own elements.
      expect(await opened.page.locator('#picture svg g.node, #picture svg g.cluster').count()).toBe(
        report.nodes.length,
      );
      const tags = await opened.page.evaluate(() => [
        ...new Set([...(globalThis as unknown as PageGlobals).document.querySelectorAll('*')].map((e) => e.localName)),
      ]);
      expect(
        tags.filter((t) => ['img', 'a', 'iframe', 'object', 'embed', 'foreignObject', 'image'].includes(t)),
      ).toEqual([]);
      expect(await opened.page.locator('script').count()).toBe(2);
    });

    it('runs nothing from data: no script, handler, dialog or link from any id, before or after clicks', async () => {
      const { page } = opened;
      const count = report.nodes.length;
      for (let i = 0; i < count; i += 3) await page.locator('[data-path]').nth(i).click();
      await page.locator('[data-filter="not-gated"]').click();
      expectNotGatedFilter(await rowsOf(page));
      await page.locator('#path-filter').fill('javascript:');
      await page.locator('#path-filter').fill('');
      await page.locator('[data-filter="not-gated"]').click();
      const shapes = page.locator('#picture svg g.node');
      for (let i = 0; i < Math.min(10, await shapes.count()); i++) await shapes.nth(i).click({ force: true });
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
      expect(opened.problems).toEqual([]);
      expect([...new Set(opened.requests)]).toEqual([opened.url]);
    });

    it('lists its notes as text', async () => {
      expect(await opened.page.locator('#notes-list li').allTextContents()).toEqual(noteLines(report));
    });

    it('shows bidi, zero-width and control characters visibly escaped, everywhere on the page', async () => {
      const { page } = opened;
      const text = await page.locator('body').innerText();
      const bad = text.split(/\n|\t/).filter((line) => hasHiddenCharacters(line));
      expect(bad).toEqual([]);
      const bidi = report.nodes.find((n) => n.id.startsWith('ab\u202ecd'))!;
      await page.locator(`[data-path='${JSON.stringify(bidi.path)}']`).click();
      const detail = await detailOf(page);
      expect(detail.path).toContain('ab\\u202ecd\\u2066ef\\u200bgh');
      expect(detail.fix).toBe(visible(bidi.fix!));
      // An entity in an id is text: it neither reorders (in the tree) nor decodes (in the picture).
      const entity = report.nodes.findIndex((n) => n.id.startsWith('&#x202e;evil'));
      expect(await page.locator(`#picture svg g[data-index="${entity}"] text`).first().textContent()).toContain(
        '&#x202e;evil',
      );
    });
  });

  describe('when the report has 10,000 nodes', () => {
    it('opens with every node in the page and filters', async () => {
      const nodes: CoverageNode[] = [node(['big'], 'gated', 'r', 'graph')];
      for (let i = 0; i < 9_999; i++) {
        const team = `team-${Math.floor(i / 100)}`;
        if (i % 100 === 0) nodes.push(node(['big', team], 'gated', 'r', 'swarm'));
        else nodes.push(node(['big', team, `agent-${i}`], i % 7 === 0 ? 'ungated' : 'gated', 'r', 'agent'));
      }
      const report = CoverageReportSchema.parse({
        schemaVersion: 2,
        mode: 'audit',
        root: { id: 'big', kind: 'graph' },
        nodes,
        edges: [],
        summary: summarize(nodes),
        refusals: [],
        sources: [],
      });
      expect(report.nodes).toHaveLength(10_000);
      const file = join(dir, 'big.html');
      writeFileSync(file, await renderHtmlPage(report));
      const { page, problems } = await openFile(browser, file);
      expect(await page.locator('[data-path]').count()).toBe(10_000);
      await page.locator('[data-filter="not-gated"]').click();
      const rows = await rowsOf(page);
      expectNotGatedFilter(rows);
      expect(rows.filter((r) => r.shown && !r.context)).toHaveLength(nodes.filter((n) => n.status !== 'gated').length);
      await page.locator('#path-filter').fill('agent-4242');
      expect((await rowsOf(page)).filter((r) => r.shown).map((r) => r.path)).toEqual([
        '["big"]',
        '["big","team-42"]',
        '["big","team-42","agent-4242"]',
      ]);
      expect(problems).toEqual([]);
      await page.context().close();
    }, 120_000);
  });
});
