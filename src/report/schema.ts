/**
 * The coverage report: plain, versioned data, defined once as a zod schema. Renderers and the TUI read
 * this and nothing else; a saved JSON report can be validated and rendered again.
 */
import { z } from 'zod';

/** Coverage status of one node. */
export const NodeStatusSchema = z.enum(['gated', 'attested', 'accepted', 'ungated', 'ungateable', 'blocked']);

/** What sits at a node. */
export const NodeKindSchema = z.enum(['graph', 'swarm', 'agent', 'agent-tool', 'remote', 'custom']);

/**
 * Which gate covers a node: its name and identity. A policy gate's `id` is the SHA-256 of its canonical
 * policy; another gate's is the `id` it declares, or, marked `perProcess`, one valid in this process only
 * (compared within one report, never across reports).
 */
export const GateIdentitySchema = z.strictObject({
  name: z.string(),
  id: z.string(),
  perProcess: z.boolean().optional(),
  /** The process-wide gate (`configureGate`), resolved at each call: this is the one configured now. */
  configured: z.boolean().optional(),
});

/** One node of the coverage graph. */
export const CoverageNodeSchema = z.strictObject({
  /** Chain of ids from the root. */
  path: z.array(z.string()).min(1),
  /** The last segment of the path. */
  id: z.string(),
  kind: NodeKindSchema,
  status: NodeStatusSchema,
  /** Why the node has its status, in a sentence. */
  reason: z.string(),
  /** How to fix it, when it is not gated. */
  fix: z.string().optional(),
  /** The problem category, for ungateable nodes (stable: SARIF rule ids use it). */
  problem: z.string().optional(),
  /** Tool names known before the agent's first run. */
  tools: z.array(z.string()),
  /** Tools that appear only when the agent initialises (MCP clients, plugins). */
  toolsUnknownUntilInit: z.boolean(),
  /** Things that weaken the gate without defeating it. */
  warnings: z.array(z.string()),
  /** Where the same agent or orchestrator was met first. */
  sameAs: z.array(z.string()).optional(),
  /** The gate that covers a gated agent, or the gate a guard records to (absent when none is known). */
  gate: GateIdentitySchema.optional(),
  /**
   * On a custom node (`attested`) of a tree an entry invoked under the process guard (`onUngated: 'refuse'`):
   * an ungated agent it calls, declared or not, is refused.
   */
  processGuarded: z.boolean().optional(),
  /** The framework the node belongs to (absent only in reports written before Strands rows were tagged: Strands). */
  framework: z.enum(['strands', 'langgraph']).optional(),
});

/** An edge of the coverage graph: containment (orchestrator → node, agent → tool) or a graph edge. */
export const CoverageEdgeSchema = z.strictObject({
  from: z.array(z.string()),
  to: z.array(z.string()),
  kind: z.enum(['contains', 'flow']),
  /** A graph edge taken only when its condition holds. */
  conditional: z.boolean().optional(),
});

/** Counts per status and the coverage ratio. */
export const CoverageSummarySchema = z.strictObject({
  total: z.number().int().nonnegative(),
  gated: z.number().int().nonnegative(),
  /** Custom nodes that declare what they run (declared, not proven). */
  attested: z.number().int().nonnegative(),
  /** Remote or opaque nodes a user acknowledged with a reason (never counted as covered). */
  accepted: z.number().int().nonnegative(),
  ungated: z.number().int().nonnegative(),
  ungateable: z.number().int().nonnegative(),
  blocked: z.number().int().nonnegative(),
  /** Nodes that run tools (agents, agents used as tools, remote and custom executors). */
  toolRunning: z.number().int().nonnegative(),
  /** (gated + attested) / (tool-running nodes − accepted), 0..1 (1 when that leaves none). */
  coverage: z.number().min(0).max(1),
});

/** Where an audited orchestrator came from, when the CLI loaded it. */
export const CoverageSourceSchema = z.strictObject({
  module: z.string(),
  export: z.string(),
  /** Path prefix of this orchestrator's nodes in a combined report. */
  path: z.array(z.string()),
  /** True when the export is a factory called to build the orchestrator. */
  factory: z.boolean(),
  /**
   * The module's path from the project root, with `/` separators (written by the CLI): what `merge` joins
   * reports of several jobs on, whatever folder each job ran from.
   */
  projectModule: z.string().optional(),
});

/**
 * An accept entry of the configuration as one shard saw it: `merge` calls an entry stale only when no shard
 * used it and a shard that loaded what it names found no such node.
 */
export const ShardAcceptSchema = z.strictObject({
  /** Its index in the configuration's `accept`. */
  index: z.number().int().nonnegative(),
  path: z.string(),
  /** Whether a node of this shard matched it. */
  used: z.boolean(),
});

/** Which part of a sharded run (`--shard i/n`) a report is. */
export const ShardSchema = z.strictObject({
  /** 1-based. */
  index: z.number().int().positive(),
  count: z.number().int().positive(),
  /** SHA-256 of the whole selected module list (project-relative paths), the same in every shard of a run. */
  modulesDigest: z.string(),
  /** The configuration file as the shard named it, for `merge`'s stale-`accept` message. */
  config: z.string().optional(),
  /** The accept entries this shard could judge (it loaded what they name). */
  accept: z.array(ShardAcceptSchema).optional(),
});

