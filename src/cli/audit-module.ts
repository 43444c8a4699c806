/**
 * Auditing what one module gave, in the audit child: the trees it exports (with the config's `accept`
 * entries that reach them), the trees its own `installMultiagent` refused, and what it did not hand out.
 * The result is plain data (`ModuleOutcome`) the CLI combines with the other modules'.
 */
import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { type Finding, GateAuditError, messageOf } from '../errors.js';
import { escapeSegment, joinPath } from '../tree-paths.js';
import type { AuditOptions } from '../report/audit.js';
import { summarize } from '../report/lines.js';
import { isLangGraphValue } from '../frameworks/langgraph/adapter.js';
import { judges, withoutStrands } from './judges.js';
import { type CoverageNode, type CoverageNote, type CoverageReport, SCHEMA_VERSION } from '../report/schema.js';
import type { ProcessGuardMark } from '../enforce/process-guard.js';
import type { AcceptRule, ModuleOutcome } from './child/protocol.js';
import type { Config } from './config.js';
import type { FoundOrchestrator, ModuleResult, Refusal } from './load.js';

export function realOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

export const posix = (path: string): string => path.split(sep).join('/');

export function splitKey(key: string): { module?: string; exportName: string } {
  const at = key.lastIndexOf('#');
  return at === -1 ? { exportName: key } : { module: key.slice(0, at), exportName: key.slice(at + 1) };
}

/** The factories of the config, by module real path and export name. */
export class Factories {
  private readonly _specific = new Map<string, { field: string; key: string; calls: unknown[][] }>();
  private readonly _bare = new Map<string, unknown[][]>();

  constructor(config: Config, dir: string) {
    const entries: [string, unknown[][], string][] = Array.isArray(config.factories)
      ? config.factories.map((key, i) => [key, [[]], `factories[${i}]`])
      : Object.entries(config.factories ?? {}).map(([key, calls]) => [key, calls, `factories.${key}`]);
    for (const [key, calls, field] of entries) {
      const { module, exportName } = splitKey(key);
      if (module === undefined) this._bare.set(exportName, calls);
      else this._specific.set(`${realOf(`${dir}${sep}${module}`)}#${exportName}`, { field, key, calls });
    }
  }

  argumentsFor(absolute: string, exportName: string): unknown[][] | undefined {
    return this._specific.get(`${realOf(absolute)}#${exportName}`)?.calls ?? this._bare.get(exportName);
  }

  /** Entries naming a loaded module that has no such export: stale, an error. */
  stale(results: readonly { readonly absolute: string; readonly exports: readonly string[] }[]): {
    field: string;
    key: string;
    exports: string[];
  }[] {
    const stale: { field: string; key: string; exports: string[] }[] = [];
    for (const [at, entry] of this._specific) {
      const hash = at.lastIndexOf('#');
      const real = at.slice(0, hash);
      const exportName = at.slice(hash + 1);
      const result = results.find((r) => realOf(r.absolute) === real);
      if (result !== undefined && !result.exports.includes(exportName)) {
        stale.push({ field: entry.field, key: entry.key, exports: [...result.exports] });
      }
    }
    return stale;
  }
}

/** The `export` of a source whose module refused its tree while it loaded (no export was read). */
export const IMPORT_EXPORT = '(import)';

/** The kind a refused node most likely has, from the finding's kind (the tree itself was never handed out). */
const KIND_OF_FINDING: Readonly<Record<string, CoverageNode['kind']>> = {
  remote: 'remote',
  'custom-node': 'custom',
  'foreign-executor': 'custom',
  'agent-override': 'agent',
  'tool-executor': 'agent',
  'sdk-mismatch': 'custom',
  'custom-orchestrator': 'graph',
  topology: 'graph',
  cycle: 'graph',
};

/** A report of a tree the module's own `installMultiagent` refused: its findings as ungateable nodes. */
export function refusalReport(refusal: Refusal, planMode: boolean, hint: string): CoverageReport {
  const nodes: CoverageNode[] = refusal.findings.map((f: Finding) => ({
    path: [...f.path],
    id: f.path.at(-1) ?? '(root)',
    kind: KIND_OF_FINDING[f.kind] ?? 'custom',
    status: 'ungateable',
    reason: `${f.reason} (installMultiagent refused the tree ${refusal.exportName === undefined ? 'while the module loaded' : `in factory "${refusal.exportName}"`}${hint})`,
    fix: f.fix,
    problem: f.kind,
    tools: [],
    toolsUnknownUntilInit: false,
    warnings: [],
  }));
  const rootId = refusal.findings[0]?.path[0] ?? escapeSegment(refusal.module);
  return {
    schemaVersion: SCHEMA_VERSION,
    mode: planMode ? 'plan' : 'audit',
    root: { id: rootId, kind: 'bundle' },
    nodes,
    edges: [],
    summary: summarize(nodes),
    refusals: refusal.findings.map((f) => ({ path: [...f.path], kind: f.kind, reason: f.reason, fix: f.fix })),
    sources: [
      {
        module: refusal.module,
        export: refusal.exportName ?? IMPORT_EXPORT,
        path: [rootId],
        factory: refusal.exportName !== undefined,
      },
    ],
    generator: judges().generator(new Set()),
  };
}

