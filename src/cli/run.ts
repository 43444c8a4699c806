/**
 * One audit run: select the modules, load each once, audit what they export (with the config's `accept`
 * entries), combine the reports, add what was not audited, and judge the exit code by the one rule. The
 * outputs are written by the caller, from this one result.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { type Finding, GateAuditError, messageOf } from '../errors.js';
import { joinPath, escapeSegment } from '../paths.js';
import { type AuditOptions, audit, plan, summarize } from '../report/audit.js';
import { type ExitRule, exitCodeOf, isToolRunningNode } from '../report/exit.js';
import type { SarifLocation, SarifOptions } from '../report/render/sarif.js';
import {
  type CoverageNode,
  type CoverageNote,
  type CoverageReport,
  SCHEMA_VERSION,
  type Shard,
} from '../report/schema.js';
import { checkedGenerator, mergeGenerators } from '../report/generator.js';
import type { Config, LoadedConfig } from './config.js';
import { closest, didYouMean } from './did-you-mean.js';
import { type FoundOrchestrator, loadModule, type ModuleResult, type Refusal } from './load.js';
import { artifactUri, idOfSegment, importClosure, projectRoot, SourceIndex } from './locate.js';
import type { Inputs } from './outputs.js';
import { type Pattern, selectModules } from './select.js';

/** Everything a run needs, flags and configuration merged (flags win). */
export interface RunSettings {
  readonly cwd: string;
  readonly config: LoadedConfig;
  /** The modules: arguments (relative to `cwd`) or the config's `include` (relative to its folder). */
  readonly patterns: readonly Pattern[];
  /** Whether files among the patterns are named explicitly (arguments) rather than through `include`. */
  readonly explicitFiles: boolean;
  readonly ignore: readonly Pattern[];
  readonly errorOnUnmatched: boolean;
  readonly exportName?: string;
  readonly callFactories: boolean;
  readonly minCoverage?: number;
  readonly exitZero: boolean;
  readonly requireGate?: string;
  readonly failOnUnaudited: boolean;
  readonly timeoutMs: number;
  readonly plan: boolean;
  readonly noise: (chunk: string) => void;
  /** `--shard i/n`: audit only the modules whose project-relative path hashes to part `index` of `count`. */
  readonly shard?: { readonly index: number; readonly count: number };
}

/** What a run produced. */
export interface RunOutcome {
  readonly report: CoverageReport;
  readonly exitCode: 0 | 1;
  /** Lines for stderr: config warnings, patterns that matched nothing, the gate check. */
  readonly messages: string[];
  /** Where findings are in the source, for SARIF. */
  readonly sarif: SarifOptions;
  /** Every file the run read: the configuration, the modules and the project files they import. */
  readonly watched: string[];
  /** The exit rule in force (`--min-coverage`, `--exit-zero`), so reports mark exactly the nodes that fail. */
  readonly exitRule: ExitRule;
}

/** An accept entry of the config, with where it applies. */
interface AcceptRule {
  readonly index: number;
  /** The module's real path, when the entry names one. */
  readonly module?: string;
  readonly export?: string;
  readonly path: string;
  readonly reason: string;
}

function realOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

const posix = (path: string): string => path.split(sep).join('/');

function splitKey(key: string): { module?: string; exportName: string } {
  const at = key.lastIndexOf('#');
  return at === -1 ? { exportName: key } : { module: key.slice(0, at), exportName: key.slice(at + 1) };
}

/** The factories of the config, by module real path and export name. */
class Factories {
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
  stale(results: readonly ModuleResult[]): { field: string; key: string; exports: string[] }[] {
    const stale: { field: string; key: string; exports: string[] }[] = [];
    for (const [at, entry] of this._specific) {
      const hash = at.lastIndexOf('#');
      const real = at.slice(0, hash);
      const exportName = at.slice(hash + 1);
      const result = results.find((r) => realOf(r.absolute) === real);
      if (result !== undefined && !result.exports.includes(exportName)) {
        stale.push({ field: entry.field, key: entry.key, exports: result.exports });
      }
    }
    return stale;
  }
}

