/**
 * The coverage report of a tree walked through a framework adapter (LangGraph today): the same rows, statuses,
 * summary and exit rule as a Strands tree's, each row naming its framework. Pure: reads marks, runs nothing.
 */
import type { Finding } from '../errors.js';
import type { GateSource } from '../enforce/call.js';
import { configuredDefaultGate, type Gate } from '../enforce/gate.js';
import { CONFIGURED, DEFAULT_DECISION_TIMEOUT_MS, gateSource } from '../enforce/gate-source.js';
import { langGraphAdapter, notAGraph } from '../frameworks/langgraph/adapter.js';
import { acceptedLangGraph, type LangGraphAccept, planLangGraph } from '../frameworks/langgraph/install.js';
import type { FrameworkAdapter } from '../frameworks/seam.js';
import { joinPath } from '../tree-paths.js';
import { type SeamEntry, seamWalk } from '../walker/seam-walk.js';
import { installedVersion, LANGGRAPH_TESTED } from '../frameworks/langgraph/version.js';
import { inTestedRange } from '../frameworks/versions.js';
import { gateAuditVersion } from './own-version.js';
import { gatedVerdict, type Verdict } from './gate-verdict.js';
import { summarize } from './lines.js';
import {
  type CoverageNode,
  type CoverageReport,
  CoverageReportSchema,
  type Generator,
  SCHEMA_VERSION,
} from './schema.js';

const KIND: Record<SeamEntry['kind'], CoverageNode['kind']> = {
  orchestrator: 'graph',
  agent: 'agent',
  remote: 'remote',
  custom: 'custom',
};

const SEVERITY: readonly CoverageNode['status'][] = ['ungated', 'ungateable', 'blocked', 'accepted'];

function judge(
  adapter: FrameworkAdapter<unknown>,
  entry: SeamEntry,
  parent: SeamEntry | undefined,
  accepted: ReadonlyMap<string, string>,
  wouldInstall: GateSource | undefined,
): Verdict {
  if (entry.problem !== undefined) {
    const reason =
      accepted.get(joinPath(entry.path)) ??
      (parent === undefined ? undefined : adapter.acceptedAt(parent.target, entry.id));
    if (reason !== undefined) {
      return {
        status: 'accepted',
        reason: `accepted: ${reason} (it ${entry.problem.reason})`,
        problem: entry.problem.kind,
      };
    }
    return { status: 'ungateable', reason: entry.problem.reason, fix: entry.problem.fix, problem: entry.problem.kind };
  }
  if (entry.kind === 'custom') {
    return {
      status: 'attested',
      reason: `function node that declares what it runs (${entry.declares ?? 0} subgraphs)`,
    };
  }
  const orchestrator = entry.kind === 'orchestrator';
  const state = adapter.gateState(entry.target);
  if (state.state === 'gated') {
    return gatedVerdict(
      state.gateKey,
      orchestrator ? 'node guard installed' : 'gate installed on the tool node and its tools',
    );
  }
  if (wouldInstall !== undefined) {
    return gatedVerdict(
      wouldInstall.key,
      orchestrator ? 'node guard would be installed' : 'gate would be installed on the tool node and its tools',
    );
  }
  return orchestrator
    ? {
        status: 'ungated',
        reason: 'has no node guard: a node swapped or added later would run unchecked',
        fix: 'call installMultiagent on the root graph',
      }
    : {
        status: 'ungated',
        reason: 'tool node without a gate: its tools run unjudged',
        fix: 'call installMultiagent on the root graph',
      };
}

/** The `generator` of a LangGraph report: gate-audit's version, the `@langchain/langgraph` copy, and whether it was tested. */
export function langGraphGenerator(): Generator {
  const version = installedVersion('@langchain/langgraph') ?? 'unknown';
  return {
    name: 'gate-audit',
    version: gateAuditVersion(),
    sdk: `@langchain/langgraph@${version}`,
    sdkTested: inTestedRange(version, LANGGRAPH_TESTED['@langchain/langgraph']!),
  };
}

/** Options of a framework report. */
export interface SeamReportOptions {
  readonly mode: 'audit' | 'plan';
  readonly accept?: readonly LangGraphAccept[];
  /** `plan`: the gate install would be given (rows read as they would be after install). */
  readonly source?: GateSource;
}

/**
 * The report of a LangGraph tree.
 *
 * @param root - a compiled graph or a `createAgent` agent
 * @param options - mode, accepted nodes, and for a plan the gate install would use
 */
