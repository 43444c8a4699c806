/**
 * The observed report from classified tool calls: counted per agent (its place when known, else its id) and
 * tool, held against an audit report (drift notes), merged across hosts, and its exit code. Pure: calls and
 * reports in, a report out; reading files is the CLI's.
 */
import { GateAuditError } from '../errors.js';
import { escapeSegment, joinPath } from '../tree-paths.js';
import { quoted, visible, visiblePath } from '../escape.js';
import type { ClassifiedCall } from './observed-traces.js';
import { rowKey } from './observed-traces.js';
import {
  OBSERVED_SCHEMA_VERSION,
  type ObservedNote,
  type ObservedReport,
  type ObservedRow,
  type ObservedSource,
  type ObservedSummary,
} from './observed-schema.js';
import type { CoverageReport } from './schema.js';

interface Tally {
  path: readonly string[] | undefined;
  agentId: string | undefined;
  tool: string;
  decided: number;
  undecided: number;
  refused: number;
  first: number;
  last: number;
}

/** Counts classified calls per agent and tool. */
export class ObservedCounts {
  private readonly _rows = new Map<string, Tally>();
  private readonly _hosts = new Set<string>();

  /** Counts one call. */
  add(call: ClassifiedCall): void {
    const key = rowKey(call.path, call.agentId, call.tool);
    let row = this._rows.get(key);
    if (row === undefined) {
      row = {
        path: call.path,
        agentId: call.agentId,
        tool: call.tool,
        decided: 0,
        undecided: 0,
        refused: 0,
        first: call.atMs,
        last: call.atMs,
      };
      this._rows.set(key, row);
    }
    row[call.outcome] += 1;
    if (call.atMs < row.first) row.first = call.atMs;
    if (call.atMs > row.last) row.last = call.atMs;
    if (call.host !== undefined) this._hosts.add(call.host);
  }

  /** The rows, sorted. */
  rows(): ObservedRow[] {
    return sortRows(
      [...this._rows.values()].map((t) => ({
        ...(t.path === undefined ? {} : { path: [...t.path] }),
        ...(t.agentId === undefined ? {} : { agentId: t.agentId }),
        tool: t.tool,
        calls: t.decided + t.undecided + t.refused,
        decided: t.decided,
        undecided: t.undecided,
        refused: t.refused,
        firstSeen: instant(t.first),
        lastSeen: instant(t.last),
      })),
    );
  }

  /** The hosts of the calls, sorted. */
  hosts(): string[] {
    return [...this._hosts].sort();
  }
}

/** An instant in milliseconds as the report writes it (clamped to what a date can hold). */
export function instant(ms: number): string {
  return new Date(Math.min(Math.max(ms, -8.64e15), 8.64e15)).toISOString();
}

