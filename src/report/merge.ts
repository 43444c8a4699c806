/**
 * Merging the coverage reports of several CI jobs or shards into one: nodes are keyed by (module path from
 * the project root, export, path inside the module), identical duplicates collapse, and where two reports
 * disagree on a node the worse status is kept (with a warning). The summary is recomputed from the merged
 * nodes; the generator says `sdkTested` only when every part does. Shards of one `--shard i/n` run must all
 * be there and agree on the selected module list, so no module can fall between them.
 *
 * Pure: reports in, a report (and warnings) out; reading files and the exit code are the CLI's.
 */
import { GateAuditError } from '../errors.js';
import { escapeSegment, joinPath } from '../tree-paths.js';
import { quoted, visible, visiblePath } from '../escape.js';
import { summarize } from './lines.js';
import { mergeGenerators } from './own-version.js';
import {
  type CoverageEdge,
  type CoverageNode,
  type CoverageNote,
  type CoverageReport,
  SCHEMA_VERSION,
  type Shard,
} from './schema.js';

/** One report to merge, with the name it is shown by (its file). */
export interface MergeInput {
  readonly name: string;
  readonly report: CoverageReport;
}

/** An accept entry of a sharded run that no shard used, though a shard that loaded what it names looked. */
export interface StaleAccept {
  readonly index: number;
  readonly path: string;
  /** The configuration, as the shards named it. */
  readonly config?: string;
}

/** What `mergeReports` produced. */
export interface MergeResult {
  readonly report: CoverageReport;
  /** Disagreements resolved by keeping the worse status, one line each. */
  readonly warnings: string[];
  /** Present when the inputs are the shards of one run. */
  readonly sharded?: { readonly count: number; readonly staleAccept: StaleAccept[] };
  /** Every node's path inside its module, by merged module label (for "did you mean"). */
  readonly pathsInModules: string[];
}

/** Statuses from worst to best: where reports disagree, the first of these wins. */
export const STATUS_ORDER: readonly CoverageNode['status'][] = [
  'ungated',
  'ungateable',
  'blocked',
  'accepted',
  'attested',
  'gated',
];

const severity = (status: CoverageNode['status']): number => STATUS_ORDER.indexOf(status);

/** The merge key of a source (its module from the project root, and its export) and its merged path segment. */
function sourceKey(source: CoverageReport['sources'][number]): { module: string; group: string; label: string } {
  const module = source.projectModule ?? source.module;
  return { module, group: `${module}\u0000${source.export}`, label: escapeSegment(`${module}#${source.export}`) };
}

/** Whether a report is several modules combined under `module#export` segments (vs one orchestrator). */
function isCombined(report: CoverageReport): boolean {
  return report.root.kind === 'bundle' && report.root.id === 'gate-audit';
}

interface Placed {
  /** The group: module from the project root and export. */
  readonly group: string;
  readonly label: string;
  /** The path inside the module (starting at the module's orchestrator). */
  readonly inner: string[];
}

/** Places every path of one report under its source. */
class Placer {
  private readonly _sources: { prefix: string[]; group: string; label: string }[];
  private readonly _combined: boolean;

  constructor(private readonly _input: MergeInput) {
    const { report } = _input;
    this._combined = isCombined(report);
    this._sources = report.sources
      .map((source) => ({ prefix: source.path, ...sourceKey(source) }))
      .sort((a, b) => b.prefix.length - a.prefix.length);
  }

  place(path: readonly string[]): Placed {
    const source = this._sources.find((s) => s.prefix.every((segment, i) => path[i] === segment));
    if (source === undefined) {
      throw new GateAuditError(
        'USAGE',
        `report=<${visible(this._input.name)}> | node ${quoted(visiblePath(path))} belongs to no module of the report's sources (a report of the library's audit() has none) | merge the JSON reports the gate-audit command writes`,
      );
    }
    const inner = this._combined ? path.slice(source.prefix.length) : [...path];
    return { group: source.group, label: source.label, inner };
  }

