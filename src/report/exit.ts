/**
 * The one exit rule every output cites (the CLI, `merge`, annotations, the vitest matcher):
 *
 * - **1** when any node is `ungated`, `ungateable` or `blocked`, or any orchestrator is not gated;
 * - `attested` and `accepted` never fail a run;
 * - with a minimum coverage, the node condition is replaced by the ratio: fail only when
 *   (gated + attested) / (tool-running nodes − accepted) is under the minimum (the exact ratio, not a
 *   rounded percent); an orchestrator that is not gated still fails, since coverage counts tool-running
 *   nodes only and a Graph without its guard would otherwise pass at 100%;
 * - `exitZero` never fails on coverage;
 * - a note that fails the run (`--require-gate`, `--fail-on-unaudited`, `--require-process-guard`, a tree the
 *   module's own `installMultiagent` refused) fails it with 1, except under `exitZero`; a module or entry that
 *   failed to load fails it with 2, `exitZero` or not (`judgeRun`).
 */
import type { CoverageNode, CoverageNote, CoverageReport, NodeStatus } from './schema.js';

/** How a run is judged. */
export interface ExitRule {
  /** Minimum coverage in percent (0–100); replaces the per-node condition by the ratio. */
  readonly minCoverage?: number;
  /** Never fail on coverage. */
  readonly exitZero?: boolean;
}

/** Statuses that fail a run under the per-node condition. */
export const FAILING_STATUSES: ReadonlySet<NodeStatus> = new Set(['ungated', 'ungateable', 'blocked']);

const TOOL_RUNNING: ReadonlySet<string> = new Set(['agent', 'agent-tool', 'remote', 'custom']);

/** Whether a node is an orchestrator (a Graph or Swarm). */
export function isOrchestratorNode(node: CoverageNode): boolean {
  return node.kind === 'graph' || node.kind === 'swarm';
}

/** Whether a node runs tools (agents, agents used as tools, remote and custom executors). */
export function isToolRunningNode(node: CoverageNode): boolean {
  return TOOL_RUNNING.has(node.kind);
}

/**
 * The covered and counted tool-running nodes: coverage is `covered / counted` (1 when `counted` is 0).
 *
 * @param nodes - the report's nodes
 */
export function coverageCounts(nodes: readonly CoverageNode[]): { covered: number; counted: number } {
  let covered = 0;
  let counted = 0;
  for (const node of nodes) {
    if (!isToolRunningNode(node) || node.status === 'accepted') continue;
    counted += 1;
    if (node.status === 'gated' || node.status === 'attested') covered += 1;
  }
  return { covered, counted };
}

/**
 * Whether a node fails the run under the rule (without `exitZero`): the orchestrator condition always,
 * the status condition only without a minimum coverage.
 *
 * @param node - one node
 * @param rule - the rule in force
 */
export function nodeFailsRun(node: CoverageNode, rule: ExitRule = {}): boolean {
  if (isOrchestratorNode(node) && node.status !== 'gated') return true;
  return rule.minCoverage === undefined && FAILING_STATUSES.has(node.status);
}

/** Whether coverage is under the minimum, by the exact ratio. */
export function underMinimum(nodes: readonly CoverageNode[], minCoverage: number): boolean {
  const { covered, counted } = coverageCounts(nodes);
  if (counted === 0) return false;
  // covered / counted < min / 100, without rounding either side.
  return covered * 100 < minCoverage * counted;
}

/**
 * The exit code of a report under the rule: 0 or 1 (usage and load errors, 2, are decided before).
 *
 * @param report - the report
 * @param rule - minimum coverage and exit-zero
 */
export function exitCodeOf(report: Pick<CoverageReport, 'nodes'>, rule: ExitRule = {}): 0 | 1 {
  if (rule.exitZero === true) return 0;
  if (report.nodes.some((node) => nodeFailsRun(node, rule))) return 1;
  if (rule.minCoverage !== undefined && underMinimum(report.nodes, rule.minCoverage)) return 1;
  return 0;
}

