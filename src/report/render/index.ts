/**
 * The typed registry of renderers: pure functions from a report to text. Every format's output passes one
 * final pass in its own syntax (`FORMAT_ESCAPES`, `neutralizeCommands`), so no line of any of them is a CI
 * runner's workflow command; the `github` format's own command prefixes are the one exemption, and its
 * renderer passes the rest of each line itself.
 */
import { type CommandEscape, neutralizeCommands } from '../../text.js';
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

/** The names of the non-interactive formats. */
export const FORMAT_NAMES = ['text', 'json', 'markdown', 'sarif', 'junit', 'mermaid', 'dot', 'github', 'html'] as const;

/** The name of a non-interactive format. */
export type FormatName = (typeof FORMAT_NAMES)[number];

/** The formats rendered asynchronously. */
export type PageFormatName = 'html';

/** The formats rendered synchronously, as text. */
export type TextFormatName = Exclude<FormatName, PageFormatName>;

/**
 * The syntax each format writes the final pass's escapes in: `\x5b` in text, `\u005b` in JSON and SARIF,
 * `&#91;` in XML and HTML, `\[` in Markdown and DOT, `#91;` in Mermaid. `github` passes its own lines (its
 * command prefixes are the one exemption).
 */
export const FORMAT_ESCAPES: Readonly<Record<FormatName, CommandEscape | 'own'>> = {
  text: 'text',
  json: 'json',
  markdown: 'backslash',
  sarif: 'json',
  junit: 'xml',
  mermaid: 'mermaid',
  dot: 'backslash',
  github: 'own',
  html: 'xml',
};

/** A format's output after the final pass. */
function final(name: FormatName, output: string): string {
  const escape = FORMAT_ESCAPES[name];
  return escape === 'own' ? output : neutralizeCommands(output, escape);
}

/** Every format rendered asynchronously, by name. */
export const PAGE_RENDERERS: Readonly<Record<PageFormatName, PageRenderer>> = {
  html: async (report, options) => final('html', await renderHtmlPage(report, options.exitRule ?? {}, options.warn)),
};

const ruleOf = (options: RenderOptions): { exitRule?: ExitRule } =>
  options.exitRule === undefined ? {} : { exitRule: options.exitRule };

/** Every non-interactive text format, by name. */
export const RENDERERS: Readonly<Record<TextFormatName, Renderer>> = {
  text: (report, options) => final('text', renderText(report, { quiet: options.quiet === true, ...ruleOf(options) })),
  json: (report) => final('json', renderJson(report)),
  markdown: (report, options) =>
    final('markdown', renderMarkdown(report, { quiet: options.quiet === true, ...ruleOf(options) })),
  sarif: (report, options) => final('sarif', renderSarif(report, options.version, options.sarif)),
  junit: (report) => final('junit', renderJunit(report)),
  mermaid: (report) => final('mermaid', renderMermaid(report)),
  dot: (report) => final('dot', renderDot(report)),
  github: (report, options) => final('github', renderGithub(report, ruleOf(options))),
};

/** Whether `name` names a renderer. */
export function isFormatName(name: string): name is FormatName {
  return (FORMAT_NAMES as readonly string[]).includes(name);
}

/**
 * Renders a report in any non-interactive format.
 *
 * @param name - the format
 * @param report - the report
 * @param options - the options
 */
export async function renderFormat(name: FormatName, report: CoverageReport, options: RenderOptions): Promise<string> {
  return name === 'html' ? await PAGE_RENDERERS[name](report, options) : RENDERERS[name](report, options);
}
