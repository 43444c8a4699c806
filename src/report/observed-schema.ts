/**
 * The observed-coverage report (`gate-audit observed`): what really ran, read from OpenTelemetry traces and
 * decision logs, per agent and tool. Plain, versioned data with its own schema version (the audit's report
 * is another kind, `CoverageReportSchema`); renderers read this and nothing else.
 */
import { z } from 'zod';

/** An instant, as ISO 8601 in UTC with milliseconds (`2026-01-31T12:00:00.000Z`). */
const Instant = z.iso.datetime();
const Count = z.number().int().nonnegative();

/** The tool calls of one agent and tool in the window. */
export const ObservedRowSchema = z.strictObject({
  /**
   * The agent's place: path segments (escaped ids) from its root, as the audit names it; absent when no span
   * told it (the row is then the agent id's).
   */
  path: z.array(z.string()).min(1).optional(),
  /** The agent's id (`gen_ai.agent.id`), when known; a row with neither is the calls no span placed. */
  agentId: z.string().optional(),
  /** The tool's name. */
  tool: z.string(),
  /** Tool calls seen: decided + undecided + refused. */
  calls: Count,
  /** Calls that ran with an allowance: their span carries it, or a decision record matches them. */
  decided: Count,
  /** Calls that ran with no allowance anywhere: nothing decided them. */
  undecided: Count,
  /** Calls the gate refused (gate-audit's own span; the tool never ran). */
  refused: Count,
  firstSeen: Instant,
  lastSeen: Instant,
});

/** Where the report read from. */
export const ObservedSourceSchema = z.strictObject({
  /** The file as named on the command line, or the store (`postgres`). */
  name: z.string(),
  kind: z.enum(['traces', 'log', 'store']),
  /** Lines (files) or rows (store) read. */
  read: Count,
  /** Tool-execution spans in the window (traces), or records with trace ids indexed (logs). */
  used: Count,
});

/** Something the traces hold against an audit report (`--audit`). */
export const ObservedNoteSchema = z.strictObject({
  /**
   * `gated-undecided`: an agent the audit calls gated ran tools undecided in the window; `unaudited`: a call
   * was decided or refused for an agent the audit never saw.
   */
  kind: z.enum(['gated-undecided', 'unaudited']),
  path: z.array(z.string()).min(1).optional(),
  agentId: z.string().optional(),
  tool: z.string(),
  /** What is wrong, in a sentence. */
  message: z.string(),
});

/** Totals over every row. */
export const ObservedSummarySchema = z.strictObject({
  calls: Count,
  decided: Count,
  undecided: Count,
  refused: Count,
  /** Rows (agent and tool pairs). */
  rows: Count,
});

/** The whole observed report. */
export const ObservedReportSchema = z.strictObject({
  /** 1: this report's own version line, apart from the audit's. */
  schemaVersion: z.literal(1),
  mode: z.literal('observed'),
  generator: z.strictObject({ name: z.literal('gate-audit'), version: z.string() }),
  /** The window asked for (`--since`, `--until`), and the first and last tool call seen in it. */
  window: z.strictObject({
    since: Instant.optional(),
    until: Instant.optional(),
    first: Instant.optional(),
    last: Instant.optional(),
  }),
  /** The hosts the traces came from (`host.name`, else `service.name`, of each span's resource), sorted. */
  hosts: z.array(z.string()),
  sources: z.array(ObservedSourceSchema),
  /** Sorted by place (or agent id), then tool. */
  rows: z.array(ObservedRowSchema),
  summary: ObservedSummarySchema,
  /** The audit report the rows were held against, by its root's id. */
  audit: z.strictObject({ root: z.string() }).optional(),
  notes: z.array(ObservedNoteSchema),
});

/** The schema version this build writes and reads for observed reports. */
export const OBSERVED_SCHEMA_VERSION = 1;

/** The tool calls of one agent and tool in the window. */
export type ObservedRow = z.infer<typeof ObservedRowSchema>;
/** Where the report read from. */
export type ObservedSource = z.infer<typeof ObservedSourceSchema>;
/** Something the traces hold against an audit report. */
export type ObservedNote = z.infer<typeof ObservedNoteSchema>;
/** Totals over every row. */
export type ObservedSummary = z.infer<typeof ObservedSummarySchema>;
/** The whole observed report. */
export type ObservedReport = z.infer<typeof ObservedReportSchema>;