/** Which gate-audit wrote a report, on which SDK, and whether that SDK lies in gate-audit's tested range. */
export const GeneratorSchema = z.strictObject({
  name: z.literal('gate-audit'),
  /** gate-audit's version. */
  version: z.string(),
  /** The `@strands-agents/sdk` version it ran on (several, comma-separated, in a merged report). */
  sdk: z.string(),
  /** True when that SDK lies in the tested range (in a merged report: when every part's does). */
  sdkTested: z.boolean(),
});

/**
 * Something a run did not audit or held against the report, outside the nodes: an exported function not
 * called (what it builds was not audited), a module skipped because it has nothing to audit, a gated node
 * under another gate than the one required, a module or entry whose load failed (`load`: its process exited,
 * was killed, crashed or hung; always `fails`, and the run exits 2), a module that invoked something while
 * it was imported (its tree was audited where it was invoked), an entry that did not start the process guard
 * (`process-guard`, failing under `--require-process-guard`), a module whose own `installMultiagent` refused a
 * tree while it loaded or in a factory (`refused-tree`, always `fails`: its rows are the refused nodes), a
 * gate built with `allowWritableKeyring: true` (`writable-keyring`: a keyring its agent's user may rewrite is
 * accepted; reported, never failing).
 */
export const CoverageNoteSchema = z.strictObject({
  kind: z.enum([
    'unaudited-export',
    'skipped-module',
    'gate-mismatch',
    'load',
    'invoked-at-import',
    'process-guard',
    'refused-tree',
    'writable-keyring',
  ]),
  module: z.string(),
  export: z.string().optional(),
  /** The node, for a gate mismatch. */
  path: z.array(z.string()).optional(),
  /** What is wrong, in a sentence. */
  message: z.string(),
  fix: z.string().optional(),
  /** Whether it fails the run (`failOnUnaudited`, `requireGate`). */
  fails: z.boolean().optional(),
});

/** How one entry run (`--entry`) went: how many invocations it made and how it ended. */
export const EntryRunSchema = z.strictObject({
  /** The entry, relative to the working directory. */
  module: z.string(),
  /** Invocations of an Agent, Graph or Swarm it made (each was stopped; each tree audited once). */
  invocations: z.number().int().nonnegative(),
  /** `exit`: the entry's process ended; `settle`: no new invocation within the settle time; `timeout`. */
  ended: z.enum(['exit', 'settle', 'timeout', 'signal']),
  exitCode: z.number().int().optional(),
  signal: z.string().optional(),
  /**
   * Whether the entry had the process guard standing before its first invocation (`guardProcess` in its
   * startup, or config `processGuard`, started as `--import gate-audit/register` would), and which.
   */
  processGuard: z
    .strictObject({
      installed: z.boolean(),
      by: z.enum(['guardProcess', 'register']).optional(),
      onUngated: z.enum(['refuse', 'install']).optional(),
      gates: z.array(GateIdentitySchema).optional(),
    })
    .optional(),
});

/** The whole report. */
export const CoverageReportSchema = z.strictObject({
  /** 2 since nodes carry their `gate`; later additive fields keep 2. */
  schemaVersion: z.literal(2),
  /** `audit`: the tree as it stands; `plan`: as `installMultiagent` would leave it. */
  mode: z.enum(['audit', 'plan']),
  root: z.strictObject({
    id: z.string(),
    kind: z.enum(['graph', 'swarm', 'agent', 'agent-tool', 'remote', 'custom', 'bundle']),
  }),
  nodes: z.array(CoverageNodeSchema),
  edges: z.array(CoverageEdgeSchema),
  summary: CoverageSummarySchema,
  /** In plan mode: the problems that make `installMultiagent` refuse the whole tree. */
  refusals: z.array(
    z.strictObject({ path: z.array(z.string()), kind: z.string(), reason: z.string(), fix: z.string() }),
  ),
  sources: z.array(CoverageSourceSchema),
  /** Written by every report of this version; optional so that earlier schema-2 reports still validate. */
  generator: GeneratorSchema.optional(),
  /** What the CLI did not audit, or held against the report (absent from a library `audit`). */
  notes: z.array(CoverageNoteSchema).optional(),
  /** Present when the report is one shard of a run split with `--shard i/n` (`merge` joins the shards). */
  shard: ShardSchema.optional(),
  /** The entry runs of `--entry`, in order. */
  entries: z.array(EntryRunSchema).optional(),
});

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = 2;

/** Whether a status counts as covered: gated, or attested by a custom node's own declaration. */
export function isCovered(status: NodeStatus): boolean {
  return status === 'gated' || status === 'attested';
}

/** Coverage status of one node. */
export type NodeStatus = z.infer<typeof NodeStatusSchema>;
/** One node of the coverage graph. */
export type CoverageNode = z.infer<typeof CoverageNodeSchema>;
/** One edge of the coverage graph. */
export type CoverageEdge = z.infer<typeof CoverageEdgeSchema>;
/** Counts per status and the coverage ratio. */
export type CoverageSummary = z.infer<typeof CoverageSummarySchema>;
/** The whole report. */
export type CoverageReport = z.infer<typeof CoverageReportSchema>;
/** Which gate-audit wrote a report, on which SDK. */
export type Generator = z.infer<typeof GeneratorSchema>;
/** Something a run did not audit or held against the report, outside the nodes. */
export type CoverageNote = z.infer<typeof CoverageNoteSchema>;
/** How one entry run went. */
export type EntryRun = z.infer<typeof EntryRunSchema>;
/** Which part of a sharded run a report is. */
export type Shard = z.infer<typeof ShardSchema>;
/** Which gate covers a node. */
export type GateIdentity = z.infer<typeof GateIdentitySchema>;
