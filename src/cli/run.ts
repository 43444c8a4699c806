/**
 * One audit run: select the modules, load each once, audit what they export (with the config's `accept`
 * entries), combine the reports, add what was not audited, and judge the exit code by the one rule. The
 * outputs are written by the caller, from this one result.
 */
import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { GateAuditError } from '../errors.js';
import { escapeSegment, joinPath } from '../tree-paths.js';
import { summarize } from '../report/lines.js';
import { type ExitRule, isToolRunningNode, judgeRun } from '../report/exit.js';
import type { SarifOptions } from '../report/render/sarif.js';
import { type CoverageNote, type CoverageReport, SCHEMA_VERSION, type Shard } from '../report/schema.js';
import { mergeGenerators } from '../report/own-version.js';
import { acceptRulesOf, emptyReport, Factories, posix, realOf, splitKey } from './audit-module.js';
import { frameworksOf, loadJudges } from './judges.js';
import type { AcceptRule, ModuleOutcome } from './child/protocol.js';
import type { LoadedConfig } from './config.js';
import { closest, didYouMean } from './did-you-mean.js';
import { type EntryEnd, loadModulesSupervised, runEntrySupervised } from './load-supervised.js';
import { projectRoot } from './locate.js';
import { sarifLocations } from './sarif-locations.js';
import type { Inputs } from './outputs.js';
import { type Pattern, type SelectedModule, selectModules } from './select.js';
import { quoted, visible, visiblePath } from '../escape.js';

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
  /** Entry points to run (absolute), `--entry` or the config's `entry`. */
  readonly entries: readonly string[];
  /** The argv an entry gets after its path. */
  readonly entryArgs: readonly string[];
  /** How long an entry run waits for another invocation after one. */
  readonly entrySettleMs: number;
  /** `--require-process-guard`: an entry that invokes anything before the process guard stands fails the run. */
  readonly requireProcessGuard?: boolean;
  /** `--shard i/n`: audit only the modules whose project-relative path hashes to part `index` of `count`. */
  readonly shard?: { readonly index: number; readonly count: number };
}

