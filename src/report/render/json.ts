/**
 * The JSON report: the validated report itself, so it can be read back and rendered again.
 */
import { type CoverageReport, CoverageReportSchema } from '../schema.js';

/**
 * Renders a report as JSON (validated against `CoverageReportSchema` first).
 *
 * @param report - the report
 * @returns pretty-printed JSON, ending with a newline
 */
export function renderJson(report: CoverageReport): string {
  return `${JSON.stringify(CoverageReportSchema.parse(report), null, 2)}\n`;
}
