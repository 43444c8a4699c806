/**
 * The HTML report: one self-contained page to open from a CI artifact, offline. It shows what the
 * interactive view shows (summary with a coverage bar and counts per status, the tree with a glyph and a
 * colour per row, the detail of the selected node, the "not gated" and path filters, keyboard use) and the
 * coverage graph as an inline SVG picture laid out by Graphviz.
 *
 * How data stays data:
 *
 * - the report is embedded once, as JSON in a `<script type="application/json">` data block, with `<`,
 *   `>` and `&` written `\u003c`, `\u003e`, `\u0026` (no `</script>` or `<!--` in it can end or change the
 *   block), every character `visible` escapes written as a `\u` escape (HTML would turn a raw CR into
 *   LF, a raw NUL into U+FFFD) and the `[` of a `##[` written `\u005b` (no CI runner reads a command in it);
 * - the page's script puts every value on the page with `textContent` or `setAttribute`, never as markup,
 *   shown as `visible` shows it (bidi and zero-width characters visibly escaped);
 * - the picture is Graphviz's SVG rewritten through an allowlist (`cleanSvg`);
 * - a Content-Security-Policy `default-src 'none'` allows only the page's own inline style and script,
 *   by their SHA-256: no request to any address, no other script, no other style.
 *
 * Every node is one element carrying `data-path` (`JSON.stringify(node.path)`) and `data-status`; the
 * "not gated" filter is the control carrying `data-filter="not-gated"`; a gated ancestor kept visible by a
 * filter for context carries `data-context`. Those names are the page's contract.
 */
import { createHash } from 'node:crypto';
import { jsonVisible, neutralizeCommands } from '../../escape.js';
import { type ExitRule, judgeRun } from '../exit.js';
import { type CoverageReport, CoverageReportSchema } from '../schema.js';
import { percent, STATUS_GLYPH } from './glyphs.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './html-page.js';
import { renderDot } from './dot.js';
import { coverageOf, STATUS_ORDER, summaryLine, tally, verdict } from './summary.js';
import { escapeHtml, layoutSvg, PictureError } from './svg.js';

/** Reports with more nodes than this are drawn without the picture (Graphviz's layout grows too large). */
export const PICTURE_NODE_LIMIT = 3000;

/** The picture of the page: the cleaned SVG, or why there is none. */
export type HtmlPicture = { readonly svg: string } | { readonly note: string };