export function langGraphReport(root: unknown, options: SeamReportOptions): CoverageReport {
  if (langGraphAdapter.recognise(root) === undefined) throw notAGraph(options.mode);
  const generator = langGraphGenerator();
  const adapter = langGraphAdapter;
  const inventory = seamWalk(adapter, root);
  const accepted = acceptedLangGraph(inventory, options.accept);
  let refusals: (Pick<Finding, 'path' | 'reason' | 'fix'> & { kind: string })[] = [];
  let wouldInstall: GateSource | undefined;
  if (options.mode === 'plan' && options.source !== undefined) {
    try {
      planLangGraph(root, options.source, options.accept);
      wouldInstall = options.source;
    } catch (error) {
      const findings = (error as { findings?: readonly Finding[] }).findings;
      const conflicts = (
        error as { conflicts?: readonly { path: readonly string[]; existing: string; requested: string }[] }
      ).conflicts;
      if (findings !== undefined) refusals = findings.map((f) => ({ ...f }));
      else if (conflicts !== undefined) {
        refusals = conflicts.map((c) => ({
          path: c.path,
          kind: 'gate-conflict',
          reason: `carries gate "${c.existing}", not "${c.requested}"`,
          fix: 'install every tool node with one gate (pass the same gate object), or remove the other gate first',
        }));
      } else throw error;
    }
  }
  const rows = new Map<string, CoverageNode>();
  const nodes: CoverageNode[] = [];
  const edges: CoverageReport['edges'] = [];
  const entryAt = new Map(inventory.entries.map((entry) => [joinPath(entry.path), entry]));
  for (const entry of inventory.entries) {
    const parent = entry.path.length > 1 ? entryAt.get(joinPath(entry.path.slice(0, -1))) : undefined;
    const first = entry.sameAs === undefined ? undefined : rows.get(joinPath(entry.sameAs));
    const verdict =
      first === undefined
        ? judge(adapter, entry, parent, accepted, wouldInstall)
        : { ...first, reason: `same object as ${first.path.join(' › ')}: ${first.reason}` };
    const node: CoverageNode = {
      path: [...entry.path],
      id: entry.id,
      kind: KIND[entry.kind],
      status: verdict.status,
      reason: verdict.reason,
      ...(verdict.fix === undefined ? {} : { fix: verdict.fix }),
      ...(verdict.problem === undefined ? {} : { problem: verdict.problem }),
      ...(verdict.gate === undefined ? {} : { gate: verdict.gate }),
      tools: first === undefined ? entry.tools.map((tool) => tool.name) : [],
      toolsUnknownUntilInit: false,
      warnings: [],
      ...(entry.sameAs === undefined ? {} : { sameAs: [...entry.sameAs] }),
      framework: 'langgraph',
    };
    rows.set(joinPath(entry.path), node);
    nodes.push(node);
    if (entry.path.length > 1) edges.push({ from: entry.path.slice(0, -1), to: [...entry.path], kind: 'contains' });
  }
  // A declaring function node answers with its worst declared child (it never reads covered above one that is not).
  for (const entry of [...inventory.entries].reverse()) {
    if (entry.declares === undefined || entry.problem !== undefined) continue;
    const row = rows.get(joinPath(entry.path))!;
    const children = nodes.filter(
      (n) => n.path.length === entry.path.length + 1 && joinPath(n.path.slice(0, -1)) === joinPath(entry.path),
    );
    for (const status of SEVERITY) {
      const worst = children.find((child) => child.status === status);
      if (worst === undefined) continue;
      row.status = status;
      row.reason = `function node that runs its declared graph "${worst.id}", which is ${status}: ${worst.reason}`;
      if (worst.fix !== undefined) row.fix = worst.fix;
      break;
    }
  }
  return CoverageReportSchema.parse({
    schemaVersion: SCHEMA_VERSION,
    mode: options.mode,
    root: { id: inventory.root.id, kind: 'graph' },
    nodes,
    edges,
    summary: summarize(nodes),
    refusals: refusals.map((f) => ({ path: [...f.path], kind: f.kind, reason: f.reason, fix: f.fix })),
    sources: [],
    generator,
  });
}

/** Options of `audit` and `plan` of a LangGraph tree. */
export interface LangGraphAuditOptions {
  readonly accept?: readonly LangGraphAccept[];
  /** `plan` only: the gate install would be given (without it, the configured gate). */
  readonly gate?: Gate;
}

/**
 * Audits a LangGraph tree as it stands. Pure.
 *
 * @param root - a compiled graph or a `createAgent` agent
 * @param options - accepted nodes
 */
export function langGraphAudit(root: unknown, options: LangGraphAuditOptions = {}): CoverageReport {
  return langGraphReport(root, { mode: 'audit', ...(options.accept === undefined ? {} : { accept: options.accept }) });
}

/**
 * What `installMultiagent` would leave of a LangGraph tree, or the tree as it stands plus every refusal.
 *
 * @param root - a compiled graph or a `createAgent` agent
 * @param options - accepted nodes, and the gate install would be given
 */
export function langGraphPlan(root: unknown, options: LangGraphAuditOptions = {}): CoverageReport {
  const source: GateSource =
    options.gate === undefined && configuredDefaultGate() === undefined
      ? { key: CONFIGURED, name: CONFIGURED, resolve: configuredDefaultGate, timeoutMs: DEFAULT_DECISION_TIMEOUT_MS }
      : gateSource(options.gate === undefined ? undefined : { gate: options.gate }, 'plan(graph)');
  return langGraphReport(root, {
    mode: 'plan',
    ...(options.accept === undefined ? {} : { accept: options.accept }),
    source,
  });
}
