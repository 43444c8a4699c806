/**
 * What judges a tree in the audit: the Strands audit (`report/audit.ts`, which loads `@strands-agents/sdk`) when the
 * SDK is installed, else the LangGraph audit alone (`report/langgraph.ts`), so the audit runs in a LangGraph.js-only app. Both
 * frameworks are optional peers. Loaded once per process, before any audited module runs, so the SDK copy
 * gate-audit checks against is the one loaded first.
 */
import { GateAuditError } from '../errors.js';
import { installedVersion } from '../frameworks/langgraph/version.js';
import { SDK_PACKAGE, strandsSdkInstalled } from '../frameworks/strands/sdk-package.js';
import type { Framework } from '../frameworks/seam.js';
import type { AuditOptions } from '../report/audit.js';
import { gateAuditVersion, mergeGenerators } from '../report/own-version.js';
import type { CoverageReport, Generator } from '../report/schema.js';
import { langGraphAudit, langGraphGenerator, langGraphPlan } from '../report/langgraph.js';

/** The audit and plan of one tree, and the generator of a run's report. */
export interface Judges {
  /** Whether `@strands-agents/sdk` is installed (without it, only LangGraph trees are audited). */
  readonly strands: boolean;
  /** `audit(root, options)` of the installed frameworks. */
  readonly audit: (root: unknown, options?: AuditOptions) => CoverageReport;
  /** `plan(root, options)` of the installed frameworks. */
  readonly plan: (root: unknown, options?: AuditOptions) => CoverageReport;
  /**
   * The `generator` of a report holding trees of these frameworks: each one's package and whether it was tested
   * (with none, the installed framework's, Strands first).
   */
  readonly generator: (frameworks: ReadonlySet<Framework>) => Generator;
}

/** The frameworks of a report's trees, from its rows (a row without `framework` is a Strands row). */
export function frameworksOf(reports: readonly CoverageReport[]): Set<Framework> {
  return new Set(reports.flatMap((report) => report.nodes.map((node) => node.framework ?? 'strands')));
}

/**
 * The error for a tree that is not a LangGraph one where `@strands-agents/sdk` is not installed.
 *
 * @param where - the tree's name in messages (`module#export`)
 */
export function withoutStrands(where: string): GateAuditError {
  return new GateAuditError(
    'LOAD_FAILED',
    `cannot audit "${where}": it is not a LangGraph compiled graph or createAgent agent, and ${SDK_PACKAGE} (which the audit of a Strands Graph, Swarm or Agent needs) cannot be resolved from gate-audit | npm i -D ${SDK_PACKAGE}`,
  );
}

function generatorOf(frameworks: ReadonlySet<Framework>, strands: (() => Generator) | undefined): Generator {
  const parts: Generator[] = [];
  const none = frameworks.size === 0;
  if (frameworks.has('strands') || (none && strands !== undefined)) {
    parts.push(strands?.() ?? { name: 'gate-audit', version: gateAuditVersion(), sdk: 'unknown', sdkTested: false });
  }
  if (frameworks.has('langgraph') || (none && strands === undefined && installedVersion('@langchain/langgraph'))) {
    parts.push(langGraphGenerator());
  }
  const [only] = parts;
  if (only === undefined) return { name: 'gate-audit', version: gateAuditVersion(), sdk: 'none', sdkTested: false };
  return parts.length === 1 ? only : mergeGenerators(parts);
}

let loaded: Judges | undefined;

/**
 * Loads the judges of this process (once): with `@strands-agents/sdk` installed, the audit of both frameworks;
 * without it, the LangGraph audit alone (the caller refuses any other value first, with `withoutStrands`).
 */
export async function loadJudges(): Promise<Judges> {
  if (loaded !== undefined) return loaded;
  if (strandsSdkInstalled()) {
    const [{ audit, plan }, { checkedGenerator }] = await Promise.all([
      import('../report/audit.js'),
      import('../report/generator.js'),
    ]);
    loaded = { strands: true, audit, plan, generator: (frameworks) => generatorOf(frameworks, checkedGenerator) };
  } else {
    // A value that is not a LangGraph tree is refused by the caller with `withoutStrands`, naming it.
    loaded = {
      strands: false,
      audit: langGraphAudit,
      plan: langGraphPlan,
      generator: (frameworks) => generatorOf(frameworks, undefined),
    };
  }
  return loaded;
}

/** The judges `loadJudges` loaded (it must have been awaited first: this is a programming error otherwise). */
export function judges(): Judges {
  if (loaded === undefined) throw new Error('gate-audit: loadJudges() was not awaited before the audit');
  return loaded;
}