/** Options of the HTML report. */
export interface HtmlOptions {
  /** The picture (see `renderHtmlPage`, which lays it out); without one the page says there is none. */
  readonly picture?: HtmlPicture;
  /** The exit rule in force, so the verdict and the summary say every reason the run fails. */
  readonly exitRule?: ExitRule;
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const JSON_ESCAPES: Readonly<Record<string, string>> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' };

/**
 * The report as the text of a JSON data block: parses back to exactly the report; holds no `<`, `>` or
 * `&` and no character `visible` escapes, so nothing in it can end the block or be changed by HTML parsing.
 *
 * @param report - the report
 */
export function embeddedJson(report: CoverageReport): string {
  // The block continues the line of its opening tag; a `##[` in it is written `##\u005b` (the page's final pass
  // writes `&#91;`, which a script's text would keep as it is).
  return neutralizeCommands(jsonVisible(JSON.stringify(report)), 'json', true).replace(
    /[<>&]/g,
    (c) => JSON_ESCAPES[c] ?? c,
  );
}

/**
 * Renders a report as one self-contained HTML page. Pure: the picture, if any, is laid out beforehand
 * (`renderHtmlPage` does both).
 *
 * @param report - the report (validated against `CoverageReportSchema` first)
 * @param options - the picture
 * @returns the page
 */
export function renderHtml(report: CoverageReport, options: HtmlOptions = {}): string {
  const valid = CoverageReportSchema.parse(report);
  const t = tally(valid.nodes);
  const { outside } = judgeRun(valid, options.exitRule ?? {});
  const ratio = coverageOf(t);
  const counts = STATUS_ORDER.map(
    (status) =>
      `<li class="s-${status}" data-count="${status}"><span class="glyph" aria-hidden="true">${STATUS_GLYPH[status]}</span> <span class="status">${t.byStatus[status]} ${status}</span></li>`,
  ).join('');
  const picture = options.picture ?? { note: 'The picture was not drawn.' };
  const figure =
    'svg' in picture
      ? `<div class="frame">${picture.svg}</div><p class="hint">Click a node or an orchestrator's box to select it in the tree.</p>`
      : `<p class="hint">${escapeHtml(picture.note)}</p>`;
  const csp = [
    "default-src 'none'",
    `style-src ${sha256(PAGE_STYLE)}`,
    `script-src ${sha256(PAGE_SCRIPT)}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>gate-audit report</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>gate-audit ${escapeHtml(valid.mode)} · <span id="root-name"></span></h1>
<p class="meta" id="generator"></p>
<div class="coverage">
<progress id="coverage-bar" max="1000" value="${Math.round((ratio ?? 0) * 1000)}" aria-label="coverage">${ratio === undefined ? 'n/a' : percent(ratio)}</progress>
<span id="summary-line">${escapeHtml(summaryLine(t, outside))}</span>
<span class="verdict" id="verdict">${escapeHtml(verdict(t, outside))}</span>
</div>
<ul class="counts" id="counts" aria-label="nodes per status">${counts}</ul>
</header>
<section id="notes" class="notes" hidden="" aria-label="not audited or held against the report">
<h2>Not audited, or held against the report</h2>
<ul id="notes-list"></ul>
</section>
<main>
<section aria-label="nodes">
<div class="controls">
<button type="button" data-filter="not-gated" aria-pressed="false" title="n">Not gated only</button>
<input id="path-filter" type="search" placeholder="Filter by path ( / )" aria-label="filter by path" autocomplete="off">
<span class="shown" id="shown" aria-live="polite"></span>
</div>
<div id="tree" role="tree" aria-label="coverage tree" tabindex="0"></div>
<p class="hint">Keys: ↑ ↓ move, ← → fold and unfold, / filter by path, n not gated only, Esc clears the filter.</p>
</section>
<aside id="detail" aria-live="polite">
<h2 id="detail-title">No node selected</h2>
<dl id="detail-fields"></dl>
</aside>
</main>
<section id="picture" aria-label="coverage graph">
<h2>Coverage graph</h2>
${figure}
</section>
<script type="application/json" id="gate-audit-report">${embeddedJson(valid)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * Renders a report as one self-contained HTML page with its picture: the DOT output laid out by Graphviz
 * (WebAssembly, loaded only here). When Graphviz fails, or the report has more than `PICTURE_NODE_LIMIT`
 * nodes, the page says so in place of the picture and shows everything else.
 *
 * @param report - the report
 * @param exitRule - the exit rule in force, for the verdict
 * @param warn - told when the picture is left out because it could not be drawn (for a line on stderr)
 * @returns the page
 */
export async function renderHtmlPage(
  report: CoverageReport,
  exitRule: ExitRule = {},
  warn?: (line: string) => void,
): Promise<string> {
  if (report.nodes.length > PICTURE_NODE_LIMIT) {
    return renderHtml(report, {
      exitRule,
      picture: {
        note: `The picture is left out: ${report.nodes.length} nodes is more than ${PICTURE_NODE_LIMIT}. --format dot writes the graph for Graphviz.`,
      },
    });
  }
  try {
    return renderHtml(report, { exitRule, picture: { svg: await layoutSvg(renderDot(report)) } });
  } catch (error) {
    if (!(error instanceof PictureError)) throw error;
    warn?.(`the HTML page has no picture: ${error.message}`);
    return renderHtml(report, { exitRule, picture: { note: `The picture could not be drawn: ${error.message}` } });
  }
}
