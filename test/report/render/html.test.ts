/**
 * The HTML report as text: its parts, its policy, its picture's allowlist and its size. (What it does in a
 * browser is in test/report/render/html.browser.test.ts.)
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../src/report/audit.js';
import { embeddedJson, PICTURE_NODE_LIMIT, renderHtml, renderHtmlPage } from '../../../src/report/render/html.js';
import { PAGE_SCRIPT, PAGE_STYLE } from '../../../src/report/render/html-page.js';
import { FORMAT_NAMES, PAGE_RENDERERS, renderFormat } from '../../../src/report/render/index.js';
import { cleanSvg, PictureError } from '../../../src/report/render/svg.js';
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
  it('is a format of the CLI, rendered asynchronously', () => {
    expect(FORMAT_NAMES).toContain('html');
    expect(Object.keys(PAGE_RENDERERS)).toEqual(['html']);
  });

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

  it('--format html prints the page (the browser tests write it with --reporter html=<file>)', async () => {
    const run = await cli('fixtures/graphs/gated-app.ts', '--format', 'html');
    expect(run.code).toBe(0);
    expect(run.out.startsWith('<!doctype html>')).toBe(true);
    expect(run.out).toContain('<svg');
  });
});

describe('the picture allowlist (cleanSvg)', () => {
  const wrap = (inner: string): string =>
    `<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- made by graphviz -->\n<svg width="10pt" height="10pt" viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg">${inner}</svg>\n`;

  it('keeps the drawing: groups, shapes, text, with their drawing attributes', () => {
    const svg = cleanSvg(
      wrap(
        '<g id="node1" class="node"><title>n1</title><polygon fill="#d7f5dd" stroke="#2e7d32" points="0,0 1,1"/><text text-anchor="middle" x="1" y="2" font-family="Helvetica,sans-Serif" font-size="11.00">✔ a&amp;b</text></g>',
      ),
    );
    expect(svg).toBe(
      '<svg width="10pt" height="10pt" viewBox="0 0 10 10"><g id="node1" class="node"><title>n1</title><polygon fill="#d7f5dd" stroke="#2e7d32" points="0,0 1,1"/><text text-anchor="middle" x="1" y="2" font-family="Helvetica,sans-Serif" font-size="11.00">✔ a&amp;b</text></g></svg>',
    );
  });

  it('drops scripts, links, foreign content, handlers, styles and references, with their content', () => {
    const svg = cleanSvg(
      wrap(
        '<script>alert(1)</script><a href="javascript:alert(1)"><text>link</text></a><foreignObject><div>x</div></foreignObject><image href="https://evil.example/x.png"/><g onclick="alert(1)" style="fill:red" fill="url(https://evil.example/#x)" class="node"><text>kept</text></g>',
      ),
    );
    expect(svg).toBe('<svg width="10pt" height="10pt" viewBox="0 0 10 10"><g class="node"><text>kept</text></g></svg>');
  });

  it('writes text again from its value: an entity cannot bring back a bidi, control or markup character', () => {
    const svg = cleanSvg(wrap('<text>&#x202e;evil&#8203;&#x1b;[31m&lt;script&gt;</text>'));
    expect(svg).toContain('<text>\\u202eevil\\u200b\\x1b[31m&lt;script&gt;</text>');
  });

  it('refuses what Graphviz does not write: stray markup, unbalanced or nested elements', () => {
    expect(() => cleanSvg(wrap('<text>a < b</text>'))).toThrow(PictureError);
    expect(() => cleanSvg(wrap('<g><text>a</g></text>'))).toThrow(PictureError);
    expect(() => cleanSvg(wrap('<svg></svg>'))).toThrow(PictureError);
    expect(() => cleanSvg('<g></g>')).toThrow(PictureError);
    expect(() => cleanSvg('just text')).toThrow(PictureError);
  });
});