/** The `export` of a source whose module refused its tree while it loaded (no export was read). */
const IMPORT_EXPORT = '(import)';

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
function refusalReport(refusal: Refusal, planMode: boolean, hint: string): CoverageReport {
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
    generator: checkedGenerator(),
  };
}

/** A nesting cycle is bad input, not a coverage finding: such an orchestrator cannot run at all. */
function refuseCycles(found: FoundOrchestrator, report: CoverageReport): void {
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

/** Combines several reports into one, each under a `module#export` path segment. */
function combine(reports: readonly CoverageReport[], planMode: boolean): CoverageReport {
  if (reports.length === 1 && reports[0] !== undefined) return reports[0];
  const nodes: CoverageReport['nodes'] = [];
  const edges: CoverageReport['edges'] = [];
  const refusals: CoverageReport['refusals'] = [];
  const sources: CoverageReport['sources'] = [];
  for (const report of reports) {
    const source = report.sources[0];
    const label = source === undefined ? report.root.id : escapeSegment(`${source.module}#${source.export}`);
    const under = (path: readonly string[]): string[] => [label, ...path];
    nodes.push(
      ...report.nodes.map((n) => ({ ...n, path: under(n.path), ...(n.sameAs ? { sameAs: under(n.sameAs) } : {}) })),
    );
    edges.push(...report.edges.map((e) => ({ ...e, from: under(e.from), to: under(e.to) })));
    refusals.push(...report.refusals.map((r) => ({ ...r, path: under(r.path) })));
    if (source !== undefined) sources.push({ ...source, path: [label] });
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    mode: planMode ? 'plan' : 'audit',
    root: { id: 'gate-audit', kind: 'bundle' },
    nodes,
    edges,
    summary: summarize(nodes),
    refusals,
    sources,
    generator: mergeGenerators(reports.map((r) => r.generator)),
  };
}

/** Gated nodes under another gate than the required one (or whose gate is not known, or two gates of that name). */
function gateMismatches(report: CoverageReport, required: string): CoverageNote[] {
  const notes: CoverageNote[] = [];
  const moduleOf = (path: readonly string[]): string =>
    report.sources.find((s) => s.path.every((segment, i) => path[i] === segment))?.module ?? report.root.id;
  const ids = new Map<string, string[]>();
  for (const node of report.nodes) {
    if (node.status !== 'gated') continue;
    const gate = node.gate;
    if (gate === undefined) {
      if (!isToolRunningNode(node)) continue;
      notes.push({
        kind: 'gate-mismatch',
        module: moduleOf(node.path),
        path: node.path,
        message: `is gated, but by a gate gate-audit cannot name, so it cannot show it is "${required}"`,
        fix: `install the gate "${required}" explicitly: installMultiagent(root, { gate })`,
        fails: true,
      });
      continue;
    }
    if (gate.name !== required) {
      notes.push({
        kind: 'gate-mismatch',
        module: moduleOf(node.path),
        path: node.path,
        message: `is gated by "${gate.name}" (id ${gate.id}), not by the required "${required}"`,
        fix: `gate it with "${required}", or change --require-gate`,
        fails: true,
      });
      continue;
    }
    ids.set(gate.id, [...(ids.get(gate.id) ?? []), joinPath(node.path)]);
  }
  if (ids.size > 1) {
    const [first, ...others] = [...ids.entries()];
    for (const [id, paths] of others) {
      notes.push({
        kind: 'gate-mismatch',
        module: report.sources[0]?.module ?? report.root.id,
        path: paths[0]?.split('/'),
        message: `runs under a gate named "${required}" with id ${id}, while ${first?.[1][0] ?? '?'} runs under another gate of that name (id ${first?.[0] ?? '?'}): names are not identities`,
        fix: `give every agent the same "${required}" gate`,
        fails: true,
      });
    }
  }
  return notes;
}

/**
 * The shard (1-based) a module belongs to of `count`: the first 4 bytes of the SHA-256 of its project-relative
 * path, modulo `count`. The same path lands in the same shard on every machine and in every job.
 *
 * @param projectPath - the module's path from the project root, `/`-separated
 * @param count - how many shards
 */
export function shardOf(projectPath: string, count: number): number {
  return (createHash('sha256').update(projectPath).digest().readUInt32BE(0) % count) + 1;
}

/**
 * The digest of a run's whole selected module list (project-relative paths, sorted): every shard of one
 * run records the same one, so `merge` can tell that no module fell between shards.
 *
 * @param projectPaths - every selected module's path from the project root
 */
export function modulesDigest(projectPaths: readonly string[]): string {
  return `sha256:${createHash('sha256')
    .update([...projectPaths].sort().join('\n'))
    .digest('hex')}`;
}

/**
 * Runs one audit.
 *
 * @param settings - flags and configuration, merged
 * @param inputs - filled with every input as it becomes known (an output must never overwrite one)
 * @param watched - filled with every file the run reads, as it reads them (`--watch` watches them)
 * @throws GateAuditError for usage, configuration and load errors (exit 2)
 */
export async function runAudit(
  settings: RunSettings,
  inputs: Inputs,
  watched: Set<string> = new Set(),
): Promise<RunOutcome> {
  const { cwd, config: loaded } = settings;
  const config = loaded.config;
  const messages: string[] = [...loaded.warnings];
  if (loaded.file !== undefined) {
    inputs.add(loaded.file, 'the configuration');
    watched.add(loaded.file);
  }
  const selection = await selectModules(settings.patterns, {
    cwd,
    ignore: settings.ignore,
    errorOnUnmatched: settings.errorOnUnmatched,
    explicitFiles: settings.explicitFiles,
  });
  for (const file of selection.inputs) inputs.add(file, 'a loaded module');
  for (const pattern of selection.unmatched) {
    messages.push(`no module matches "${pattern}" (passed over: --no-error-on-unmatched-pattern)`);
  }
  const root = projectRoot(cwd, loaded.file === undefined ? undefined : loaded.dir);
  const fromRoot = (absolute: string): string => posix(relative(root, absolute));
  let targets = selection.modules;
  let shard: Shard | undefined;
  if (settings.shard !== undefined) {
    const { index, count } = settings.shard;
    targets = selection.modules.filter((m) => shardOf(fromRoot(m.absolute), count) === index);
    shard = {
      index,
      count,
      modulesDigest: modulesDigest(selection.modules.map((m) => fromRoot(m.absolute))),
      ...(loaded.shown === undefined ? {} : { config: loaded.shown }),
    };
    messages.push(
      `shard ${index}/${count}: ${targets.length} of ${selection.modules.length} selected module${selection.modules.length === 1 ? '' : 's'} (gate-audit merge joins the shards)`,
    );
  }
  const factories = new Factories(config, loaded.dir);
  const results: ModuleResult[] = [];
  for (const target of targets) {
    watched.add(target.absolute);
    try {
      results.push(
        await loadModule(
          target.absolute,
          {
            cwd,
            timeoutMs: settings.timeoutMs,
            noise: settings.noise,
            ...(settings.exportName === undefined ? {} : { exportName: settings.exportName }),
            calls: {
              argumentsFor: (absolute, name) => factories.argumentsFor(absolute, name),
              callAll: settings.callFactories,
              factoryKey: (absolute) => posix(relative(loaded.dir, absolute)),
            },
          },
          target.explicit,
        ),
      );
    } finally {
      for (const file of importClosure(target.absolute)) {
        watched.add(file);
        inputs.add(file, file === target.absolute ? 'a loaded module' : 'a file a loaded module imports');
      }
    }
  }
  const stale = factories.stale(results);
  if (stale[0] !== undefined) {
    const { field, key, exports } = stale[0];
    const { exportName } = splitKey(key);
    throw new GateAuditError(
      'USAGE',
      `config=<${loaded.shown ?? '?'}>, field=<${field}> | "${key}": the module has no export "${exportName}"${didYouMean(exportName, exports)} | exports are: ${exports.join(', ') || '(none)'}`,
    );
  }

  // Accept entries: applied per module and export, only to trees holding their path.
  const acceptRules: AcceptRule[] = (config.accept ?? []).map((entry, index) => ({
    index,
    ...(entry.module === undefined ? {} : { module: realOf(`${loaded.dir}${sep}${entry.module}`) }),
    ...(entry.export === undefined ? {} : { export: entry.export }),
    path: entry.path,
    reason: entry.reason,
  }));
  const used = new Set<number>();
  const pathsSeen: string[] = [];
  const reports: CoverageReport[] = [];
  const refusedModules = new Set<string>();
  for (const result of results) {
    for (const refusal of result.refusals) {
      refusedModules.add(realOf(result.absolute));
      const hint =
        acceptRules.length > 0
          ? "; the config's accept does not reach an installMultiagent call inside the module"
          : '';
      const refused = refusalReport(refusal, settings.plan, hint);
      reports.push({
        ...refused,
        sources: refused.sources.map((source) => ({ ...source, projectModule: fromRoot(result.absolute) })),
      });
    }
    for (const found of result.found) {
      const real = realOf(result.absolute);
      const applicable = acceptRules.filter(
        (rule) =>
          (rule.module === undefined || rule.module === real) &&
          (rule.export === undefined || rule.export === found.exportName),
      );
      const judge = (options?: AuditOptions): CoverageReport =>
        settings.plan ? plan(found.orchestrator, options) : audit(found.orchestrator, options);
      let report = judge();
      const paths = new Set(report.nodes.map((n) => joinPath(n.path)));
      pathsSeen.push(...paths);
      const matching = applicable.filter((rule) => paths.has(rule.path));
      if (matching.length > 0) {
        for (const rule of matching) used.add(rule.index);
        try {
          report = judge({ accept: matching.map((rule) => ({ path: rule.path, reason: rule.reason })) });
        } catch (error) {
          const named = /accept=<([^>]*)>/.exec(messageOf(error))?.[1];
          const rule = matching.find((r) => r.path === named) ?? (matching.length === 1 ? matching[0] : undefined);
          const field = rule === undefined ? 'accept' : `accept[${rule.index}]`;
          throw new GateAuditError(
            'USAGE',
            `config=<${loaded.shown ?? '?'}>, field=<${field}> | in "${found.module}#${found.exportName}": ${messageOf(error)}`,
            { cause: error },
          );
        }
      }
      refuseCycles(found, report);
      reports.push({
        ...report,
        sources: [
          {
            module: found.module,
            export: found.label ?? found.exportName,
            path: [report.root.id],
            factory: found.factory,
            projectModule: fromRoot(result.absolute),
          },
        ],
      });
    }
  }
  // An entry that matched nothing is stale, counted only for what this run loaded: an entry for a module it
  // did not load, or refused at import, or (under --export) for another export, is no error.
  // In a sharded run, each shard records what it saw and `merge` judges over all shards.
  const loadedReal = new Set(results.map((r) => realOf(r.absolute)));
  const narrowed = settings.exportName !== undefined;
  const judged: { index: number; path: string; used: boolean }[] = [];
  for (const rule of acceptRules) {
    if (rule.module !== undefined && (!loadedReal.has(rule.module) || refusedModules.has(rule.module))) continue;
    if (narrowed && rule.export !== settings.exportName) continue;
    judged.push({ index: rule.index, path: rule.path, used: used.has(rule.index) });
    if (used.has(rule.index) || shard !== undefined) continue;
    const near = closest(rule.path, pathsSeen);
    throw new GateAuditError(
      'USAGE',
      `config=<${loaded.shown ?? '?'}>, field=<accept[${rule.index}].path> | "${rule.path}" matches no node of the modules loaded in this run${near === undefined ? '' : ` | did you mean "${near}"?`} | fix the path (from the module's root, e.g. "${pathsSeen[0] ?? 'root/node'}") or remove the entry`,
    );
  }

  // What was not audited.
  const notes: CoverageNote[] = [];
  for (const result of results) {
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
        ...(settings.failOnUnaudited ? { fails: true } : {}),
      });
    }
  }
  if (shard !== undefined && judged.length > 0) shard = { ...shard, accept: judged };
  if (reports.length === 0 && shard !== undefined) {
    // A shard may get no module, or only modules with nothing to audit: `merge` says whether the whole run
    // audited anything.
    const empty: CoverageReport = {
      schemaVersion: SCHEMA_VERSION,
      mode: settings.plan ? 'plan' : 'audit',
      root: { id: 'gate-audit', kind: 'bundle' },
      nodes: [],
      edges: [],
      summary: summarize([]),
      refusals: [],
      sources: [],
      generator: checkedGenerator(),
      ...(notes.length > 0 ? { notes } : {}),
      shard,
    };
    return { report: empty, exitCode: 0, messages, sarif: {}, watched: [...watched], exitRule: exitRuleOf(settings) };
  }
  if (reports.length === 0) {
    const skipped = notes.filter((n) => n.kind === 'skipped-module').length;
    const unaudited = notes.filter((n) => n.kind === 'unaudited-export');
    const why = [
      `${results.length} module${results.length === 1 ? '' : 's'} loaded`,
      ...(skipped > 0 ? [`${skipped} skipped with nothing to audit`] : []),
      ...(unaudited.length > 0
        ? [`exported functions not called: ${unaudited.map((n) => `${n.module}#${n.export ?? '?'}`).join(', ')}`]
        : []),
    ].join(', ');
    throw new GateAuditError(
      'NO_ORCHESTRATOR',
      `nothing was audited (${why}) | name the modules that export your Graph, Swarm or Agent, or their factories (factories in the config, --export, --call-factories)`,
    );
  }
  const combined = combine(reports, settings.plan);
  if (settings.requireGate !== undefined) notes.push(...gateMismatches(combined, settings.requireGate));
  const report: CoverageReport = {
    ...combined,
    ...(notes.length > 0 ? { notes } : {}),
    ...(shard === undefined ? {} : { shard }),
  };
  const refused = results.some((r) => r.refusals.length > 0);
  const held = notes.some((n) => n.fails === true);
  let exitCode: 0 | 1 = exitCodeOf(report, {
    exitZero: settings.exitZero,
    ...(settings.minCoverage === undefined ? {} : { minCoverage: settings.minCoverage }),
  });
  if (!settings.exitZero && (refused || held)) exitCode = 1;
  const mismatched = notes.filter((n) => n.kind === 'gate-mismatch');
  if (mismatched.length > 0) {
    messages.push(
      `--require-gate ${settings.requireGate ?? ''}: ${mismatched.length} gated node${mismatched.length === 1 ? '' : 's'} not under that gate: ${mismatched
        .slice(0, 5)
        .map((n) => joinPath(n.path ?? []))
        .join(', ')}${mismatched.length > 5 ? ', …' : ''}`,
    );
  }
  return {
    report,
    exitCode,
    messages,
    sarif: sarifLocations(report, results, settings),
    watched: [...watched],
    exitRule: exitRuleOf(settings),
  };
}

