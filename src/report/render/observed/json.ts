/**
 * The observed report as JSON: the validated report itself, so `merge` can read it back. Characters a
 * terminal would act on or hide are written as `\u` escapes; the JSON parses back to exactly the report.
 */
import { jsonVisible } from '../../../escape.js';
import { type ObservedReport, ObservedReportSchema } from '../../observed-schema.js';

/**
 * Renders an observed report as JSON (validated against `ObservedReportSchema` first).
 *
 * @param report - the report
 * @returns pretty-printed JSON, ending with a newline
 */
export function renderObservedJson(report: ObservedReport): string {
  return `${jsonVisible(JSON.stringify(ObservedReportSchema.parse(report), null, 2))}\n`;
}
