/**
 * The summary every human-facing output shows, counted from the report's nodes (never copied from a
 * report's `summary`, so a saved report whose summary disagrees with its nodes still renders the truth).
 *
 * It never reads as a contradiction: coverage is said to be of tool-running nodes and is followed by their
 * own counts, orchestrators are counted apart (a Graph without its node guard is not a tool-running node,
 * so "coverage 100% of 1 … 1 ungated" cannot appear unexplained), attested and accepted nodes have their own
 * words (an attested node is covered, an accepted one is acknowledged and left out of coverage), and the
 * line ends with how many nodes are left to fix under the one exit rule.
 */
import { coverageCounts, isOrchestratorNode, isToolRunningNode, nodeFailsRun } from '../exit.js';
import type { CoverageNode, CoverageReport, GateIdentity, NodeStatus } from '../schema.js';
import { percent } from './glyphs.js';

/** Where an audited orchestrator came from. */
type CoverageSource = CoverageReport['sources'][number];

/** The statuses in the order summaries list them. */
export const STATUS_ORDER: readonly NodeStatus[] = [
  'gated',
  'attested',
  'accepted',
  'ungated',
  'ungateable',
  'blocked',
];

/** Counts of a report's nodes. */
export interface Tally {
  /** Every node. */
  readonly total: number;
  /** Nodes per status. */
  readonly byStatus: Readonly<Record<NodeStatus, number>>;
  /** Tool-running nodes (agents, agents used as tools, remote and custom executors) per status. */
  readonly toolRunning: Readonly<Record<NodeStatus, number>>;
  /** Orchestrators (Graphs and Swarms) per status. */
  readonly orchestrators: Readonly<Record<NodeStatus, number>>;
  /** Tool-running nodes counted by coverage (all but the accepted ones). */
  readonly counted: number;
  /** Counted nodes that are gated or attested. */
  readonly covered: number;
  /** Nodes that fail a run under the one exit rule without a minimum coverage. */
  readonly toFix: number;
}

const zero = (): Record<NodeStatus, number> => ({
  gated: 0,
  attested: 0,
  accepted: 0,
  ungated: 0,
  ungateable: 0,
  blocked: 0,
});

const sum = (counts: Readonly<Record<NodeStatus, number>>): number =>
  STATUS_ORDER.reduce((total, status) => total + counts[status], 0);

/**
 * Counts a report's nodes.
 *
 * @param nodes - the report's nodes
 */
export function tally(nodes: readonly CoverageNode[]): Tally {
  const byStatus = zero();
  const toolRunning = zero();
  const orchestrators = zero();
  let toFix = 0;
  for (const node of nodes) {
    if (!(node.status in byStatus)) continue;
    byStatus[node.status] += 1;
    if (isToolRunningNode(node)) toolRunning[node.status] += 1;
    else if (isOrchestratorNode(node)) orchestrators[node.status] += 1;
    if (nodeFailsRun(node)) toFix += 1;
  }
  const { covered, counted } = coverageCounts(nodes);
  return { total: nodes.length, byStatus, toolRunning, orchestrators, counted, covered, toFix };
}

