/**
 * How a LangGraph tree's places read in the coverage report (`coverage.ts` builds it, as for Strands: the same
 * rows, statuses, summary and exit rule), each row naming its framework. Pure: reads marks, runs nothing.
 */
import { type Finding, type GateConflict } from '../errors.js';
import { configuredDefaultGate, type Gate } from '../enforce/gate.js';
import { CONFIGURED, DEFAULT_DECISION_TIMEOUT_MS, type GateSource, gateSource } from '../enforce/gate-source.js';
import { langGraphAdapter, notAGraph } from '../frameworks/langgraph/adapter.js';
import { acceptedLangGraph, type LangGraphAccept, planLangGraph } from '../frameworks/langgraph/install.js';
import type { FrameworkAdapter } from '../frameworks/seam.js';
import { joinPath } from '../tree-paths.js';
import { type SeamEntry, seamWalk } from '../walker/seam-walk.js';
import { installedVersion, LANGGRAPH_TESTED } from '../frameworks/langgraph/version.js';
import { inTestedRange } from '../frameworks/versions.js';
import { gateAuditVersion } from './own-version.js';
import { gatedVerdict, type Verdict } from './gate-verdict.js';
import { buildCoverage, conflictRefusal, type Refusal } from './coverage.js';
import type { CoverageNode, CoverageReport, Generator } from './schema.js';

const KIND: Record<SeamEntry['kind'], CoverageNode['kind']> = {
  orchestrator: 'graph',
  agent: 'agent',
  remote: 'remote',
  custom: 'custom',
};

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
      (parent === undefined ? undefined : adapter.acceptedAt(parent.target, entry.id, entry.target));
    // Only a problem `accept` may acknowledge (a cycle, a broken tool node never are).
    if (reason !== undefined && entry.problem.acceptable) {
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
  let refusals: Refusal[] = [];
  let wouldInstall: GateSource | undefined;
  if (options.mode === 'plan' && options.source !== undefined) {
    try {
      planLangGraph(root, options.source, options.accept);
      wouldInstall = options.source;
    } catch (error) {
      const findings = (error as { findings?: readonly Finding[] }).findings;
      const conflicts = (error as { conflicts?: readonly GateConflict[] }).conflicts;
      if (findings !== undefined) refusals = findings.map((f) => ({ ...f }));
      else if (conflicts !== undefined) refusals = conflicts.map((c) => conflictRefusal(c, 'tool node'));
      else throw error;
    }
  }
  return buildCoverage(
    { mode: options.mode, entries: inventory.entries, rootKind: 'graph', refusals, generator },
    {
      framework: 'langgraph',
      kind: (entry) => KIND[entry.kind],
      verdict: (entry) => judge(adapter, entry, entry.parent, accepted, wouldInstall),
      details: (entry) => ({ tools: entry.tools.map((tool) => tool.name), toolsUnknownUntilInit: false, warnings: [] }),
      declares: (entry) => entry.declares !== undefined,
      declaredReason: (worst) => `function node that runs its declared graph "${worst.id}"`,
    },
  );
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
