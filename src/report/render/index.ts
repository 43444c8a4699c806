/**
 * The typed registry of renderers: pure functions from a report to text. Every format's output passes one
 * final pass in its own syntax (`FORMAT_ESCAPES`, `neutralizeCommands`), so no line of any of them is a CI
 * runner's workflow command; the `github` format's own command prefixes are the one exemption, and its
 * renderer passes the rest of each line itself.
 */
import { type CommandEscape, neutralizeCommands } from '../../escape.js';
import type { ExitRule } from '../exit.js';
import type { CoverageReport } from '../schema.js';
import { renderDot } from './dot.js';
import { renderGithub } from './github.js';
import { renderHtmlPage } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderMermaid } from './mermaid.js';
import { renderSarif, type SarifOptions } from './sarif.js';
import { renderText } from './text.js';

/** Options every renderer may use. */
export interface RenderOptions {
  /** gate-audit's version, for formats that name the tool. */
  readonly version?: string;
  /**
   * `--quiet`: only the nodes that are not gated, plus the summary (`text`, `markdown`; `github` writes
   * nothing for gated nodes anyway). Data formats (`json`, `sarif`, `junit`) and pictures stay whole.
   */
  readonly quiet?: boolean;
  /** The exit rule in force (`--min-coverage`, `--exit-zero`), for every format that says why the run fails. */
  readonly exitRule?: ExitRule;
  /** Where findings are in the source, and how the run went (`sarif`). */
  readonly sarif?: SarifOptions;
  /** Told what a page left out and why (the HTML page without its picture), for a line on stderr. */
  readonly warn?: (line: string) => void;
}

/** A renderer: a pure function from a report to its text form. */
export type Renderer = (report: CoverageReport, options: RenderOptions) => string;

/** A renderer that needs a moment (the HTML page lays out its picture with Graphviz). */
export type PageRenderer = (report: CoverageReport, options: RenderOptions) => Promise<string>;

/** What the docs say of a format (`npm run docs:formats` writes both into docs/cli.md). */
interface FormatDoc {
  /** A few words for the `--format` row of the options table. */
  readonly summary: string;
  /** What it writes, for the list under "Output formats" (Markdown, one paragraph). */
  readonly doc: string;
}

/**
 * One format: the syntax its final pass writes escapes in (`own`: the renderer passes its own lines), its
 * renderer, synchronous (`render`) or asynchronous (`page`), and what the docs say of it.
 */
export type FormatEntry = FormatDoc &
  (
    | { readonly escape: CommandEscape | 'own'; readonly render: Renderer }
    | { readonly escape: CommandEscape | 'own'; readonly page: PageRenderer }
  );

const ruleOf = (options: RenderOptions): { exitRule?: ExitRule } =>
  options.exitRule === undefined ? {} : { exitRule: options.exitRule };

/**
 * Every non-interactive format, by name: the one list of formats. Their names, the config's zod enum, the CLI's
 * choices and the docs' list all derive from this map, so a new format is its renderer's file and one entry
 * here. The final pass writes its escapes as `\x5b` in text, `\u005b` in JSON and SARIF, `&#91;` in XML and
 * HTML, `\[` in Markdown and DOT, `#91;` in Mermaid; `github` passes its own lines (its command prefixes are
 * the one exemption).
 */
