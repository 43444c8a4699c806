/**
 * The JUnit XML report: one test case per node, failing when the node is not gated, so CI test
 * dashboards show coverage holes next to test failures.
 */
import { type CoverageReport, isCovered } from '../schema.js';

function xml(text: string): string {
  return (
    text
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&apos;')
      // XML 1.0 forbids these control characters.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

/**
 * Renders a report as JUnit XML.
 *
 * @param report - the report
 * @returns the XML, ending with a newline
 */
export function renderJunit(report: CoverageReport): string {
  const failures = report.nodes.filter((n) => !isCovered(n.status)).length;
  const tests = report.nodes.length;
  const cases = report.nodes.map((n) => {
    const classname = xml(['gate-audit', ...n.path.slice(0, -1)].join('.'));
    const open = `    <testcase classname="${classname}" name="${xml(n.id)}" time="0">`;
    if (isCovered(n.status)) return `${open}</testcase>`;
    const body = xml(`${n.path.join(' › ')}: ${n.reason}${n.fix === undefined ? '' : `\nfix: ${n.fix}`}`);
    return `${open}\n      <failure type="${n.status}" message="${xml(`${n.status}: ${n.reason}`)}">${body}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gate-audit" tests="${tests}" failures="${failures}" errors="0">`,
    `  <testsuite name="${xml(report.root.id)}" tests="${tests}" failures="${failures}" errors="0" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