/** The coverage ratio of a tally, or undefined when no tool-running node is counted. */
export function coverageOf(tally: Tally): number | undefined {
  return tally.counted === 0 ? undefined : tally.covered / tally.counted;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `3 gated, 1 ungated`: the statuses there are any of. */
function statusCounts(counts: Readonly<Record<NodeStatus, number>>, skip: NodeStatus | undefined): string {
  return STATUS_ORDER.filter((s) => s !== skip && counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`)
    .join(', ');
}

/** The parts of the summary line, so a format can style its head. */
export interface SummaryParts {
  /** `coverage 75%`, or `coverage n/a` when no tool-running node is counted. */
  readonly head: string;
  /** What follows the head, starting with a space. */
  readonly rest: string;
}

/**
 * The summary as one line of plain words (no data in it, only numbers):
 * `coverage 75% of 4 tool-running nodes (3 gated, 1 ungated) · 1 orchestrator (1 ungated) · 5 nodes, 2 to fix`;
 * when the run fails for reasons outside its nodes (`judgeRun`), it says so last:
 * `… · 5 nodes, nothing to fix in them · the run fails: 2 nodes under another gate (--require-gate)`.
 *
 * @param t - the tally
 * @param outside - the reasons the run fails outside its nodes (`judgeRun(report, rule).outside`)
 */
export function summaryParts(t: Tally, outside: readonly string[] = []): SummaryParts {
  const ratio = coverageOf(t);
  const parts: string[] = [];
  parts.push(
    ratio === undefined
      ? ' (no tool-running node to count)'
      : ` of ${plural(t.counted, 'tool-running node')} (${statusCounts(t.toolRunning, 'accepted')})`,
  );
  if (t.toolRunning.accepted > 0) parts.push(` · ${t.toolRunning.accepted} accepted, not counted`);
  const orchestrators = sum(t.orchestrators);
  if (orchestrators > 0) {
    parts.push(` · ${plural(orchestrators, 'orchestrator')} (${statusCounts(t.orchestrators, undefined)})`);
  }
  parts.push(
    ` · ${plural(t.total, 'node')}, ${t.toFix === 0 ? 'nothing' : t.toFix} to fix${outside.length > 0 ? ' in them' : ''}`,
  );
  if (outside.length > 0) parts.push(` · the run fails: ${outside.join(', ')}`);
  return { head: `coverage ${ratio === undefined ? 'n/a' : percent(ratio)}`, rest: parts.join('') };
}

/**
 * The summary line.
 *
 * @param t - the tally
 * @param outside - the reasons the run fails outside its nodes
 */
export function summaryLine(t: Tally, outside: readonly string[] = []): string {
  const { head, rest } = summaryParts(t, outside);
  return `${head}${rest}`;
}

/**
 * A short verdict for headings: `✘ not fully gated`, `✔ fully gated`, or, when nothing is left to fix
 * but some nodes are attested or accepted, `✔ nothing to fix (1 attested, 1 accepted)`. A run that fails
 * for reasons outside its nodes is never "fully gated": `✘ the run fails: 1 module or entry that failed to
 * load`.
 *
 * @param t - the tally
 * @param outside - the reasons the run fails outside its nodes (`judgeRun(report, rule).outside`)
 */
export function verdict(t: Tally, outside: readonly string[] = []): string {
  if (outside.length > 0) {
    return `✘ the run fails: ${[...(t.toFix > 0 ? [`${t.toFix} ${t.toFix === 1 ? 'node' : 'nodes'} to fix`] : []), ...outside].join(', ')}`;
  }
  if (t.toFix > 0) return `✘ not fully gated: ${t.toFix} to fix`;
  if (t.byStatus.gated === t.total) return '✔ fully gated';
  const others = STATUS_ORDER.filter((s) => s !== 'gated' && t.byStatus[s] > 0).map((s) => `${t.byStatus[s]} ${s}`);
  return `✔ nothing to fix (${others.join(', ')})`;
}

/** One gate of a report, numbered for the legend. */
export interface GateEntry {
  /** 1-based number, in order of first appearance. */
  readonly number: number;
  readonly gate: GateIdentity;
  /** How many nodes carry it. */
  readonly nodes: number;
  /** Another entry with the same name and a different id: names are not identities. */
  readonly sameNameAs: number | undefined;
}

/**
 * The distinct gates of a report and the entry of each node that carries one.
 *
 * @param nodes - the report's nodes
 */
export function gateLegend(nodes: readonly CoverageNode[]): {
  entries: GateEntry[];
  of: (node: CoverageNode) => GateEntry | undefined;
} {
  const byKey = new Map<string, { number: number; gate: GateIdentity; nodes: number }>();
  const ofNode = new Map<CoverageNode, string>();
  for (const node of nodes) {
    if (node.gate === undefined) continue;
    const key = JSON.stringify([node.gate.name, node.gate.id, node.gate.perProcess === true]);
    const entry = byKey.get(key) ?? { number: byKey.size + 1, gate: node.gate, nodes: 0 };
    entry.nodes += 1;
    byKey.set(key, entry);
    ofNode.set(node, key);
  }
  const firstByName = new Map<string, number>();
  const entries: GateEntry[] = [...byKey.values()].map((entry) => {
    const first = firstByName.get(entry.gate.name);
    if (first === undefined) firstByName.set(entry.gate.name, entry.number);
    return { ...entry, sameNameAs: first };
  });
  const byNumber = new Map(entries.map((entry) => [entry.number, entry]));
  return {
    entries,
    of: (node) => {
      const key = ofNode.get(node);
      return key === undefined ? undefined : byNumber.get(byKey.get(key)?.number ?? 0);
    },
  };
}

/**
 * The source (module and export) a node was loaded from: the one whose path is the longest prefix of the
 * node's path, or undefined when the report names none.
 *
 * @param sources - the report's sources
 * @param path - the node's path
 */
export function sourceOf(sources: readonly CoverageSource[], path: readonly string[]): CoverageSource | undefined {
  let best: CoverageSource | undefined;
  for (const source of sources) {
    if (source.path.length > path.length || (best !== undefined && source.path.length <= best.path.length)) continue;
    if (source.path.every((segment, i) => path[i] === segment)) best = source;
  }
  return best;
}
