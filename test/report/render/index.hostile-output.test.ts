/**
 * Property: whatever the ids, names, tool names, reasons, fixes, warnings, gates and modules of a report
 * hold, every format parses back to exactly the report's nodes and statuses, with the real summary, and no
 * byte of a control sequence survives.
 */
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type Token, type Tokens, marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { nodeFailsRun } from '../../../src/report/exit.js';
import { STATUS_GLYPH } from '../../../src/report/render/glyphs.js';
import { renderHtml } from '../../../src/report/render/html.js';
import { PAGE_SCRIPT, PAGE_STYLE } from '../../../src/report/render/html-page.js';
import { renderDot } from '../../../src/report/render/dot.js';
import { RENDERERS } from '../../../src/report/render/index.js';
import { layoutSvg } from '../../../src/report/render/svg.js';
import { summaryLine, tally, verdict } from '../../../src/report/render/summary.js';
import { type CoverageNode, type CoverageReport, CoverageReportSchema } from '../../../src/report/schema.js';
import { hasHiddenCharacters, visible, visiblePath } from '../../../src/escape.js';
import { expectNothingHidden, hostileReport } from '../../helpers/hostile-report.js';

const RUNS = { numRuns: Number(process.env.HOSTILE_RUNS ?? 150) };

const GLYPHS = new Set(Object.values(STATUS_GLYPH));
const isContainer = (n: CoverageNode): boolean => n.kind === 'graph' || n.kind === 'swarm';
const sorted = (items: string[]): string[] => [...items].sort();
/** Independent count of the nodes left to fix: orchestrators not gated, failing statuses. */
const toFix = (report: CoverageReport): number =>
  report.nodes.filter(
    (n) => (isContainer(n) && n.status !== 'gated') || ['ungated', 'ungateable', 'blocked'].includes(n.status),
  ).length;

