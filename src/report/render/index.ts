/**
 * The typed registry of renderers: pure functions from a report to text.
 */
import type { CoverageReport } from '../schema.js';
import { renderDot } from './dot.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderMermaid } from './mermaid.js';
import { renderSarif } from './sarif.js';
import { renderText } from './text.js';

/** Options every renderer may use. */
export interface RenderOptions {
  /** gate-audit's version, for formats that name the tool. */
  readonly version?: string;
}

/** A renderer: a pure function from a report to its text form. */
export type Renderer = (report: CoverageReport, options: RenderOptions) => string;

/** The names of the non-interactive formats. */
export const FORMAT_NAMES = ['text', 'json', 'markdown', 'sarif', 'junit', 'mermaid', 'dot'] as const;

/** The name of a non-interactive format. */
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Every non-interactive format, by name. */
export const RENDERERS: Readonly<Record<FormatName, Renderer>> = {
  text: (report) => renderText(report),
  json: (report) => renderJson(report),
  markdown: (report) => renderMarkdown(report),
  sarif: (report, options) => renderSarif(report, options.version),
  junit: (report) => renderJunit(report),
  mermaid: (report) => renderMermaid(report),
  dot: (report) => renderDot(report),
};

/** Whether `name` names a renderer. */
export function isFormatName(name: string): name is FormatName {
  return (FORMAT_NAMES as readonly string[]).includes(name);
}
