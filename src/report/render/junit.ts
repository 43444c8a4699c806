/**
 * The JUnit XML report: one test case per node, failing when the node fails a run under the one exit
 * rule, skipped (with its reason) when it is accepted, so CI test dashboards show coverage holes next to
 * test failures.
 *
 * The CLI's notes are the cases of a suite `gate-audit notes`: a failure where the note fails the run, skipped
 * otherwise.
 *
 * A bundle of several modules gives one test suite per module (`module#export`), so a module's path is a
 * suite name and never a class name. Class names are the node's parents within its module, joined with
 * ` › `, with every `.` written `․` (U+2024 ONE DOT LEADER): CI viewers split class names at dots into
 * packages, and an id like `v1.2` or `app.graph` must not become two.
 *
 * Values from data are shown with `visible`, then every character outside the XML 1.0 set is removed
 * (none is left by then; the removal stands on its own so no code path can write an ill-formed file), then
 * the five XML specials are escaped.
 */
import { visible, visiblePath } from '../../escape.js';
import { nodeFailsRun } from '../exit.js';
import type { CoverageNode, CoverageReport } from '../schema.js';
import { noteLines } from './notes.js';
import { sourceOf } from './summary.js';

// Everything XML 1.0 does not allow: C0 controls but tab, LF and CR; lone surrogates; U+FFFE and U+FFFF.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Cs}/gu;
const SPECIALS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * Text made safe for XML content and attribute values, with nothing hidden.
 *
 * @param text - a value from data (or already neutralised text)
 */
export function xml(text: string): string {
  return visible(text)
    .replace(NOT_XML, '')
    .replace(/[&<>"']/g, (c) => SPECIALS[c] ?? c);
}

/** Removes what XML 1.0 does not allow, and escapes the specials, from text that is already visible. */
const xmlOwn = (text: string): string => text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => SPECIALS[c] ?? c);

const ONE_DOT_LEADER = '\u2024';

interface Suite {
  readonly name: string;
  readonly cases: string[];
  failures: number;
  skipped: number;
}

/**
 * Renders a report as JUnit XML.
 *
 * @param report - the report
 * @returns the XML, ending with a newline
 */
export function renderJunit(report: CoverageReport): string {
  const bundle = report.root.kind === 'bundle';
  const suites = new Map<string, Suite>();
  const suiteNamed = (name: string): Suite => {
    const suite = suites.get(name) ?? { name, cases: [], failures: 0, skipped: 0 };
    suites.set(name, suite);
    return suite;
  };
  const suiteOf = (node: CoverageNode): { suite: Suite; base: number } => {
    const source = bundle ? sourceOf(report.sources, node.path) : undefined;
    const name =
      source !== undefined
        ? `${visible(source.module)}#${visible(source.export)}`
        : bundle
          ? visible(node.path[0] ?? report.root.id)
          : visible(report.root.id);
    return { suite: suiteNamed(name), base: bundle ? (source?.path.length ?? 1) : 0 };
  };
  let failures = 0;
  let skipped = 0;
  for (const n of report.nodes) {
    const { suite, base } = suiteOf(n);
    const parents = n.path.slice(Math.min(base, n.path.length - 1), -1);
    const classname = ['gate-audit', ...(parents.length > 0 ? [visiblePath(parents)] : [])]
      .join(' › ')
      .replaceAll('.', ONE_DOT_LEADER);
    const open = `    <testcase classname="${xmlOwn(classname)}" name="${xml(n.id)}" time="0">`;
    if (nodeFailsRun(n)) {
      suite.failures += 1;
      failures += 1;
      const body = `${visiblePath(n.path)}: ${visible(n.reason)}${n.fix === undefined ? '' : `\nfix: ${visible(n.fix)}`}`;
      suite.cases.push(
        `${open}\n      <failure type="${xml(n.status)}" message="${xml(`${n.status}: ${n.reason}`)}">${xmlOwn(body)}</failure>\n    </testcase>`,
      );
    } else if (n.status === 'accepted') {
      suite.skipped += 1;
      skipped += 1;
      suite.cases.push(`${open}\n      <skipped message="${xml(`accepted: ${n.reason}`)}"/>\n    </testcase>`);
    } else {
      suite.cases.push(`${open}</testcase>`);
    }
  }
  // The CLI's notes (exported functions not called, modules skipped, nodes under another gate) are cases of
  // their own suite: failing where the note fails the run, skipped otherwise, so a dashboard shows them too.
  for (const [i, line] of noteLines(report).entries()) {
    const note = report.notes?.[i];
    if (note === undefined) continue;
    const suite = suiteNamed('gate-audit notes');
    const open = `    <testcase classname="gate-audit notes" name="${xml(note.kind)}" time="0">`;
    if (note.fails === true) {
      suite.failures += 1;
      failures += 1;
      suite.cases.push(
        `${open}\n      <failure type="${xml(note.kind)}" message="${xmlOwn(line)}">${xmlOwn(line)}</failure>\n    </testcase>`,
      );
    } else {
      suite.skipped += 1;
      skipped += 1;
      suite.cases.push(`${open}\n      <skipped message="${xmlOwn(line)}"/>\n    </testcase>`);
    }
  }
  const tests = report.nodes.length + (report.notes?.length ?? 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gate-audit" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">`,
  ];
  if (suites.size === 0) suiteNamed(visible(report.root.id));
  for (const suite of suites.values()) {
    lines.push(
      `  <testsuite name="${xmlOwn(suite.name)}" tests="${suite.cases.length}" failures="${suite.failures}" errors="0" skipped="${suite.skipped}">`,
    );
    // One push per case: spreading a suite of 100,000 cases into one call overflows the stack.
    for (const testcase of suite.cases) lines.push(testcase);
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