  /** The path in the merged report. */
  merged(path: readonly string[]): string[] {
    const { label, inner } = this.place(path);
    return [label, ...inner];
  }
}

interface Group {
  readonly label: string;
  readonly module: string;
  readonly export: string;
  readonly factory: boolean;
  readonly nodes: Map<string, { node: CoverageNode; from: string }>;
}

/** Refuses reports of different kinds or versions (checked on the raw JSON, before the schema). */
function checkKinds(inputs: readonly MergeInput[]): void {
  const [first] = inputs;
  if (first === undefined) {
    throw new GateAuditError('USAGE', 'no reports to merge | name the JSON reports: gate-audit merge a.json b.json');
  }
  for (const input of inputs) {
    if (input.report.mode !== first.report.mode) {
      throw new GateAuditError(
        'USAGE',
        `report=<${visible(input.name)}> | it is ${input.report.mode === 'plan' ? 'a plan' : 'an audit'} report, ${visible(first.name)} ${first.report.mode === 'plan' ? 'a plan' : 'an audit'} report | merge reports of one kind (all with --plan or all without)`,
      );
    }
  }
}

/**
 * Checks the shards among the inputs: one run (same count and module digest), every part present once.
 *
 * @returns the shard count, or undefined when no input is a shard
 */
function checkShards(inputs: readonly MergeInput[]): number | undefined {
  const shards = inputs.filter((i): i is MergeInput & { report: { shard: Shard } } => i.report.shard !== undefined);
  const [first] = shards;
  if (first === undefined) return undefined;
  const { count, modulesDigest } = first.report.shard;
  for (const input of shards) {
    const shard = input.report.shard;
    if (shard.count !== count || shard.modulesDigest !== modulesDigest) {
      const what =
        shard.count === count
          ? `selected another module list (digest ${visible(shard.modulesDigest)}, ${visible(first.name)}: ${visible(modulesDigest)})`
          : `is shard ${shard.index}/${shard.count}, ${visible(first.name)} shard ${first.report.shard.index}/${count}`;
      throw new GateAuditError(
        'USAGE',
        `report=<${visible(input.name)}> | the shards disagree: it ${what}, so a module could fall between them | run every shard of one run with the same modules, configuration and shard count`,
      );
    }
  }
  const byIndex = new Map<number, string>();
  for (const input of shards) {
    const { index } = input.report.shard;
    const before = byIndex.get(index);
    if (before !== undefined) {
      throw new GateAuditError(
        'USAGE',
        `report=<${visible(input.name)}> | shard ${index}/${count} is given twice (also ${visible(before)}) | merge each shard's report once`,
      );
    }
    if (index > count) {
      throw new GateAuditError('USAGE', `report=<${visible(input.name)}> | shard ${index}/${count} does not exist`);
    }
    byIndex.set(index, input.name);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new GateAuditError(
      'USAGE',
      `shards=<${missing.map((i) => `${i}/${count}`).join(', ')}> | missing: the modules of ${missing.length === 1 ? 'that shard' : 'those shards'} were not audited | merge the reports of all ${count} shards`,
    );
  }
  return count;
}

/** The accept entries no shard used that a shard could judge. */
function staleAccepts(inputs: readonly MergeInput[]): StaleAccept[] {
  const used = new Set<number>();
  const unused = new Map<number, StaleAccept>();
  for (const { report } of inputs) {
    const shard = report.shard;
    for (const entry of shard?.accept ?? []) {
      if (entry.used) used.add(entry.index);
      else {
        unused.set(entry.index, {
          index: entry.index,
          path: entry.path,
          ...(shard?.config === undefined ? {} : { config: shard.config }),
        });
      }
    }
  }
  return [...unused.values()].filter((e) => !used.has(e.index)).sort((a, b) => a.index - b.index);
}

function addUnique<T>(into: Map<string, T>, item: T): void {
  const key = JSON.stringify(item);
  if (!into.has(key)) into.set(key, item);
}