/** A nesting cycle is bad input, not a coverage finding: such an orchestrator cannot run at all. */
export function refuseCycles(found: FoundOrchestrator, report: CoverageReport): void {
  const cycles = report.nodes.filter((n) => n.problem === 'cycle');
  const [first] = cycles;
  if (first === undefined) return;
  const more = cycles.length > 1 ? ` (and ${cycles.length - 1} more)` : '';
  throw new GateAuditError(
    'INVALID_ARGUMENT',
    `cannot audit "${found.module}#${found.label ?? found.exportName}": "${first.path.join(' › ')}" ${first.reason}${more} | ` +
      (first.fix ?? 'remove the nesting cycle'),
  );
}

/** What auditing a module needs besides the module. */
export interface AuditContext {
  readonly plan: boolean;
  readonly accept: readonly AcceptRule[];
  /** The configuration as shown, for messages. */
  readonly configShown?: string;
  /** The project root (project-relative module paths). */
  readonly root: string;
}

/** A tree judged with the accept entries that reach it. */
export interface JudgedTree {
  readonly report: CoverageReport;
  readonly used: number[];
  readonly paths: string[];
}

/**
 * Audits (or plans) one tree, applying the accept entries whose path is one of its nodes.
 *
 * @param orchestrator - the Graph, Swarm or Agent
 * @param applicable - the accept entries that may apply (module and export already matched)
 * @param context - plan mode, the configuration's name
 * @param where - the tree's name in messages (`module#export`)
 * @throws GateAuditError `USAGE` naming the accept entry the audit refused
 */