/** What a run produced. */
export interface RunOutcome {
  readonly report: CoverageReport;
  /** 0 clean, 1 a coverage finding, 2 a module or entry that failed to load. */
  readonly exitCode: 0 | 1 | 2;
  /** Lines for stderr: config warnings, patterns that matched nothing, the gate check. */
  readonly messages: string[];
  /** Where findings are in the source, for SARIF. */
  readonly sarif: SarifOptions;
  /** Every file the run read: the configuration, the modules and the project files they import. */
  readonly watched: string[];
  /** The exit rule in force (`--min-coverage`, `--exit-zero`), so reports mark exactly the nodes that fail. */
  readonly exitRule: ExitRule;
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

/** What the steps of one run share: its settings, and what they fill as they go. */
interface Run {
  readonly settings: RunSettings;
  /** Every input, as it becomes known (an output must never overwrite one). */
  readonly inputs: Inputs;
  /** Every file the run reads (`--watch` watches them). */
  readonly watched: Set<string>;
  /** Lines for stderr, in the order they arise. */
  readonly messages: string[];
  /** The project root: shards and SARIF paths are from it. */
  readonly root: string;
  /** The configuration's `accept` entries. */
  readonly acceptRules: readonly AcceptRule[];
}

/** A file's path from the project root, `/`-separated. */
const fromRoot = (run: Run, absolute: string): string => posix(relative(run.root, absolute));

/** Records the files a module or an entry loaded: watched, and inputs no output may overwrite. */
function addClosure(run: Run, files: readonly string[], main: string): void {
  for (const file of files) {
    run.watched.add(file);
    run.inputs.add(file, file === main ? 'a loaded module' : 'a file a loaded module imports');
  }
}

/** Step 1: the modules the patterns select, and under `--shard` the part of them this shard audits. */
async function selectTargets(run: Run): Promise<{ targets: SelectedModule[]; shard?: Shard }> {
  const { settings } = run;
  const loaded = settings.config;
  const selection = await selectModules(settings.patterns, {
    cwd: settings.cwd,
    ignore: settings.ignore,
    errorOnUnmatched: settings.errorOnUnmatched,
    explicitFiles: settings.explicitFiles,
  });
  for (const file of selection.inputs) run.inputs.add(file, 'a loaded module');
  for (const pattern of selection.unmatched) {
    run.messages.push(`no module matches ${quoted(pattern)} (passed over: --no-error-on-unmatched-pattern)`);
  }
  if (settings.shard === undefined) return { targets: selection.modules };
  const { index, count } = settings.shard;
  const targets = selection.modules.filter((m) => shardOf(fromRoot(run, m.absolute), count) === index);
  const shard: Shard = {
    index,
    count,
    modulesDigest: modulesDigest([
      ...selection.modules.map((m) => fromRoot(run, m.absolute)),
      ...settings.entries.map((entry) => fromRoot(run, entry)),
    ]),
    ...(loaded.shown === undefined ? {} : { config: loaded.shown }),
  };
  run.messages.push(
    `shard ${index}/${count}: ${targets.length} of ${selection.modules.length} selected module${selection.modules.length === 1 ? '' : 's'} (gate-audit merge joins the shards)`,
  );
  return { targets, shard };
}

/** Step 2: each selected module loaded once, in the audit child, and audited. */
async function loadTargets(
  run: Run,
  targets: readonly SelectedModule[],
): Promise<{ results: ModuleOutcome[]; notes: CoverageNote[] }> {
  if (targets.length === 0) return { results: [], notes: [] };
  const { settings } = run;
  const loaded = settings.config;
  const loadedModules = await loadModulesSupervised(targets, {
    cwd: settings.cwd,
    ...(loaded.file === undefined ? {} : { config: { file: loaded.file, cwd: settings.cwd } }),
    configDir: loaded.dir,
    ...(loaded.shown === undefined ? {} : { configShown: loaded.shown }),
    ...(settings.exportName === undefined ? {} : { exportName: settings.exportName }),
    callFactories: settings.callFactories,
    plan: settings.plan,
    accept: run.acceptRules,
    root: run.root,
    timeoutMs: settings.timeoutMs,
    failOnUnaudited: settings.failOnUnaudited,
    noise: settings.noise,
    onModule: (absolute) => run.watched.add(absolute),
  });
  for (const outcome of loadedModules.outcomes) {
    addClosure(run, outcome.closure.length > 0 ? outcome.closure : [outcome.absolute], outcome.absolute);
  }
  return { results: loadedModules.outcomes, notes: loadedModules.notes };
}

/** What the entries of a run gave. */
interface EntriesRun {
  readonly ends: EntryEnd[];
  readonly reports: CoverageReport[];
  readonly notes: CoverageNote[];
  readonly usedAccept: Set<number>;
  readonly pathsSeen: string[];
}

/** Step 3: each entry run as the app runs (under `--shard`, in the one shard its path hashes to, as a module). */
async function runEntries(run: Run): Promise<EntriesRun> {
  const { settings } = run;
  const loaded = settings.config;
  const done: EntriesRun = { ends: [], reports: [], notes: [], usedAccept: new Set(), pathsSeen: [] };
  const entriesHere = settings.entries.filter(
    (entry) =>
      settings.shard === undefined || shardOf(fromRoot(run, entry), settings.shard.count) === settings.shard.index,
  );
  for (const entry of entriesHere) {
    run.watched.add(entry);
    run.inputs.add(entry, 'an entry point of this run');
    const outcome = await runEntrySupervised({
      cwd: settings.cwd,
      entry,
      args: settings.entryArgs,
      plan: settings.plan,
      accept: run.acceptRules,
      root: run.root,
      timeoutMs: settings.timeoutMs,
      settleMs: settings.entrySettleMs,
      noise: settings.noise,
      ...(loaded.config.processGuard !== undefined && loaded.file !== undefined
        ? { processGuardConfig: loaded.file }
        : {}),
    });
    done.ends.push(outcome.end);
    if (settings.requireProcessGuard === true && outcome.end.processGuard?.installed !== true) {
      done.notes.push({
        kind: 'process-guard',
        module: outcome.end.module,
        message:
          outcome.end.invocations > 0
            ? 'invoked an agent or orchestrator before the process guard stood, so an agent it runs without a gate is not refused'
            : 'did not start the process guard',
        fix: 'call guardProcess({ gates }) at startup before anything runs, or start node with --import gate-audit/register and add processGuard to the configuration',
        fails: true,
      });
    }
    done.reports.push(...outcome.reports);
    done.notes.push(...outcome.notes);
    for (const index of outcome.usedAccept) done.usedAccept.add(index);
    done.pathsSeen.push(...outcome.pathsSeen);
    addClosure(run, outcome.closure, entry);
  }
  return done;
}

/** Step 4: a factory the configuration names that its module does not export is a usage error. */
function checkFactories(run: Run, results: readonly ModuleOutcome[]): void {
  const loaded = run.settings.config;
  const stale = new Factories(loaded.config, loaded.dir).stale(results);
  if (stale[0] === undefined) return;
  const { field, key, exports } = stale[0];
  const { exportName } = splitKey(key);
  throw new GateAuditError(
    'USAGE',
    `config=<${loaded.shown ?? '?'}>, field=<${field}> | "${key}": the module has no export "${exportName}"${didYouMean(exportName, exports)} | exports are: ${exports.join(', ') || '(none)'}`,
  );
}

/**
 * Step 5: the notes that fail the run whatever the exit rule says of its rows (a tree a module's own
 * installMultiagent refused), kept in the report so `merge` judges the shards' run as this one; each load
 * failure as a line on stderr.
 */
function refusalNotes(run: Run, results: readonly ModuleOutcome[], notes: CoverageNote[]): void {
  for (const result of results) {
    if (!result.refused) continue;
    notes.push({
      kind: 'refused-tree',
      module: result.module,
      message:
        "its own installMultiagent refused a tree it builds (while it loaded, or in a factory), so the app does not start as it stands: the refused nodes are the report's rows",
      fix: 'fix what the rows name, or accept a remote or opaque node with a reason (accept)',
      fails: true,
    });
  }
  for (const note of notes) {
    if (note.kind === 'load') {
      // The module's own error text can hold anything: shown escaped, one line.
      run.messages.push(
        `load failed: ${visible(note.module)}: ${visible(note.message)}${note.fix === undefined ? '' : ` | ${visible(note.fix)}`}`,
      );
    }
  }
}

/**
 * Step 6: the `accept` entries judged. An entry that matched nothing is stale, counted only for what this run
 * loaded: an entry for a module it did not load, or refused at import, or (under `--export`) for another export,
 * is no error. A sharded run, or one whose modules failed to load, records what it saw, and `merge` judges
 * over all shards.
 *
 * @returns the entries judged, for the shard's record
 * @throws GateAuditError `USAGE` for a stale entry
 */
function judgeAccept(
  run: Run,
  results: readonly ModuleOutcome[],
  entries: EntriesRun,
  recordOnly: boolean,
): { index: number; path: string; used: boolean }[] {
  const { settings } = run;
  const used = new Set<number>([...entries.usedAccept, ...results.flatMap((r) => r.usedAccept)]);
  const pathsSeen: string[] = [...results.flatMap((r) => r.pathsSeen), ...entries.pathsSeen];
  const refusedModules = new Set(results.filter((r) => r.refused).map((r) => realOf(r.absolute)));
  const loadedReal = new Set(results.map((r) => realOf(r.absolute)));
  const judged: { index: number; path: string; used: boolean }[] = [];
  for (const rule of run.acceptRules) {
    const underEntries = settings.entries.length > 0;
    if (rule.module !== undefined && !underEntries && (!loadedReal.has(rule.module) || refusedModules.has(rule.module)))
      continue;
    if (settings.exportName !== undefined && rule.export !== settings.exportName) continue;
    judged.push({ index: rule.index, path: rule.path, used: used.has(rule.index) });
    if (used.has(rule.index) || recordOnly) continue;
    const near = closest(rule.path, pathsSeen);
    throw new GateAuditError(
      'USAGE',
      `config=<${settings.config.shown ?? '?'}>, field=<accept[${rule.index}].path> | "${rule.path}" matches no node of the modules loaded in this run${near === undefined ? '' : ` | did you mean "${near}"?`} | fix the path (from the module's root, e.g. "${pathsSeen[0] ?? 'root/node'}") or remove the entry`,
    );
  }
  return judged;
}

/** Step 7, when nothing was audited: the error that says why. */
function nothingAudited(results: readonly ModuleOutcome[], notes: readonly CoverageNote[]): GateAuditError {
  const skipped = notes.filter((n) => n.kind === 'skipped-module').length;
  const unaudited = notes.filter((n) => n.kind === 'unaudited-export');
  const why = [
    `${results.length} module${results.length === 1 ? '' : 's'} loaded`,
    ...(skipped > 0 ? [`${skipped} skipped with nothing to audit`] : []),
    ...(unaudited.length > 0
      ? [`exports not audited: ${unaudited.map((n) => `${n.module}#${n.export ?? '?'}`).join(', ')}`]
      : []),
  ].join(', ');
  return new GateAuditError(
    'NO_ORCHESTRATOR',
    `nothing was audited (${why}) | name the modules that export your Graph, Swarm or Agent, or their factories (factories in the config, --export, --call-factories)`,
  );
}

/** Step 8, `--require-gate`: the gated nodes not under that gate, as notes and one line on stderr. */
function requireGate(run: Run, report: CoverageReport, notes: CoverageNote[]): void {
  const required = run.settings.requireGate;
  if (required === undefined) return;
  notes.push(...gateMismatches(report, required));
  const mismatched = notes.filter((n) => n.kind === 'gate-mismatch');
  if (mismatched.length === 0) return;
  // Node paths are data: each shown escaped and quoted, so no id can start a line or forge a command.
  run.messages.push(
    `--require-gate ${quoted(required)}: ${mismatched.length} gated node${mismatched.length === 1 ? '' : 's'} not under that gate: ${mismatched
      .slice(0, 5)
      .map((n) => quoted(visiblePath(n.path ?? [])))
      .join(', ')}${mismatched.length > 5 ? ', …' : ''}`,
  );
}

/** The outcome of a run from its report: the exit code by the one rule, the messages, the SARIF locations. */
function outcomeOf(run: Run, report: CoverageReport, results: readonly ModuleOutcome[]): RunOutcome {
  const rule = exitRuleOf(run.settings);
  return {
    report,
    // The one rule, from the report alone (nodes, minimum, the notes that fail the run; a load failure is exit 2,
    // --exit-zero or not): `merge` judges the shards of this run by the same function.
    exitCode: judgeRun(report, rule).exitCode,
    messages: run.messages,
    sarif: runLocations(report, results, run.settings),
    watched: [...run.watched],
    exitRule: rule,
  };
}

/**
 * Runs one audit: select the modules, load and audit each, run the entries, check the configuration's
 * factories and accept entries against what loaded, then one report judged by the one rule.
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
  const loaded = settings.config;
  const judging = await loadJudges();
  if (loaded.file !== undefined) {
    inputs.add(loaded.file, 'the configuration');
    watched.add(loaded.file);
  }
  const run: Run = {
    settings,
    inputs,
    watched,
    messages: [...loaded.warnings],
    root: projectRoot(settings.cwd, loaded.file === undefined ? undefined : loaded.dir),
    acceptRules: acceptRulesOf(loaded.config, loaded.dir),
  };
  const selected = await selectTargets(run);
  const modules = await loadTargets(run, selected.targets);
  const entries = await runEntries(run);
  checkFactories(run, modules.results);
  const { results } = modules;
  const notes: CoverageNote[] = [...modules.notes, ...entries.notes, ...results.flatMap((r) => r.notes)];
  const anyLoadFailed = notes.some((n) => n.kind === 'load');
  refusalNotes(run, results, notes);
  let shard = selected.shard;
  const judged = judgeAccept(run, results, entries, shard !== undefined || anyLoadFailed);
  if (shard !== undefined && judged.length > 0) shard = { ...shard, accept: judged };
  const extras = {
    ...(entries.ends.length > 0 ? { entries: entries.ends } : {}),
    ...(shard === undefined ? {} : { shard }),
  };
  // Counts are recomputed here from the rows the child sent: the exit rule and the summary read the same nodes.
  const reports: CoverageReport[] = [...results.flatMap((r) => r.reports), ...entries.reports].map((r) => ({
    ...r,
    summary: summarize(r.nodes),
  }));
  if (reports.length === 0) {
    // A shard may get no module, or only modules with nothing to audit: `merge` says whether the whole run
    // audited anything. A run whose modules failed to load reports that, and exits 2.
    if (shard === undefined && !anyLoadFailed) throw nothingAudited(results, notes);
    return outcomeOf(
      run,
      { ...emptyReport(settings.plan), ...(notes.length > 0 ? { notes } : {}), ...extras },
      results,
    );
  }
  const combined = combine(reports, settings.plan);
  requireGate(run, combined, notes);
  return outcomeOf(
    run,
    {
      ...combined,
      // The framework packages this command checked before anything loaded (the audit child resolves the same
      // copies), for the frameworks the run's trees belong to.
      generator: judging.generator(frameworksOf(reports)),
      ...(notes.length > 0 ? { notes } : {}),
      ...extras,
    },
    results,
  );
}

function exitRuleOf(settings: RunSettings): ExitRule {
  return {
    exitZero: settings.exitZero,
    ...(settings.minCoverage === undefined ? {} : { minCoverage: settings.minCoverage }),
  };
}

/** SARIF locations of a run's report: each module's file and what it imports, as the run loaded them. */
function runLocations(report: CoverageReport, results: readonly ModuleOutcome[], settings: RunSettings): SarifOptions {
  const byModule = new Map(results.map((r) => [r.module, r.absolute]));
  const closures = new Map(results.map((r) => [r.absolute, r.closure]));
  for (const entry of settings.entries) byModule.set(relative(settings.cwd, entry) || entry, entry);
  return sarifLocations(report, {
    root: projectRoot(settings.cwd, settings.config.file === undefined ? undefined : settings.config.dir),
    fileOf: (module) => byModule.get(module),
    closureOf: (file) => closures.get(file) ?? [file],
  });
}