/**
 * Merges the JSON reports of several jobs or shards into one.
 *
 * @param inputs - the reports, each validated with `CoverageReportSchema`, with the file it came from
 * @returns the merged report, warnings about disagreements, and what a sharded run left to judge
 * @throws GateAuditError `USAGE` for mixed audit and plan reports, a missing or repeated shard, shards that
 *   selected different modules, or a report whose nodes belong to no source
 */
export function mergeReports(inputs: readonly MergeInput[]): MergeResult {
  checkKinds(inputs);
  const shardCount = checkShards(inputs);
  const groups = new Map<string, Group>();
  const edges = new Map<string, CoverageEdge>();
  const refusals = new Map<string, CoverageReport['refusals'][number]>();
  const notes = new Map<string, CoverageNote>();
  const warnings: string[] = [];
  for (const input of inputs) {
    const { report } = input;
    const placer = new Placer(input);
    for (const source of report.sources) {
      const { module, group, label } = sourceKey(source);
      if (!groups.has(group)) {
        groups.set(group, {
          label,
          module,
          export: source.export,
          factory: source.factory,
          nodes: new Map(),
        });
      }
    }
    for (const node of report.nodes) {
      const placed = placer.place(node.path);
      const merged: CoverageNode = {
        ...node,
        path: [placed.label, ...placed.inner],
        ...(node.sameAs === undefined ? {} : { sameAs: placer.merged(node.sameAs) }),
      };
      const nodes = groups.get(placed.group)?.nodes;
      if (nodes === undefined) throw new Error(`merge: no group for ${placed.label}`);
      const key = joinPath(placed.inner);
      const before = nodes.get(key);
      if (before === undefined) {
        nodes.set(key, { node: merged, from: input.name });
        continue;
      }
      if (before.node.status === merged.status) continue;
      const worse = severity(merged.status) < severity(before.node.status);
      const kept = worse ? merged : before.node;
      const where = `${groups.get(placed.group)?.module ?? '?'}#${groups.get(placed.group)?.export ?? '?'} › ${joinPath(placed.inner)}`;
      warnings.push(
        `reports disagree on ${quoted(where)}: ${before.node.status} in ${visible(before.from)}, ${merged.status} in ${visible(input.name)}; kept ${kept.status}, the worse`,
      );
      if (worse) nodes.set(key, { node: merged, from: input.name });
    }
    for (const edge of report.edges) {
      addUnique(edges, { ...edge, from: placer.merged(edge.from), to: placer.merged(edge.to) });
    }
    for (const refusal of report.refusals) addUnique(refusals, { ...refusal, path: placer.merged(refusal.path) });
    for (const note of report.notes ?? []) {
      addUnique(notes, note.path === undefined ? note : { ...note, path: placer.merged(note.path) });
    }
  }
  const ordered = [...groups.values()].sort((a, b) =>
    a.module === b.module ? a.export.localeCompare(b.export) : a.module.localeCompare(b.module),
  );
  const nodes = ordered.flatMap((g) => [...g.nodes.values()].map((n) => n.node));
  const pathsInModules = ordered.flatMap((g) => [...g.nodes.keys()]);
  const report: CoverageReport = {
    schemaVersion: SCHEMA_VERSION,
    mode: inputs[0]?.report.mode ?? 'audit',
    root: { id: 'gate-audit', kind: 'bundle' },
    nodes,
    edges: [...edges.values()],
    summary: summarize(nodes),
    refusals: [...refusals.values()],
    sources: ordered.map((g) => ({
      module: g.module,
      export: g.export,
      path: [g.label],
      factory: g.factory,
      projectModule: g.module,
    })),
    generator: mergeGenerators(inputs.map((i) => i.report.generator)),
    ...(notes.size > 0 ? { notes: [...notes.values()] } : {}),
    ...(inputs.some((i) => i.report.entries !== undefined)
      ? { entries: inputs.flatMap((i) => i.report.entries ?? []) }
      : {}),
  };
  return {
    report,
    warnings,
    pathsInModules,
    ...(shardCount === undefined ? {} : { sharded: { count: shardCount, staleAccept: staleAccepts(inputs) } }),
  };
}