export const FORMATS = {
  text: {
    escape: 'text',
    render: (report, options) => renderText(report, { quiet: options.quiet === true, ...ruleOf(options) }),
    summary: 'default elsewhere',
    doc:
      'one row per node (status glyph, indented id, kind, status, reason, its gate as `gate: name [n]`, tools), its ' +
      'fix (none for an accepted node: its reason says why it is acknowledged) and warnings under it, then a ' +
      "`gates:` legend with each gate's full id (a per-process id is marked as such, and two different gates under " +
      'one name are flagged: names are not identities), then the summary. A bundle of several modules puts each ' +
      'root under a `── module#export` heading.',
  },
  json: {
    escape: 'json',
    render: (report) => renderJson(report),
    summary: 'the validated report',
    doc:
      "the report. The CLI's JSON report gives each source its `projectModule` (the module's path from the project " +
      'root) and, under `--shard`, a `shard { index, count, modulesDigest }`: what `gate-audit merge` joins on.',
  },
  markdown: {
    escape: 'backslash',
    render: (report, options) => renderMarkdown(report, { quiet: options.quiet === true, ...ruleOf(options) }),
    summary: 'a CI step summary',
    doc:
      'a heading with the verdict (`✘ the run fails: …` naming every reason, `✘ not fully gated: 2 to fix`, ' +
      '`✔ fully gated`, or `✔ nothing to fix (1 attested, 1 accepted)`), the summary, a table with the nodes that ' +
      'are not gated first (glyph, path, kind, status, reason, gate, fix), a table of gates with full ids, warnings ' +
      'and refusals. A bundle lists its modules.',
  },
  sarif: {
    escape: 'json',
    render: (report, options) => renderSarif(report, options.version, options.sarif),
    summary: '2.1.0, one rule per problem kind, a stable fingerprint per node path',
    doc:
      'one result per node that fails a run, an `error` for each note that fails it, an accepted node as a `note` ' +
      "with a `suppressions` entry carrying its reason; each result's `properties` carry the node's `status` and " +
      "`gate`, the run's `properties.gates` every gate of the report with its node count.",
  },
  junit: {
    escape: 'xml',
    render: (report) => renderJunit(report),
    summary: 'one test case per node',
    doc:
      'one test case per node and per note; a `<failure>` exactly for the nodes and notes that fail a run, ' +
      '`<skipped>` with the reason for an accepted node. A bundle gets one test suite per module ' +
      "(`module#export`); class names are the node's parents joined with ` › `, with each `.` written `․` " +
      "(U+2024) so CI viewers do not split an id like `v1.2` or a module's file name into packages.",
  },
  mermaid: {
    escape: 'mermaid',
    render: (report) => renderMermaid(report),
    summary: 'a picture of the coverage graph, for Markdown',
    doc: 'a picture of the coverage graph, as a Mermaid flowchart ([Pictures](#pictures-of-the-coverage-graph)).',
  },
  dot: {
    escape: 'backslash',
    render: (report) => renderDot(report),
    summary: 'a picture of the coverage graph, for Graphviz',
    doc: 'a picture of the coverage graph, as Graphviz DOT ([Pictures](#pictures-of-the-coverage-graph)).',
  },
  github: {
    escape: 'own',
    render: (report, options) => renderGithub(report, ruleOf(options)),
    summary: 'GitHub Actions annotations',
    doc:
      'GitHub Actions workflow commands, one per line: an `::error` for each node that fails the run under the ' +
      'exit rule in force (with `--min-coverage`, only orchestrators that are not gated, plus an `::error` when ' +
      'coverage is under the minimum), an `::error` for each note that fails the run, a `::warning` for each ' +
      "accepted node (with its reason) and each other node that is not gated, each with `file` (the node's module, " +
      'when the report knows it) and a `title` naming the status, kind and path; then one `::notice` with the ' +
      'summary, which names every reason the run fails. GitHub shows at most 10 errors and 10 warnings per step; ' +
      'the notice counts them all.',
  },
  html: {
    escape: 'xml',
    page: async (report, options) => await renderHtmlPage(report, options.exitRule ?? {}, options.warn),
    summary: 'one self-contained page to open in a browser, [below](#in-a-browser---format-html)',
    doc:
      'one self-contained page with the summary, the tree, the detail of the selected node, filters and the ' +
      'picture of the coverage graph ([In a browser](#in-a-browser---format-html)).',
  },
} as const satisfies Readonly<Record<string, FormatEntry>>;

/** The name of a non-interactive format. */
export type FormatName = keyof typeof FORMATS;

/** The formats rendered asynchronously. */
export type PageFormatName = {
  [K in FormatName]: (typeof FORMATS)[K] extends { readonly page: PageRenderer } ? K : never;
}[FormatName];

/** The formats rendered synchronously, as text. */
export type TextFormatName = Exclude<FormatName, PageFormatName>;

/** The names of the non-interactive formats, in the map's order. */
export const FORMAT_NAMES = Object.keys(FORMATS) as readonly FormatName[];

/** The syntax each format writes the final pass's escapes in (from the map). */
export const FORMAT_ESCAPES: Readonly<Record<FormatName, CommandEscape | 'own'>> = Object.fromEntries(
  FORMAT_NAMES.map((name) => [name, FORMATS[name].escape]),
) as Record<FormatName, CommandEscape | 'own'>;

/** A format's output after the final pass. */
function final(escape: CommandEscape | 'own', output: string): string {
  return escape === 'own' ? output : neutralizeCommands(output, escape);
}

const entries = FORMAT_NAMES.map((name) => [name, FORMATS[name] as FormatEntry] as const);

/** Every format rendered asynchronously, by name, through its final pass. */
export const PAGE_RENDERERS: Readonly<Record<PageFormatName, PageRenderer>> = Object.fromEntries(
  entries.flatMap(([name, entry]) =>
    'page' in entry
      ? [
          [
            name,
            async (report: CoverageReport, options: RenderOptions) =>
              final(entry.escape, await entry.page(report, options)),
          ],
        ]
      : [],
  ),
) as Record<PageFormatName, PageRenderer>;

/** Every non-interactive text format, by name, through its final pass. */
export const RENDERERS: Readonly<Record<TextFormatName, Renderer>> = Object.fromEntries(
  entries.flatMap(([name, entry]) =>
    'render' in entry
      ? [[name, (report: CoverageReport, options: RenderOptions) => final(entry.escape, entry.render(report, options))]]
      : [],
  ),
) as Record<TextFormatName, Renderer>;

/** Whether `name` names a renderer. */
export function isFormatName(name: string): name is FormatName {
  return Object.hasOwn(FORMATS, name);
}

/**
 * Renders a report in any non-interactive format, through its final pass.
 *
 * @param name - the format
 * @param report - the report
 * @param options - the options
 */
export async function renderFormat(name: FormatName, report: CoverageReport, options: RenderOptions): Promise<string> {
  const entry: FormatEntry = FORMATS[name];
  return 'page' in entry
    ? final(entry.escape, await entry.page(report, options))
    : final(entry.escape, entry.render(report, options));
}