/** The order of rows: by place (rows without one by agent id, after those with one), then tool. */
function sortRows(rows: ObservedRow[]): ObservedRow[] {
  const label = (row: ObservedRow): string =>
    row.path !== undefined ? `0${joinPath(row.path)}` : row.agentId !== undefined ? `1${row.agentId}` : '2';
  return rows.sort((a, b) => {
    const byAgent = compare(label(a), label(b));
    return byAgent !== 0 ? byAgent : compare(a.tool, b.tool);
  });
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Totals over rows. */
export function summarizeRows(rows: readonly ObservedRow[]): ObservedSummary {
  const sum = (key: 'calls' | 'decided' | 'undecided' | 'refused'): number =>
    rows.reduce((total, row) => total + row[key], 0);
  return {
    calls: sum('calls'),
    decided: sum('decided'),
    undecided: sum('undecided'),
    refused: sum('refused'),
    rows: rows.length,
  };
}

/** What an observed report is built from. */
export interface ObservedInput {
  readonly version: string;
  readonly since?: number;
  readonly until?: number;
  readonly counts: ObservedCounts;
  readonly sources: readonly ObservedSource[];
}

/**
 * The observed report of counted calls.
 *
 * @param input - the counts, window, sources and gate-audit's version
 */
export function toObservedReport(input: ObservedInput): ObservedReport {
  const rows = input.counts.rows();
  return {
    schemaVersion: OBSERVED_SCHEMA_VERSION,
    mode: 'observed',
    generator: { name: 'gate-audit', version: input.version },
    window: windowOf(input.since, input.until, rows),
    hosts: input.counts.hosts(),
    sources: [...input.sources],
    rows,
    summary: summarizeRows(rows),
    notes: [],
  };
}

function windowOf(
  since: number | undefined,
  until: number | undefined,
  rows: readonly ObservedRow[],
): ObservedReport['window'] {
  let first: string | undefined;
  let last: string | undefined;
  for (const row of rows) {
    if (first === undefined || row.firstSeen < first) first = row.firstSeen;
    if (last === undefined || row.lastSeen > last) last = row.lastSeen;
  }
  return {
    ...(since === undefined ? {} : { since: instant(since) }),
    ...(until === undefined ? {} : { until: instant(until) }),
    ...(first === undefined ? {} : { first }),
    ...(last === undefined ? {} : { last }),
  };
}

/** A row's agent for a reader: its place, else its id, else that no span placed it. */
export function rowAgent(row: Pick<ObservedRow, 'path' | 'agentId'>): string {
  if (row.path !== undefined) return visiblePath(row.path);
  if (row.agentId !== undefined) return `agent ${quoted(row.agentId)} (place unknown)`;
  return '(agent unknown)';
}

/**
 * The in-tree paths of an audit report, from its root's id: a combined report's module segment is dropped, so
 * each path starts at the id of the orchestrator (or agent) its module exports.
 */
function auditPaths(audit: CoverageReport): Map<string, CoverageReport['nodes'][number]> {
  const bundle = audit.root.kind === 'bundle';
  const byPath = new Map<string, CoverageReport['nodes'][number]>();
  for (const node of audit.nodes) {
    const source = bundle
      ? audit.sources.find((s) => s.path.length > 0 && s.path.every((segment, i) => node.path[i] === segment))
      : undefined;
    // A combined report's source path is the module's segment; its orchestrator's id comes next.
    const inner = bundle ? node.path.slice(source?.path.length ?? 1) : node.path;
    if (inner.length > 0) byPath.set(joinPath(inner), node);
  }
  return byPath;
}

/**
 * Holds the rows against an audit report: an agent the audit calls gated whose tools ran undecided, and a
 * call decided or refused for an agent the audit never saw. Rows are joined by their place (the in-tree path
 * from the root's id); a row without a place by its agent id, when exactly one audited node has it.
 *
 * @param report - the observed report
 * @param audit - an audit report (`gate-audit --format json`)
 * @returns the report with its notes and `audit`
 */
export function withAuditNotes(report: ObservedReport, audit: CoverageReport): ObservedReport {
  const byPath = auditPaths(audit);
  const byId = new Map<string, CoverageReport['nodes'][number][]>();
  for (const node of byPath.values()) byId.set(node.id, [...(byId.get(node.id) ?? []), node]);
  const notes: ObservedNote[] = [];
  for (const row of report.rows) {
    const node =
      row.path !== undefined
        ? byPath.get(joinPath(row.path))
        : row.agentId !== undefined && byId.get(escapeSegment(row.agentId))?.length === 1
          ? byId.get(escapeSegment(row.agentId))?.[0]
          : undefined;
    const where = {
      ...(row.path === undefined ? {} : { path: row.path }),
      ...(row.agentId === undefined ? {} : { agentId: row.agentId }),
      tool: row.tool,
    };
    if (node?.status === 'gated' && row.undecided > 0) {
      notes.push({
        kind: 'gated-undecided',
        ...where,
        message:
          `${rowAgent(row)} is gated in the audit of ${quoted(audit.root.id)}, but its tool ${quoted(row.tool)} ` +
          `ran undecided ${row.undecided} time${row.undecided === 1 ? '' : 's'} in the window: the agent that ran is not the one audited, or lost its gate`,
      });
    }
    if (node === undefined && (row.path !== undefined || row.agentId !== undefined) && row.decided + row.refused > 0) {
      notes.push({
        kind: 'unaudited',
        ...where,
        message:
          `${rowAgent(row)} had ${row.decided + row.refused} call${row.decided + row.refused === 1 ? '' : 's'} of ${quoted(row.tool)} decided, ` +
          `but the audit of ${quoted(audit.root.id)} never saw it: audit the module that builds it`,
      });
    }
  }
  return { ...report, audit: { root: audit.root.id }, notes };
}

/**
 * The exit code of an observed report: 2 when no tool call was seen, 1 when any call ran undecided, else 0.
 *
 * @param report - the report
 */
export function observedExitCode(report: ObservedReport): number {
  if (report.summary.calls === 0) return 2;
  return report.summary.undecided > 0 ? 1 : 0;
}

/** One observed report to merge, with the name it is shown by (its file). */
export interface ObservedPart {
  readonly name: string;
  readonly report: ObservedReport;
}

/**
 * Joins the observed reports of several hosts: rows of one agent and tool are summed (first and last seen
 * widened), hosts, sources and notes are joined, and the summary is recomputed. Reports held against
 * different audits cannot be joined.
 *
 * @param parts - the reports
 * @throws GateAuditError `USAGE` when two were held against audits of different roots
 */
export function mergeObserved(parts: readonly ObservedPart[]): ObservedReport {
  const rows = new Map<string, ObservedRow>();
  const hosts = new Set<string>();
  const sources: ObservedSource[] = [];
  const notes = new Map<string, ObservedNote>();
  // The window is bounded on a side only when every part's is.
  let since: string | undefined = parts.every((p) => p.report.window.since !== undefined) ? '' : undefined;
  let until: string | undefined = parts.every((p) => p.report.window.until !== undefined) ? '' : undefined;
  let audit: { part: string; root: string } | undefined;
  for (const { name, report } of parts) {
    if (report.audit !== undefined) {
      if (audit !== undefined && audit.root !== report.audit.root) {
        throw new GateAuditError(
          'USAGE',
          `report=<${visible(name)}> | it was held against the audit of ${quoted(report.audit.root)}, ${visible(audit.part)} against ${quoted(audit.root)} | merge reports held against one audit, or none`,
        );
      }
      audit = { part: name, root: report.audit.root };
    }
    for (const row of report.rows) {
      const key = rowKey(row.path, row.agentId, row.tool);
      const before = rows.get(key);
      rows.set(
        key,
        before === undefined
          ? { ...row }
          : {
              ...before,
              calls: before.calls + row.calls,
              decided: before.decided + row.decided,
              undecided: before.undecided + row.undecided,
              refused: before.refused + row.refused,
              firstSeen: row.firstSeen < before.firstSeen ? row.firstSeen : before.firstSeen,
              lastSeen: row.lastSeen > before.lastSeen ? row.lastSeen : before.lastSeen,
            },
      );
    }
    for (const host of report.hosts) hosts.add(host);
    sources.push(...report.sources);
    for (const note of report.notes) notes.set(JSON.stringify([note.kind, note.path, note.agentId, note.tool]), note);
    if (since !== undefined && report.window.since !== undefined && (since === '' || report.window.since < since)) {
      since = report.window.since;
    }
    if (until !== undefined && report.window.until !== undefined && report.window.until > until) {
      until = report.window.until;
    }
  }
  const merged = sortRows([...rows.values()]);
  const window = windowOf(undefined, undefined, merged);
  return {
    schemaVersion: OBSERVED_SCHEMA_VERSION,
    mode: 'observed',
    generator: { name: 'gate-audit', version: [...new Set(parts.map((p) => p.report.generator.version))].join(', ') },
    window: { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }), ...window },
    hosts: [...hosts].sort(),
    sources,
    rows: merged,
    summary: summarizeRows(merged),
    ...(audit === undefined ? {} : { audit: { root: audit.root } }),
    notes: [...notes.values()],
  };
}
