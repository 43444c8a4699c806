/**
 * The JSON report: the validated report itself, so it can be read back and rendered again. Characters a
 * terminal would act on or hide (C1 controls, bidi, line separators, zero-width…) are written as `\u`
 * escapes, so the JSON parses back to exactly the report and is safe to print.
 */
import { jsonVisible } from '../../escape.js';
import { type CoverageReport, CoverageReportSchema } from '../schema.js';

/**
 * Renders a report as JSON (validated against `CoverageReportSchema` first).
 *
 * @param report - the report
 * @returns pretty-printed JSON, ending with a newline
 */
export function renderJson(report: CoverageReport): string {
  return `${jsonVisible(JSON.stringify(CoverageReportSchema.parse(report), null, 2))}\n`;
}