export function judgeTree(
  orchestrator: unknown,
  applicable: readonly AcceptRule[],
  context: Pick<AuditContext, 'plan' | 'configShown'>,
  where: string,
): JudgedTree {
  const judging = judges();
  if (!judging.strands && !isLangGraphValue(orchestrator)) throw withoutStrands(where);
  const judge = (options?: AuditOptions): CoverageReport =>
    context.plan ? judging.plan(orchestrator, options) : judging.audit(orchestrator, options);
  let report = judge();
  const paths = [...new Set(report.nodes.map((n) => joinPath(n.path)))];
  const matching = applicable.filter((rule) => paths.includes(rule.path));
  if (matching.length > 0) {
    try {
      report = judge({ accept: matching.map((rule) => ({ path: rule.path, reason: rule.reason })) });
    } catch (error) {
      const named = /accept=<([^>]*)>/.exec(messageOf(error))?.[1];
      const rule = matching.find((r) => r.path === named) ?? (matching.length === 1 ? matching[0] : undefined);
      const field = rule === undefined ? 'accept' : `accept[${rule.index}]`;
      throw new GateAuditError(
        'USAGE',
        `config=<${context.configShown ?? '?'}>, field=<${field}> | in "${where}": ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
  return { report, used: matching.map((rule) => rule.index), paths };
}

/**
 * Audits what one loaded module gave: its refused trees and its exported trees, and lists what it did not
 * hand out (exported functions not called, values not reached).
 *
 * @param result - the loaded module
 * @param context - plan mode, accept entries, the project root
 * @param failOnUnaudited - whether a value not audited fails the run
 */
export function auditModule(result: ModuleResult, context: AuditContext, failOnUnaudited: boolean): ModuleOutcome {
  const projectModule = posix(relative(context.root, result.absolute));
  const reports: CoverageReport[] = [];
  const used = new Set<number>();
  const pathsSeen: string[] = [];
  for (const refusal of result.refusals) {
    const hint =
      context.accept.length > 0
        ? "; the config's accept does not reach an installMultiagent call inside the module"
        : '';
    const refused = refusalReport(refusal, context.plan, hint);
    reports.push({ ...refused, sources: refused.sources.map((source) => ({ ...source, projectModule })) });
  }
  const real = realOf(result.absolute);
  for (const found of result.found) {
    const applicable = context.accept.filter(
      (rule) =>
        (rule.module === undefined || rule.module === real) &&
        (rule.export === undefined || rule.export === found.exportName),
    );
    const judged = judgeTree(found.orchestrator, applicable, context, `${found.module}#${found.exportName}`);
    for (const index of judged.used) used.add(index);
    pathsSeen.push(...judged.paths);
    refuseCycles(found, judged.report);
    reports.push({
      ...judged.report,
      sources: [
        {
          module: found.module,
          export: found.label ?? found.exportName,
          path: [judged.report.root.id],
          factory: found.factory,
          projectModule,
        },
      ],
    });
  }
  const notes: CoverageNote[] = [];
  if (result.skipped !== undefined) {
    notes.push({
      kind: 'skipped-module',
      module: result.module,
      message: result.skipped,
      fix: 'name it as an argument to make this an error, or leave it out with exclude or --ignore',
    });
  }
  for (const u of result.unaudited) {
    notes.push({
      kind: 'unaudited-export',
      module: u.module,
      export: u.exportName,
      message: u.reason,
      fix: u.fix,
      ...(failOnUnaudited ? { fails: true } : {}),
    });
  }
  return {
    module: result.module,
    absolute: result.absolute,
    exports: [...result.exports],
    reports,
    refused: result.refusals.length > 0,
    notes,
    ...(result.skipped === undefined ? {} : { skipped: result.skipped }),
    pathsSeen,
    usedAccept: [...used],
    closure: [],
  };
}

/** An empty report of a run (no tree), carrying notes. */
export function emptyReport(planMode: boolean): CoverageReport {
  return {
    schemaVersion: SCHEMA_VERSION,
    mode: planMode ? 'plan' : 'audit',
    root: { id: 'gate-audit', kind: 'bundle' },
    nodes: [],
    edges: [],
    summary: summarize([]),
    refusals: [],
    sources: [],
    generator: judges().generator(new Set()),
  };
}

/**
 * The accept entries of a configuration, with the real path of the module each names.
 *
 * @param config - the configuration
 * @param dir - its folder
 */
export function acceptRulesOf(config: Config, dir: string): AcceptRule[] {
  return (config.accept ?? []).map((entry, index) => ({
    index,
    ...(entry.module === undefined ? {} : { module: realOf(`${dir}${sep}${entry.module}`) }),
    ...(entry.export === undefined ? {} : { export: entry.export }),
    path: entry.path,
    reason: entry.reason,
  }));
}

/** The statuses a process guard can change: what it refuses, or gates itself. */
const GOVERNED_KINDS: ReadonlySet<string> = new Set(['agent', 'agent-tool', 'graph', 'swarm']);

/**
 * A tree as it runs under the process guard the entry started: an agent or orchestrator that carries none of
 * its gates is `blocked` (`onUngated: 'refuse'`: the guard refuses it before its model is called) or `gated`
 * with the reason "installed by the process guard" (`install`: it gets the guard's first gate when it runs; one
 * gated already with another gate cannot take it, and is refused). Custom nodes that declare what they run are
 * marked `processGuarded` when the guard refuses the ungated agents they might call.
 *
 * @param report - the tree as the audit judged it
 * @param guard - the guard the entry started
 */
export function underProcessGuard(report: CoverageReport, guard: ProcessGuardMark): CoverageReport {
  const ids = new Set(guard.gates.map((g) => g.id));
  const names = guard.gates.map((g) => `"${g.name}"`).join(', ');
  const first = guard.gates[0];
  const nodes = report.nodes.map((node): CoverageNode => {
    if (node.kind === 'custom' && node.status === 'attested') {
      return guard.onUngated === 'refuse' ? { ...node, processGuarded: true } : node;
    }
    if (!GOVERNED_KINDS.has(node.kind) || (node.status !== 'gated' && node.status !== 'ungated')) return node;
    if (node.status === 'gated' && node.gate !== undefined && ids.has(node.gate.id)) return node;
    if (guard.onUngated === 'install' && node.status === 'ungated' && first !== undefined) {
      const installed: CoverageNode = {
        ...node,
        status: 'gated',
        reason: 'installed by the process guard',
        gate: first,
      };
      delete installed.fix;
      return installed;
    }
    return {
      ...node,
      status: 'blocked',
      reason: `refused by the process guard: it carries none of its gates (${names}), so it never runs`,
      fix: node.fix ?? "gate it at startup with one of the process guard's gates (installMultiagent on its tree)",
    };
  });
  return { ...report, nodes };
}
