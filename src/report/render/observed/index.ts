/**
 * The typed registry of the observed report's formats: pure functions from an observed report to text. The
 * audit's picture formats (`mermaid`, `dot`) and the interactive view draw a tree, which an observed report
 * does not have.
 */
import { neutralizeCommands } from '../../../escape.js';
import type { ObservedReport } from '../../observed-schema.js';
import { renderObservedGithub } from './github.js';
import { renderObservedHtml } from './html.js';
import { renderObservedJson } from './json.js';
import { renderObservedJunit } from './junit.js';
import { renderObservedMarkdown } from './markdown.js';
import { renderObservedSarif } from './sarif.js';
import { renderObservedText } from './text.js';

/** Options every observed format may use. */
export interface ObservedRenderOptions {
  /** gate-audit's version, for formats that name the tool. */
  readonly version?: string;
}

/** A renderer of observed reports. */
export type ObservedRenderer = (report: ObservedReport, options: ObservedRenderOptions) => string;

/**
 * Every format of the observed report, by name. Each output passes the final pass in its own syntax (as the
 * audit's formats, `FORMAT_ESCAPES`): no line of it is a CI runner's workflow command; `github` passes its own
 * lines after its command prefixes.
 */
export const OBSERVED_RENDERERS = {
  text: (report) => neutralizeCommands(renderObservedText(report), 'text'),
  json: (report) => neutralizeCommands(renderObservedJson(report), 'json'),
  markdown: (report) => neutralizeCommands(renderObservedMarkdown(report), 'backslash'),
  sarif: (report, options) => neutralizeCommands(renderObservedSarif(report, options.version), 'json'),
  junit: (report) => neutralizeCommands(renderObservedJunit(report), 'xml'),
  github: (report) => renderObservedGithub(report),
  html: (report) => neutralizeCommands(renderObservedHtml(report), 'xml'),
} as const satisfies Readonly<Record<string, ObservedRenderer>>;

/** The name of a format of the observed report. */
export type ObservedFormatName = keyof typeof OBSERVED_RENDERERS;

/** The names of the observed report's formats. */
export const OBSERVED_FORMAT_NAMES = Object.keys(OBSERVED_RENDERERS) as ObservedFormatName[];

/** Whether `name` names a format of the observed report. */
export function isObservedFormat(name: string): name is ObservedFormatName {
  return Object.hasOwn(OBSERVED_RENDERERS, name);
}