describe('every audit report format', () => {
  describe('when the report data is hostile (property)', () => {
    it('text: one row per node, in order, with its own glyph, kind and status; the real summary last', () => {
      fc.assert(
        fc.property(hostileReport(), fc.boolean(), (report, quiet) => {
          const text = RENDERERS.text(report, { quiet });
          expectNothingHidden(text);
          const lines = text.trimEnd().split('\n');
          const rows = lines.filter((line) => GLYPHS.has(line[0] ?? '') && line[1] === ' ');
          const shown = quiet ? report.nodes.filter((n) => n.status !== 'gated') : report.nodes;
          expect(rows).toHaveLength(shown.length);
          const base = report.root.kind === 'bundle' ? 1 : 0;
          shown.forEach((node, i) => {
            const name = quiet
              ? visiblePath(node.path.slice(base))
              : `${'  '.repeat(node.path.length - 1 - base)}${visible(node.id)}`;
            const row = rows[i]!;
            expect(row.startsWith(`${STATUS_GLYPH[node.status]} ${name}`)).toBe(true);
            const rest = /^ {2,}(\S+) +(\S+)( |$)/.exec(row.slice(2 + name.length));
            expect(rest?.slice(1, 3)).toEqual([node.kind, node.status]);
          });
          expect(lines.filter((line) => line.startsWith('coverage '))).toHaveLength(1);
          const last = lines.at(-1)!;
          expect(last).toBe(summaryLine(tally(report.nodes)));
          expect(
            last.endsWith(
              `· ${report.nodes.length} ${report.nodes.length === 1 ? 'node' : 'nodes'}, ${toFix(report) === 0 ? 'nothing' : toFix(report)} to fix`,
            ),
          ).toBe(true);
        }),
        RUNS,
      );
    });

    it('markdown: one table row per node with its status, the real heading and summary, no HTML, link or emphasis from data', () => {
      const ALLOWED = new Set([
        'heading',
        'paragraph',
        'strong',
        'text',
        'codespan',
        'escape',
        'table',
        'space',
        'list',
        'list_item',
      ]);
      const decode = (text: string): string =>
        text.replace(/&(lt|gt|amp|quot|#\d+);/g, (_, name: string) =>
          name.startsWith('#')
            ? String.fromCharCode(Number(name.slice(1)))
            : ({ lt: '<', gt: '>', amp: '&', quot: '"' }[name] ?? ''),
        );
      const plain = (tokens: readonly Token[]): string =>
        tokens
          .map((t) => {
            if (t.type === 'codespan' || t.type === 'escape') return (t as Tokens.Codespan).text;
            if ('tokens' in t && t.tokens !== undefined && t.tokens.length > 0) return plain(t.tokens);
            return decode((t as Tokens.Text).text);
          })
          .join('');
      const oneLine = (text: string): string => visible(text.replace(/\r\n|[\r\n\u0085\u2028\u2029]/g, ' '));
      const shownPath = (path: readonly string[]): string =>
        path.map((segment) => oneLine(segment.replaceAll('›', '\\u203a'))).join(' › ');
      fc.assert(
        fc.property(hostileReport(), fc.boolean(), (report, quiet) => {
          const md = RENDERERS.markdown(report, { quiet });
          expectNothingHidden(md);
          const tokens = marked.lexer(md);
          const types = new Set<string>();
          void marked.walkTokens(tokens, (t) => void types.add(t.type));
          expect([...types].filter((type) => !ALLOWED.has(type))).toEqual([]);
          const html = marked.parse(md, { async: false });
          const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()));
          expect(
            [...tags].filter(
              (tag) =>
                !['h2', 'h3', 'p', 'strong', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'code', 'ul', 'li'].includes(
                  tag,
                ),
            ),
          ).toEqual([]);

          const headings = tokens.filter((t): t is Tokens.Heading => t.type === 'heading');
          expect(headings.filter((h) => h.depth === 2)).toHaveLength(1);
          expect(plain(headings[0]!.tokens)).toBe(
            `gate-audit ${report.mode}: ${oneLine(report.root.id)} ${verdict(tally(report.nodes))}`,
          );
          expect(
            headings
              .slice(1)
              .map((h) => h.text)
              .every((h) => ['Gates', 'Warnings', 'installMultiagent would refuse this tree'].includes(h)),
          ).toBe(true);

          const summaries = tokens.filter(
            (t): t is Tokens.Paragraph =>
              t.type === 'paragraph' &&
              t.tokens?.[0]?.type === 'strong' &&
              plain([t.tokens[0]]).startsWith('Coverage '),
          );
          expect(summaries).toHaveLength(1);
          expect(plain(summaries[0]!.tokens)).toBe(`C${summaryLine(tally(report.nodes)).slice(1)}`);

          const tables = tokens.filter((t): t is Tokens.Table => t.type === 'table');
          const nodeTable = tables.filter(
            (t) => t.header.map((h) => h.text).join('|') === '|node|kind|status|reason|gate|fix',
          );
          expect(nodeTable).toHaveLength(1);
          const rows = nodeTable[0]!.rows;
          const shown = quiet ? report.nodes.filter((n) => n.status !== 'gated') : report.nodes;
          expect(rows).toHaveLength(shown.length);
          for (const row of rows) expect(row).toHaveLength(7);
          // Line terminators all become a space in Markdown, so two ids may read alike: compare as multisets.
          expect(
            sorted(
              rows.map((r) =>
                r
                  .slice(0, 5)
                  .map((cell) => plain(cell.tokens))
                  .join('\u0000'),
              ),
            ),
          ).toEqual(
            sorted(
              shown.map((n) =>
                [STATUS_GLYPH[n.status], shownPath(n.path), n.kind, n.status, oneLine(n.reason)].join('\u0000'),
              ),
            ),
          );
        }),
        RUNS,
      );
    });

    it('junit: well-formed XML, one test case per node named by its id, a failure exactly where the run fails, accepted skipped', () => {
      const parser = new XMLParser({
        ignoreAttributes: false,
        attributeNamePrefix: '',
        isArray: (name) => ['testsuite', 'testcase'].includes(name),
        processEntities: true,
        parseTagValue: false,
        parseAttributeValue: false,
        trimValues: false,
      });
      fc.assert(
        fc.property(hostileReport(), (report) => {
          const xml = RENDERERS.junit(report, {});
          expectNothingHidden(xml);
          expect(XMLValidator.validate(xml)).toBe(true);
          const parsed = parser.parse(xml) as {
            testsuites: {
              tests: string;
              failures: string;
              skipped: string;
              testsuite: {
                name: string;
                testcase: { name: string; classname: string; failure?: unknown; skipped?: unknown }[];
              }[];
            };
          };
          const cases = parsed.testsuites.testsuite.flatMap((suite) => suite.testcase ?? []);
          expect(cases).toHaveLength(report.nodes.length);
          expect(Number(parsed.testsuites.tests)).toBe(report.nodes.length);
          const mark = (failed: boolean, skipped: boolean): string =>
            failed ? 'failure' : skipped ? 'skipped' : 'pass';
          expect(
            sorted(cases.map((c) => `${c.name}\u0000${mark(c.failure !== undefined, c.skipped !== undefined)}`)),
          ).toEqual(
            sorted(report.nodes.map((n) => `${visible(n.id)}\u0000${mark(nodeFailsRun(n), n.status === 'accepted')}`)),
          );
          expect(Number(parsed.testsuites.failures)).toBe(report.nodes.filter((n) => nodeFailsRun(n)).length);
          for (const c of cases) expect(c.classname).not.toContain('.');
        }),
        RUNS,
      );
    });

    it('sarif and json: parse back, results exactly for the nodes that fail or are accepted, no hidden character', () => {
      fc.assert(
        fc.property(hostileReport(), (report) => {
          const json = RENDERERS.json(report, {});
          expectNothingHidden(json);
          expect(CoverageReportSchema.parse(JSON.parse(json))).toEqual(report);
          const sarif = RENDERERS.sarif(report, { version: '1.0.0' });
          expectNothingHidden(sarif);
          const results = (
            JSON.parse(sarif) as {
              runs: { results: { properties: { status: string }; message: { text: string } }[] }[];
            }
          ).runs[0]!.results;
          expect(sorted(results.map((r) => r.properties.status))).toEqual(
            sorted(report.nodes.filter((n) => nodeFailsRun(n) || n.status === 'accepted').map((n) => n.status)),
          );
          for (const result of results) expect(hasHiddenCharacters(result.message.text)).toBe(false);
        }),
        RUNS,
      );
    });

    it('mermaid: one declaration per node with its own status, labels that cannot end their quotes', () => {
      fc.assert(
        fc.property(hostileReport(), (report) => {
          const chart = RENDERERS.mermaid(report, {});
          expectNothingHidden(chart);
          const declared = [...chart.matchAll(/^ *(subgraph )?n(\d+)\["([^"]*)"\](?::::(\w+))?$/gm)];
          expect(declared).toHaveLength(report.nodes.length);
          expect(sorted(declared.map((m) => m[2]!))).toEqual(sorted(report.nodes.map((_, i) => String(i))));
          for (const m of declared) {
            const node = report.nodes[Number(m[2])]!;
            expect(m[1] !== undefined).toBe(isContainer(node));
            if (m[1] === undefined) expect(m[4]).toBe(node.status);
            const label = m[3]!.replace(
              /#(quot|lt|gt|35);/g,
              (_, e: string) => ({ quot: '"', lt: '<', gt: '>', '35': '#' })[e] ?? '',
            );
            expect(label.startsWith(`${STATUS_GLYPH[node.status]} ${visible(node.id)}<br/>`)).toBe(true);
          }
          expect(chart.split('\n').filter((l) => l.trim() === 'end')).toHaveLength(
            report.nodes.filter(isContainer).length,
          );
          // Every other line is one of the renderer's own.
          const own =
            /^(flowchart LR| *(subgraph )?n\d+\[".*"\](:::\w+)?| *end| {2}n\d+ (-\. tool \.->|-->) n\d+| {2}(style n\d+|classDef \w+) fill:#\w+,stroke:#\w+,color:#\w+|)$/;
          expect(chart.split('\n').filter((l) => !own.test(l))).toEqual([]);
        }),
        RUNS,
      );
    });

    it('dot: one node or cluster per node with its own status, balanced braces outside quoted labels', () => {
      const STRING = /"(?:[^"\\]|\\.)*"/g;
      fc.assert(
        fc.property(hostileReport(), (report) => {
          const dot = RENDERERS.dot(report, {});
          expectNothingHidden(dot);
          const bare = dot.replace(STRING, '""');
          expect((bare.match(/{/g) ?? []).length).toBe((bare.match(/}/g) ?? []).length);
          const leaves = [...dot.matchAll(/^ *n(\d+) \[label=("(?:[^"\\]|\\.)*"), [^\n]*status="(\w+)"\];$/gm)];
          const clusters = [...dot.matchAll(/^ *subgraph cluster_n(\d+) \{\n *label=("(?:[^"\\]|\\.)*");/gm)];
          expect(leaves.length + clusters.length).toBe(report.nodes.length);
          for (const m of leaves) expect(m[3]).toBe(report.nodes[Number(m[1])]!.status);
          for (const m of [...leaves, ...clusters]) {
            const node = report.nodes[Number(m[1])]!;
            const label = m[2]!.slice(1, -1).replace(/\\(.)/gs, (_, c: string) => (c === 'n' ? '\n' : c));
            expect(label.startsWith(`${STATUS_GLYPH[node.status]} ${visible(node.id)}`)).toBe(true);
          }
        }),
        RUNS,
      );
    });

    it('github: one command per line, an error exactly per node that fails the run, a warning per accepted node, the summary notice last', () => {
      const unescape = (text: string): string =>
        text.replace(/%(25|0D|0A|3A|2C)/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      fc.assert(
        fc.property(
          hostileReport(),
          fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
          (report, minCoverage) => {
            const rule = minCoverage === undefined ? {} : { minCoverage };
            const out = RENDERERS.github(report, { exitRule: rule });
            expectNothingHidden(out);
            const lines = out.trimEnd().split('\n');
            const parsed = lines.map((line) => /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/.exec(line));
            expect(parsed.every((m) => m !== null)).toBe(true);
            const commands = parsed.map((m) => ({
              level: m![1]!,
              props: Object.fromEntries(
                (m![2] ?? '')
                  .split(',')
                  .filter((p) => p !== '')
                  .map((p) => [p.slice(0, p.indexOf('=')), unescape(p.slice(p.indexOf('=') + 1))]),
              ),
              message: unescape(m![3]!),
            }));
            const perNode = commands.filter(
              (c) =>
                c.props.title?.startsWith('gate-audit: ') === true &&
                c.props.title !== 'gate-audit: coverage under the minimum',
            );
            expect(perNode.filter((c) => c.level === 'error')).toHaveLength(
              report.nodes.filter((n) => nodeFailsRun(n, rule)).length,
            );
            expect(perNode.filter((c) => c.level === 'warning')).toHaveLength(
              report.nodes.filter((n) => !nodeFailsRun(n, rule) && n.status !== 'gated' && n.status !== 'attested')
                .length,
            );
            expect(sorted(perNode.map((c) => c.props.title!))).toEqual(
              sorted(
                report.nodes
                  .filter((n) => nodeFailsRun(n, rule) || (n.status !== 'gated' && n.status !== 'attested'))
                  .map((n) => `gate-audit: ${n.status} ${n.kind} ${visiblePath(n.path)}`),
              ),
            );
            const notices = commands.filter((c) => c.level === 'notice');
            expect(notices).toHaveLength(1);
            expect(commands.at(-1)).toBe(notices[0]);
            expect(notices[0]!.message).toBe(summaryLine(tally(report.nodes)));
          },
        ),
        RUNS,
      );
    });

    it("html: the report embedded whole with no < in it, only the page's own script, style and drawing elements, every node in the picture", async () => {
      const TAGS = new Set(
        'html head meta title style body header h1 h2 p div progress span ul li main section button input aside dl script svg g polygon polyline path ellipse text'.split(
          ' ',
        ),
      );
      const ATTRIBUTES = new Set(
        'lang charset http-equiv content name class id hidden max value aria-label aria-hidden aria-pressed aria-live data-count data-filter type title placeholder autocomplete role tabindex width height viewBox transform fill fill-opacity stroke stroke-width stroke-dasharray stroke-opacity points d cx cy rx ry x y text-anchor font-family font-size font-weight font-style'.split(
          ' ',
        ),
      );
      await fc.assert(
        fc.asyncProperty(hostileReport(), async (report) => {
          const html = renderHtml(report, { picture: { svg: await layoutSvg(renderDot(report)) } });
          expectNothingHidden(html);
          expect(html).not.toContain('<!--');
          const data = /<script type="application\/json" id="gate-audit-report">([^<]*)<\/script>/.exec(html);
          expect(data).not.toBeNull();
          expect(CoverageReportSchema.parse(JSON.parse(data![1]!))).toEqual(report);
          expect(html.match(/<script\b/gi)).toHaveLength(2);
          expect(html.match(/<style\b/gi)).toHaveLength(1);
          expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`);
          expect(html).toContain(`<style>${PAGE_STYLE}</style>`);
          // Outside the page's own style and script and the data block, only known elements and attributes.
          const markup = html
            .replace(`<script>${PAGE_SCRIPT}</script>`, '')
            .replace(`<style>${PAGE_STYLE}</style>`, '')
            .replace(data![0], '');
          const tags = [...markup.matchAll(/<\/?([a-zA-Z][\w:-]*)([^>]*)>/g)];
          expect([...new Set(tags.map((t) => t[1]!))].filter((t) => !TAGS.has(t))).toEqual([]);
          const ATTRIBUTE = /\s([\w:-]+)="[^"]*"/g;
          expect(tags.map((t) => t[2]!.replace(ATTRIBUTE, '')).filter((rest) => !/^\s*\/?$/.test(rest))).toEqual([]);
          const attributes = tags.flatMap((t) => [...t[2]!.matchAll(ATTRIBUTE)].map((a) => a[1]!));
          expect([...new Set(attributes)].filter((a) => !ATTRIBUTES.has(a))).toEqual([]);
          expect(markup.replace(/<[^>]*>/g, '')).not.toMatch(/[<>]/);
          // Every node drawn in the picture, as a box or a cluster named by its position in the report. (An
          // orchestrator under an agent-as-tool, which only a hand-made report has, is also drawn as a box.)
          const titles = [
            ...markup.matchAll(/<g id="\w+" class="(node|cluster)">\s*<title>(?:cluster_)?n(\d+)<\/title>/g),
          ];
          expect(sorted([...new Set(titles.map((t) => t[2]!))])).toEqual(sorted(report.nodes.map((_, i) => String(i))));
        }),
        { numRuns: Math.min(RUNS.numRuns, 60) },
      );
    });
  });
});
