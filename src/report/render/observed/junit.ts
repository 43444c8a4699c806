/**
 * The observed report as JUnit XML: one test case per agent and tool (class name: the agent, with every `.`
 * written `․` so CI viewers do not split it into packages; name: the tool), failing when a call ran
 * undecided. Drift notes are skipped cases of a suite `gate-audit notes`. Values from data go through the
 * audit's `xml` writer (shown with `visible`, then anything XML 1.0 refuses removed, then the specials escaped).
 */
import { rowAgent } from '../../observed.js';
import type { ObservedReport } from '../../observed-schema.js';
import { xml } from '../junit.js';

const ONE_DOT_LEADER = '\u2024';

/**
 * Renders an observed report as JUnit XML.
 *
 * @param report - the report
 * @returns the XML, ending with a newline
 */
export function renderObservedJunit(report: ObservedReport): string {
  const cases: string[] = [];
  let failures = 0;
  for (const row of report.rows) {
    const open = `    <testcase classname="${xml(`gate-audit observed › ${rowAgent(row)}`.replaceAll('.', ONE_DOT_LEADER))}" name="${xml(row.tool)}" time="0">`;
    if (row.undecided === 0) {
      cases.push(`${open}</testcase>`);
      continue;
    }
    failures += 1;
    const message = `${row.undecided} of ${row.calls} calls ran undecided`;
    cases.push(
      `${open}\n      <failure type="undecided" message="${xml(message)}">${xml(`${rowAgent(row)} ran ${row.tool} undecided ${row.undecided} times (${row.firstSeen} to ${row.lastSeen})`)}</failure>\n    </testcase>`,
    );
  }
  const notes = report.notes.map(
    (note) =>
      `    <testcase classname="gate-audit notes" name="${xml(note.kind)}" time="0">\n      <skipped message="${xml(note.message)}"/>\n    </testcase>`,
  );
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gate-audit observed" tests="${cases.length + notes.length}" failures="${failures}" errors="0" skipped="${notes.length}">`,
    `  <testsuite name="gate-audit observed" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`,
  ];
  // One push per case: spreading many cases into one call overflows the stack.
  for (const testcase of cases) lines.push(testcase);
  lines.push('  </testsuite>');
  if (notes.length > 0) {
    lines.push(
      `  <testsuite name="gate-audit notes" tests="${notes.length}" failures="0" errors="0" skipped="${notes.length}">`,
    );
    for (const testcase of notes) lines.push(testcase);
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
