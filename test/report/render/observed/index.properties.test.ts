/**
 * Property: whatever the agents, places, tools, hosts, sources and notes of an observed report hold, every
 * format shows one row per agent and tool with its real counts, parses (JSON, SARIF, XML, Markdown table) and
 * keeps no byte of a control, bidi or invisible character.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type Tokens, marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { rowAgent } from '../../../../src/report/observed.js';
import { type ObservedReport, ObservedReportSchema } from '../../../../src/report/observed-schema.js';
import { OBSERVED_RENDERERS } from '../../../../src/report/render/observed/index.js';
import { visible } from '../../../../src/escape.js';
import { expectNothingHidden, hostileObservedReport } from '../../../helpers/hostile-report.js';

const RUNS = { numRuns: Number(process.env.HOSTILE_RUNS ?? 100) };

/** A valid observed report (it passes the schema) whose every string is hostile. */
const hostileObserved: fc.Arbitrary<ObservedReport> = hostileObservedReport();

const render = (format: keyof typeof OBSERVED_RENDERERS, report: ObservedReport): string =>
  OBSERVED_RENDERERS[format](report, { version: '1.2.3' });

describe('OBSERVED_RENDERERS', () => {
  describe('when the data is hostile (property)', () => {
    it('text: one row per agent and tool, in order, with its glyph, visible agent and counts; the summary last', () => {
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const text = render('text', report);
          expectNothingHidden(text);
          const lines = text.trimEnd().split('\n');
          const rows = lines.slice(0, -1).filter((line) => /^[✘✔] /.test(line));
          expect(rows).toHaveLength(report.rows.length);
          report.rows.forEach((r, i) => {
            expect(rows[i]!.startsWith(`${r.undecided > 0 ? '✘' : '✔'} ${rowAgent(r)}`)).toBe(true);
            expect(rows[i]).toContain(` ${visible(r.tool)}`);
            expect(rows[i]!.endsWith(r.lastSeen)).toBe(true);
          });
          expect(lines.at(-1)).toMatch(
            new RegExp(
              `· ${report.summary.calls} tool calls?: ${report.summary.decided} decided, ${report.summary.undecided} undecided, ${report.summary.refused} refused$`,
            ),
          );
        }),
        RUNS,
      );
    });

    it('json parses back to exactly the report', () => {
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const json = render('json', report);
          expectNothingHidden(json);
          expect(ObservedReportSchema.parse(JSON.parse(json))).toEqual(report);
        }),
        RUNS,
      );
    });

    it('markdown: a table row per agent and tool whose cells read the visible values', () => {
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const markdown = render('markdown', report);
          expectNothingHidden(markdown);
          const table = marked.lexer(markdown).find((t): t is Tokens.Table => t.type === 'table');
          expect(table?.rows).toHaveLength(report.rows.length);
          report.rows.forEach((r, i) => {
            const cells = table!.rows[i]!.map((cell) => cell.text);
            expect(cells.slice(3, 7)).toEqual([r.calls, r.decided, r.undecided, r.refused].map(String));
            expect(cells[0]).toBe(r.undecided > 0 ? '✘' : '✔');
          });
        }),
        RUNS,
      );
    });

    it('sarif: one error per row that ran undecided and one warning per note, nothing hidden', () => {
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const sarif = render('sarif', report);
          expectNothingHidden(sarif);
          const results = (JSON.parse(sarif) as { runs: { results: { level: string }[] }[] }).runs[0]!.results;
          expect(results.filter((r) => r.level === 'error')).toHaveLength(
            report.rows.filter((r) => r.undecided > 0).length,
          );
          expect(results.filter((r) => r.level === 'warning')).toHaveLength(report.notes.length);
        }),
        RUNS,
      );
    });

    it('junit: well-formed XML, one case per row, a failure per row that ran undecided', () => {
      const parser = new XMLParser({
        ignoreAttributes: false,
        isArray: (name) => name === 'testcase' || name === 'testsuite',
      });
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const xml = render('junit', report);
          expectNothingHidden(xml);
          expect(XMLValidator.validate(xml)).toBe(true);
          const parsed = parser.parse(xml) as { testsuites: { testsuite: { testcase: { failure?: unknown }[] }[] } };
          const cases = parsed.testsuites.testsuite[0]!.testcase;
          expect(cases).toHaveLength(report.rows.length);
          expect(cases.filter((c) => c.failure !== undefined)).toHaveLength(
            report.rows.filter((r) => r.undecided > 0).length,
          );
        }),
        RUNS,
      );
    });

    it('github: one command per line, an error per row that ran undecided, a warning per note, one notice', () => {
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const lines = render('github', report).trimEnd().split('\n');
          expectNothingHidden(lines.join('\n'));
          expect(lines.every((line) => /^::(error|warning|notice) title=[^:\r\n]*::[^\r\n]*$/.test(line))).toBe(true);
          expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(
            report.rows.filter((r) => r.undecided > 0).length,
          );
          expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(report.notes.length);
          expect(lines.filter((l) => l.startsWith('::notice '))).toHaveLength(1);
        }),
        RUNS,
      );
    });

    it('html: no markup from data, one table row per agent and tool', () => {
      fc.assert(
        fc.property(hostileObserved, (report) => {
          const html = render('html', report);
          expectNothingHidden(html);
          expect(html.match(/<tr class="/g) ?? []).toHaveLength(report.rows.length);
          // Only the page's own tags: every < from data is written &lt;.
          const tags = new Set([...html.matchAll(/<\/?([a-zA-Z0-9!]+)/g)].map((m) => m[1]!.toLowerCase()));
          expect(
            [...tags].filter(
              (t) =>
                ![
                  '!doctype',
                  'html',
                  'head',
                  'meta',
                  'title',
                  'style',
                  'body',
                  'h1',
                  'h2',
                  'p',
                  'table',
                  'thead',
                  'tbody',
                  'tr',
                  'th',
                  'td',
                  'code',
                  'ul',
                  'li',
                ].includes(t),
            ),
          ).toEqual([]);
        }),
        RUNS,
      );
    });
  });
});

describe('OBSERVED_RENDERERS and docs/observed.md', () => {
  describe('when the page lists the formats', () => {
    it('names every format of the map, in its order, and no other', () => {
      const page = readFileSync(new URL('../../../../docs/observed.md', import.meta.url), 'utf8');
      const line = /^- Formats: ([\s\S]*?)\. Every value/m.exec(page)?.[1] ?? '';
      // The names, not what the parentheses say of them (`json` (the report, which `merge` reads back)).
      const named = [...line.replaceAll(/\([^)]*\)/g, '').matchAll(/`([a-z]+)`/g)].map((m) => m[1]);
      expect(named).toEqual(Object.keys(OBSERVED_RENDERERS));
    });
  });
});