function exitRuleOf(settings: RunSettings): ExitRule {
  return {
    exitZero: settings.exitZero,
    ...(settings.minCoverage === undefined ? {} : { minCoverage: settings.minCoverage }),
  };
}

function sarifLocations(report: CoverageReport, results: readonly ModuleResult[], settings: RunSettings): SarifOptions {
  const root = projectRoot(settings.cwd, settings.config.file === undefined ? undefined : settings.config.dir);
  const index = new SourceIndex();
  const byModule = new Map(results.map((r) => [r.module, r.absolute]));
  const at = (file: string, line: number): SarifLocation => ({ ...artifactUri(file, root), startLine: line });
  const locateModule = (module: string, exportName?: string): SarifLocation | undefined => {
    const absolute = byModule.get(module);
    if (absolute === undefined) return undefined;
    const name = exportName?.replace(/\(.*$/s, '');
    const line = name === undefined || name === IMPORT_EXPORT ? undefined : index.exportLine(absolute, name);
    return at(absolute, line ?? 1);
  };
  return {
    locateModule,
    locate: (node) => {
      const source = report.sources.find((s) => s.path.every((segment, i) => node.path[i] === segment));
      if (source === undefined) return undefined;
      const absolute = byModule.get(source.module);
      if (absolute === undefined) return undefined;
      const found = index.definition(idOfSegment(node.id), importClosure(absolute));
      return found === undefined ? locateModule(source.module, source.export) : at(found.file, found.line);
    },
  };
}