/** How each kind of note that fails a run is counted in a verdict: one, and many. */
const FAILING_NOTE_WORDS: Readonly<Record<CoverageNote['kind'], readonly [string, string]>> = {
  load: ['module or entry that failed to load', 'modules or entries that failed to load'],
  'refused-tree': ['tree installMultiagent refused', 'trees installMultiagent refused'],
  'gate-mismatch': ['node under another gate (--require-gate)', 'nodes under another gate (--require-gate)'],
  'unaudited-export': ['export not audited (--fail-on-unaudited)', 'exports not audited (--fail-on-unaudited)'],
  'process-guard': [
    'entry without the process guard (--require-process-guard)',
    'entries without the process guard (--require-process-guard)',
  ],
  'skipped-module': ['module skipped', 'modules skipped'],
  'invoked-at-import': ['invocation at import', 'invocations at import'],
  'writable-keyring': ['writable keyring accepted', 'writable keyrings accepted'],
};

/** The kinds of note in the order a verdict names them. */
const NOTE_ORDER: readonly CoverageNote['kind'][] = [
  'load',
  'refused-tree',
  'gate-mismatch',
  'unaudited-export',
  'process-guard',
  'skipped-module',
  'invoked-at-import',
  'writable-keyring',
];

/**
 * Whether a note fails the run under the rule: a load failure always, another note marked `fails` unless
 * `exitZero`.
 *
 * @param note - one note
 * @param rule - the rule in force
 */
export function noteFailsRun(note: CoverageNote, rule: ExitRule = {}): boolean {
  return note.kind === 'load' || (rule.exitZero !== true && note.fails === true);
}

/** How a run is judged by the one exit rule, from its report alone. */
export interface RunJudgement {
  /** 2 when a module or entry failed to load (whatever else, `exitZero` too), 1 when the run fails, else 0. */
  readonly exitCode: 0 | 1 | 2;
  /** Nodes that fail the run under the rule (0 under `exitZero`). */
  readonly failingNodes: number;
  /** Whether coverage is under the minimum (never under `exitZero`). */
  readonly underMinimum: boolean;
  /**
   * Every reason the run fails outside its nodes, in words with counts and no data (`2 nodes under another
   * gate (--require-gate)`): the notes that fail it, a load failure always.
   */
  readonly outside: readonly string[];
}

/**
 * Judges a run by the one exit rule: its nodes, its minimum coverage and the notes that fail it (`fails`, a
 * load failure always). The CLI's exit code and every format's verdict come from here, for a run and for a
 * `merge` of its shards alike.
 *
 * @param report - the report (nodes and notes)
 * @param rule - minimum coverage and exit-zero
 */
export function judgeRun(report: Pick<CoverageReport, 'nodes' | 'notes'>, rule: ExitRule = {}): RunJudgement {
  const zero = rule.exitZero === true;
  const counts = new Map<CoverageNote['kind'], number>();
  for (const note of report.notes ?? []) {
    if (!noteFailsRun(note, rule)) continue;
    counts.set(note.kind, (counts.get(note.kind) ?? 0) + 1);
  }
  const outside = NOTE_ORDER.filter((kind) => counts.has(kind)).map((kind) => {
    const n = counts.get(kind) ?? 0;
    const [one, many] = FAILING_NOTE_WORDS[kind];
    return `${n} ${n === 1 ? one : many}`;
  });
  const failingNodes = zero ? 0 : report.nodes.filter((node) => nodeFailsRun(node, rule)).length;
  const under = !zero && rule.minCoverage !== undefined && underMinimum(report.nodes, rule.minCoverage);
  const exitCode = counts.has('load') ? 2 : failingNodes > 0 || under || outside.length > 0 ? 1 : 0;
  return { exitCode, failingNodes, underMinimum: under, outside };
}

/**
 * Checks a minimum coverage given by a user: a percent from 0 to 100. A fraction such as `0.8` is refused
 * with the percent it probably meant, since `0.8` would otherwise silently mean 0.8%.
 *
 * @param value - the number given
 * @returns a description of the problem, or undefined when it is a valid percent
 */
export function minCoverageProblem(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0 || value > 100) return 'expected a percentage from 0 to 100';
  if (value > 0 && value < 1) {
    return `expected a percentage from 0 to 100, got the fraction ${value} | write ${Math.round(value * 10000) / 100} for ${Math.round(value * 10000) / 100}%`;
  }
  return undefined;
}
