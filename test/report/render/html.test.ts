/**
 * The HTML report as text: its parts, its policy and its size. (What it does in a browser is in
 * test/report/render/html.browser.test.ts; its picture's allowlist in test/report/render/svg.test.ts.)
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../src/report/audit.js';
import { embeddedJson, PICTURE_NODE_LIMIT, renderHtml, renderHtmlPage } from '../../../src/report/render/html.js';
import { PAGE_SCRIPT, PAGE_STYLE } from '../../../src/report/render/html-page.js';
import { FORMAT_NAMES, PAGE_RENDERERS, renderFormat } from '../../../src/report/render/index.js';
import { type CoverageNode, type CoverageReport, CoverageReportSchema } from '../../../src/report/schema.js';
import { cli } from '../../helpers/cli.js';

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

function reportOf(count: number): CoverageReport {
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
  for (let i = 1; i < count; i++) {
    const ungated = i % 7 === 0;
    nodes.push({
      path: ['big', `agent-${i}`],
      id: `agent-${i}`,
      kind: 'agent',
      status: ungated ? 'ungated' : 'gated',
      reason: ungated ? 'no gate: its tools run unchecked' : 'GatePlugin installed by gate-audit',
      tools: ['read_file', 'web_search'],
      toolsUnknownUntilInit: false,
      warnings: [],
      ...(ungated
        ? { fix: 'call installMultiagent(root) at startup, or give the agent a GatePlugin' }
        : { gate: { name: 'policy', id: 'a'.repeat(64) } }),
    });
  }
  return CoverageReportSchema.parse({
    schemaVersion: 2,
    mode: 'audit',
    root: { id: 'big', kind: 'graph' },
    nodes,
    edges: nodes.slice(2).map((n, i) => ({ from: nodes[i + 1]!.path, to: n.path, kind: 'flow' })),
    summary: summarize(nodes),
    refusals: [],
    sources: [{ module: 'big.ts', export: 'graph', path: ['big'], factory: false }],
  });
}

describe('--format html', () => {
  describe('when the CLI lists its formats', () => {
    it('is a format of the CLI, rendered asynchronously', () => {
      expect(FORMAT_NAMES).toContain('html');
      expect(Object.keys(PAGE_RENDERERS)).toEqual(['html']);
    });
  });
  describe('when it writes the page', () => {
    it('allows by hash exactly its own style and script, and nothing else', () => {
      const html = renderHtml(reportOf(3));
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
      expect(csp).toBe(
        `default-src 'none'; style-src ${hash(PAGE_STYLE)}; script-src ${hash(PAGE_SCRIPT)}; base-uri 'none'; form-action 'none'`,
      );
      expect(html).toContain(`<style>${PAGE_STYLE}</style>`);
      expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`);
      for (const own of [PAGE_STYLE, PAGE_SCRIPT]) {
        expect(own).not.toMatch(/<\/(script|style)|<!--/i);
      }
      expect(html).not.toMatch(/\b(src|href)=/);
    });

    it('embeds the report as JSON that parses back to it, with no < in it', () => {
      const report = reportOf(3);
      const tricky = { ...report, root: { ...report.root, id: '</script><!--<script>\r\u0000' } };
      const json = embeddedJson(tricky);
      for (const raw of ['<', '>', '&', '\r', '\u0000']) expect(json).not.toContain(raw);
      expect(json).toContain('\\u003c/script\\u003e\\u003c!--');
      expect(JSON.parse(json)).toEqual(tricky);
    });
  });
  describe('when the report is large', () => {
    it('keeps the page for 1,000 nodes, picture included, under 2 MB', async () => {
      const html = await renderFormat('html', reportOf(1000), {});
      expect(html).toContain('<svg');
      expect(Buffer.byteLength(html)).toBeLessThan(2 * 1024 * 1024);
    });

    it('leaves the picture out, saying why, past its node limit', async () => {
      const html = await renderHtmlPage(reportOf(PICTURE_NODE_LIMIT + 1));
      expect(html).not.toContain('<svg');
      expect(html).toContain(`${PICTURE_NODE_LIMIT + 1} nodes is more than ${PICTURE_NODE_LIMIT}`);
    });
  });
  describe('when the CLI is asked for it', () => {
    it('--format html prints the page (the browser tests write it with --reporter html=<file>)', async () => {
      const run = await cli('fixtures/graphs/gated-app.ts', '--format', 'html');
      expect(run.code).toBe(0);
      expect(run.out.startsWith('<!doctype html>')).toBe(true);
      expect(run.out).toContain('<svg');
    });
  });
});
