/**
 * `gate-audit observed <traces…>`: coverage from what really ran. Reads OpenTelemetry traces as OTLP JSON (one
 * `ExportTraceServiceRequest` per line, as the Collector's file exporter writes with `format: json`; plain or
 * gzip, told by the file's first bytes) and, optionally, decision logs (`--log`, `--store`), and reports per
 * agent and tool how many calls were decided, undecided or refused (`report/observed-traces.ts`). With
 * `--audit <report.json>` it notes drift against an audit report. Files are read as streams, line by line:
 * memory is bounded by the spans of the traces still open, not by the size of the files.
 *
 * Exit codes: 0 every call decided or refused, 1 a call ran undecided, 2 an unreadable file, a malformed
 * line (named by file and line), a window with no tool call, or a usage error.
 *
 * `gate-audit merge` hands observed reports to `mergeObservedCommand` here.
 */
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { GateAuditError, messageOf } from '../../errors.js';
import { gateAuditVersion } from '../../report/own-version.js';
import {
  mergeObserved,
  ObservedCounts,
  type ObservedPart,
  observedExitCode,
  toObservedReport,
  withAuditNotes,
} from '../../report/observed.js';
import {
  OBSERVED_SCHEMA_VERSION,
  type ObservedReport,
  ObservedReportSchema,
  type ObservedSource,
} from '../../report/observed-schema.js';
import { DecisionIndex, OBSERVED_ATTRIBUTES, ObservedTraces } from '../../report/observed-traces.js';
import { OtlpLineError, readTraceLine } from '../../report/otlp.js';
import {
  isObservedFormat,
  OBSERVED_FORMAT_NAMES,
  OBSERVED_RENDERERS,
  type ObservedFormatName,
} from '../../report/render/observed/index.js';
import { type CoverageReport, CoverageReportSchema, SCHEMA_VERSION } from '../../report/schema.js';
import { visible } from '../../escape.js';
import { Inputs, type ReporterSpec, refuseOverwrites, writeReport } from '../outputs.js';
import { type ReporterChoice, type ReporterFlags, reportersOf, splitReporter } from '../reporters.js';
import type * as postgres from '../../stores/postgres.js';
import type { Streams } from './policy-commands.js';
import { commandOutput } from '../command-output.js';
import { StoreCommandError, storeUrlOf } from './store-commands.js';

/** Longest line read; a longer one is malformed (no batch of spans is that long). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

interface ObservedOptions {
  log?: string[];
  store?: string;
  storeFile?: string;
  audit?: string;
  since?: number;
  until?: number;
  format?: string;
  outputFile?: string;
  reporter?: ReporterChoice[];
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * An instant of `--since`/`--until`: an ISO 8601 date or date-time, or a duration before now (`90m`, `24h`,
 * `7d`).
 *
 * @param value - as given
 * @param now - milliseconds since the epoch
 * @returns milliseconds since the epoch
 */
export function parseInstant(value: string, now: number): number {
  const duration = DURATION.exec(value.trim());
  if (duration !== null) return now - Number(duration[1]) * (UNIT_MS[duration[2] ?? 'ms'] ?? 1);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new InvalidArgumentError(
      'expected an ISO 8601 date or date-time (2026-01-31, 2026-01-31T12:00:00Z) or a duration before now (90m, 24h, 7d)',
    );
  }
  return ms;
}

function program(streams: Streams, now: number): Command {
  return new Command('gate-audit observed')
    .description(
      'Coverage observed from real runs: which tool calls in OpenTelemetry traces were decided by a gate, refused, or ran undecided.',
    )
    .argument(
      '<traces...>',
      "OTLP JSON trace files (one request per line, as the Collector's file exporter writes; gzip too)",
    )
    .option('--log <file>', 'a decision log whose records decide the calls they match (repeatable)', collect)
    .option('--store <url>', "a PostgreSQL decision log's connection string, without a password (postgresql://…)")
    .option('--store-file <file>', 'a file holding that connection string (it may hold the password)')
    .option('--audit <report.json>', 'an audit report (gate-audit --format json) to note drift against')
    .option(
      '--since <time>',
      'only calls that started at or after this instant (ISO 8601, or 24h, 7d before now)',
      (v) => parseInstant(v, now),
    )
    .option('--until <time>', 'only calls that started before this instant', (v) => parseInstant(v, now))
    .option('--format <format>', `the report's format: ${OBSERVED_FORMAT_NAMES.join(', ')} (default text)`)
    .option('--output-file <path>', 'write the report to this file instead of stdout')
    .option(
      '--reporter <name[=file]>',
      'a report, to stdout or a file (repeatable)',
      (value: string, previous: ReporterChoice[] = []) => [...previous, splitReporter(value)],
    )
    .addHelpText(
      'after',
      '\nA call is decided when its span carries gate_audit.verdict=allow (gateSpanProcessor) or an allowing record\n' +
        'of --log/--store matches it, refused when gate-audit refused it (its own span), undecided otherwise.\n' +
        'Exit codes: 0 every call decided or refused · 1 a call ran undecided · 2 an unreadable file, a malformed\n' +
        'line, a window with no tool call, or a usage error',
    )
    .exitOverride()
    .configureOutput(commandOutput(streams, 'gate-audit observed'));
}

/** The reporters of the observed report: its own formats, text to stdout by default. */
function observedReporters(flags: ReporterFlags, cwd: string): ReporterSpec[] {
  return reportersOf(flags, {
    cwd,
    writes: isObservedFormat,
    refuse: (format) =>
      new GateAuditError(
        'USAGE',
        `format=<${visible(format)}> | not a format of the observed report | choose ${OBSERVED_FORMAT_NAMES.join(', ')}`,
      ),
    otherwise: () => [{ format: 'text' }],
  });
}

/** A file that cannot be read, as the error the CLI prints. */
function unreadable(shown: string, error: unknown, after?: number): GateAuditError {
  const where = after === undefined || after === 0 ? '' : ` after line ${after}`;
  return new GateAuditError(
    'USAGE',
    `file=<${visible(shown)}> | cannot read it${where}: ${visible(messageOf(error))} | check the path, and that the file is whole`,
    { cause: error },
  );
}

/** A malformed line, named by its file and line. */
function malformed(shown: string, line: number, problem: string, fix: string): GateAuditError {
  return new GateAuditError('USAGE', `file=<${visible(shown)}>, line=<${line}> | ${visible(problem)} | ${fix}`);
}

/** The stream of a file's bytes: decompressed when its first bytes are gzip's magic number. */
async function bytesOf(file: string): Promise<Readable> {
  const handle: FileHandle = await open(file, 'r');
  let head: Buffer;
  try {
    const read = await handle.read(Buffer.alloc(2), 0, 2, 0);
    head = read.buffer.subarray(0, read.bytesRead);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const raw = handle.createReadStream({ start: 0, highWaterMark: 1024 * 1024 });
  if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) return raw;
  const gunzip = createGunzip();
  raw.on('error', (error) => gunzip.destroy(error));
  gunzip.on('close', () => raw.destroy());
  return raw.pipe(gunzip);
}

/** One line of a file, without its line terminator. */
interface Line {
  readonly text: string;
  /** 1-based. */
  readonly number: number;
}

/**
 * The lines of a file, one at a time: memory holds the longest line, whatever the file's size.
 *
 * @param file - the file, absolute
 * @param shown - the file as named, for errors
 * @throws GateAuditError when it cannot be read, or a line is longer than 64 MiB
 */
async function* linesOf(file: string, shown: string): AsyncGenerator<Line, number, undefined> {
  let stream: Readable;
  try {
    stream = await bytesOf(file);
  } catch (error) {
    throw unreadable(shown, error);
  }
  let number = 0;
  let pieces: Buffer[] = [];
  let pending = 0;
  const text = (bytes: Buffer): Line => {
    number += 1;
    let line = bytes.toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (number === 1 && line.startsWith('\uFEFF')) line = line.slice(1);
    return { text: line, number };
  };
  const tooLong = (): GateAuditError =>
    malformed(
      shown,
      number + 1,
      `the line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB`,
      'split the file into requests of fewer spans',
    );
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
        let bytes = chunk.subarray(start, end);
        if (pieces.length > 0) {
          if (pending + bytes.length > MAX_LINE_BYTES) throw tooLong();
          bytes = Buffer.concat([...pieces, bytes]);
          pieces = [];
          pending = 0;
        } else if (bytes.length > MAX_LINE_BYTES) {
          throw tooLong();
        }
        yield text(bytes);
        start = end + 1;
      }
      if (start < chunk.length) {
        pending += chunk.length - start;
        if (pending > MAX_LINE_BYTES) throw tooLong();
        pieces.push(chunk.subarray(start));
      }
    }
  } catch (error) {
    if (error instanceof GateAuditError) throw error;
    throw unreadable(shown, error, number);
  } finally {
    stream.destroy();
  }
  if (pieces.length > 0) yield text(Buffer.concat(pieces));
  return number;
}

const TRACE_ID = /^[0-9a-fA-F]{32}$/;
const SPAN_ID = /^[0-9a-fA-F]{16}$/;

/** Indexes one decision record (a file line or a store row); returns whether it was indexed. */
function indexRecord(record: unknown, index: DecisionIndex, problem: (what: string) => GateAuditError): boolean {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw problem('the record is not a JSON object');
  }
  const { traceId, spanId, toolUseId, agentId, toolName, verdict } = record as Record<string, unknown>;
  if (traceId === undefined && spanId === undefined) return false;
  if (typeof traceId !== 'string' || !TRACE_ID.test(traceId) || typeof spanId !== 'string' || !SPAN_ID.test(spanId)) {
    throw problem('the record has a traceId or spanId that is not 32 or 16 hex digits');
  }
  if (typeof toolUseId !== 'string' || typeof verdict !== 'string') return false;
  return index.add({
    traceId,
    spanId,
    toolUseId,
    verdict,
    ...(typeof agentId === 'string' ? { agentId } : {}),
    ...(typeof toolName === 'string' ? { toolName } : {}),
  });
}

const LOG_FIX = 'give the decision logs gate-audit writes (log: { destination }), one JSON record per line';

async function readLog(file: string, shown: string, index: DecisionIndex): Promise<ObservedSource> {
  let used = 0;
  const lines = linesOf(file, shown);
  let read = 0;
  for await (const { text, number } of lines) {
    read = number;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      throw malformed(shown, number, `not JSON (${messageOf(error)})`, LOG_FIX);
    }
    if (indexRecord(record, index, (what) => malformed(shown, number, what, LOG_FIX))) used += 1;
  }
  return { name: shown, kind: 'log', read, used };
}

async function readStore(url: string, index: DecisionIndex): Promise<ObservedSource> {
  let stores: typeof postgres;
  try {
    stores = await import('../../stores/postgres.js');
  } catch (error) {
    throw new GateAuditError(
      'USAGE',
      `store=<postgres> | cannot load the PostgreSQL store (${visible(messageOf(error))}) | npm install pg`,
      { cause: error },
    );
  }
  const store = stores.postgresStore({ connectionString: url });
  let read = 0;
  let used = 0;
  try {
    for await (const { id, record } of stores.storeRecords(store)) {
      read += 1;
      const problem = (what: string): GateAuditError =>
        new GateAuditError(
          'USAGE',
          `store=<postgres>, record=<${visible(id)}> | ${what} | check the log with gate-audit verify-log --store`,
        );
      if (record === undefined) throw problem('the record is not a JSON object');
      if (indexRecord(record, index, problem)) used += 1;
    }
  } catch (error) {
    if (error instanceof GateAuditError) throw error;
    throw new GateAuditError(
      'USAGE',
      `store=<postgres> | ${visible(messageOf(error))} | check the --store connection string and that the server runs`,
      { cause: error },
    );
  } finally {
    await store.close().catch(() => undefined);
  }
  return { name: 'postgres', kind: 'store', read, used };
}

const TRACES_FIX =
  "give OTLP JSON traces, one ExportTraceServiceRequest per line (the Collector's file exporter with format: json)";

async function readTraces(file: string, shown: string, traces: ObservedTraces): Promise<ObservedSource> {
  let read = 0;
  let used = 0;
  for await (const { text, number } of linesOf(file, shown)) {
    read = number;
    if (text.trim() === '') continue;
    try {
      readTraceLine(text, OBSERVED_ATTRIBUTES, (span) => {
        if (traces.add(span)) used += 1;
      });
    } catch (error) {
      if (error instanceof OtlpLineError) throw malformed(shown, number, error.message, TRACES_FIX);
      throw error;
    }
  }
  return { name: shown, kind: 'traces', read, used };
}

async function readJson(file: string, shown: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadable(shown, error);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GateAuditError(
      'USAGE',
      `report=<${visible(shown)}> | cannot read it as JSON: ${visible(messageOf(error))} | give ${what}`,
      { cause: error },
    );
  }
}

async function readAudit(file: string, shown: string): Promise<CoverageReport> {
  const raw = await readJson(file, shown, 'the JSON report of an audit (gate-audit --format json)');
  const mode = (raw as { mode?: unknown } | null)?.mode;
  if (mode === 'observed') {
    throw new GateAuditError(
      'USAGE',
      `audit=<${visible(shown)}> | it is an observed report, not an audit | give the JSON report of an audit (gate-audit --format json)`,
    );
  }
  const parsed = CoverageReportSchema.safeParse(raw);
  if (!parsed.success || (raw as { schemaVersion?: unknown }).schemaVersion !== SCHEMA_VERSION) {
    throw new GateAuditError(
      'USAGE',
      `audit=<${visible(shown)}> | not a gate-audit audit report of schema version ${SCHEMA_VERSION} | give the JSON report of an audit (gate-audit --format json)`,
    );
  }
  return parsed.data;
}

/** Renders and writes every report; stdout carries the one without a file. */
function writeAll(
  report: ObservedReport,
  reporters: readonly ReporterSpec[],
  streams: Streams,
  cwd: string,
  name: string,
): void {
  const version = gateAuditVersion();
  for (const reporter of reporters) {
    const text = OBSERVED_RENDERERS[reporter.format as ObservedFormatName](report, { version });
    if (reporter.file === undefined) {
      streams.stdout.write(text);
      continue;
    }
    writeReport({ ...reporter, file: reporter.file }, text);
    const s = report.summary;
    streams.stderr.write(
      `${name}: wrote ${reporter.format} report to ${visible(reporter.shown ?? relative(cwd, reporter.file))} (${s.undecided} of ${s.calls} tool calls undecided)\n`,
    );
  }
}

/** Runs the command's work; errors are thrown. */
async function observe(argv: readonly string[], streams: Streams, cwd: string, now: number): Promise<number> {
  const command = program(streams, now);
  command.parse([...argv], { from: 'user' });
  const options = command.opts<ObservedOptions>();
  const reporters = observedReporters(options, cwd);
  if (options.since !== undefined && options.until !== undefined && options.until <= options.since) {
    throw new GateAuditError(
      'USAGE',
      'option=<--until> | the window ends before it starts | give --until after --since',
    );
  }
  const inputs = new Inputs();
  const traceFiles = command.args.map((arg) => ({ shown: arg, file: resolve(cwd, arg) }));
  for (const { file } of traceFiles) inputs.add(file, 'a trace file this run reads');
  for (const log of options.log ?? []) inputs.add(resolve(cwd, log), 'a decision log this run reads');
  if (options.audit !== undefined) inputs.add(resolve(cwd, options.audit), 'the audit report');
  refuseOverwrites(reporters, inputs, cwd);
  const audit = options.audit === undefined ? undefined : await readAudit(resolve(cwd, options.audit), options.audit);
  const sources: ObservedSource[] = [];
  const decisions = new DecisionIndex();
  for (const log of options.log ?? []) sources.push(await readLog(resolve(cwd, log), log, decisions));
  if (options.store !== undefined || options.storeFile !== undefined) {
    let url: string;
    try {
      url = storeUrlOf(options, cwd);
    } catch (error) {
      // A password on the command line (ps and shell history show it), or an unreadable store file.
      if (error instanceof StoreCommandError) throw new GateAuditError('USAGE', error.message);
      throw error;
    }
    sources.push(await readStore(url, decisions));
  }
  const counts = new ObservedCounts();
  const traces = new ObservedTraces(
    {
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(options.until === undefined ? {} : { until: options.until }),
      ...(decisions.size === 0 ? {} : { decisions }),
    },
    (call) => counts.add(call),
  );
  for (const { file, shown } of traceFiles) sources.push(await readTraces(file, shown, traces));
  traces.end();
  let report = toObservedReport({
    version: gateAuditVersion(),
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    counts,
    sources,
  });
  if (report.summary.calls === 0) {
    const spans = sources.filter((s) => s.kind === 'traces').reduce((n, s) => n + s.read, 0);
    throw new GateAuditError(
      'USAGE',
      `window=<${visible(report.window.since ?? 'start')} to ${visible(report.window.until ?? 'end')}> | no tool-execution span in the window (${spans} line${spans === 1 ? '' : 's'} read in ${traceFiles.length} file${traceFiles.length === 1 ? '' : 's'}) | widen --since/--until, or check that the app registers a tracer provider and the Collector exports its traces`,
    );
  }
  if (audit !== undefined) report = withAuditNotes(report, audit);
  writeAll(report, reporters, streams, cwd, 'gate-audit observed');
  return observedExitCode(report);
}

/**
 * Runs `gate-audit observed`.
 *
 * @param argv - the arguments after `observed`
 * @param streams - stdout for the report, stderr for messages
 * @param cwd - the working directory
 * @param now - the current time in milliseconds (for `--since 24h`)
 * @returns the exit code
 */
export async function observedCommand(
  argv: readonly string[],
  streams: Streams,
  cwd: string,
  now: number = Date.now(),
): Promise<number> {
  try {
    return await observe(argv, streams, cwd, now);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' ? 0 : 2;
    }
    const message = error instanceof GateAuditError ? error.message : `unexpected error: ${visible(messageOf(error))}`;
    streams.stderr.write(`gate-audit observed: ${message}\n`);
    return 2;
  }
}

/** Whether the JSON at `file` is an observed report (anything unreadable is not: `merge` reports it). */
export async function isObservedReportFile(file: string): Promise<boolean> {
  try {
    const raw = await readJson(file, file, 'a report');
    return (raw as { mode?: unknown } | null)?.mode === 'observed';
  } catch {
    return false;
  }
}

/** What `merge` passes on. */
export interface ObservedMergeOptions {
  readonly format?: string;
  readonly outputFile?: string;
  readonly reporter?: readonly { format: string; outputFile?: string }[];
  readonly minCoverage?: number;
  readonly exitZero?: boolean;
  readonly quiet?: boolean;
}

/**
 * `gate-audit merge` of observed reports: joins the reports of many hosts into one, exits as `observed` does.
 * Every report must be an observed report of this schema version: an audit report among them is refused.
 *
 * @param files - the reports as named
 * @param options - merge's output options
 * @param streams - stdout for the report, stderr for messages
 * @param cwd - the working directory
 * @returns the exit code
 * @throws GateAuditError `USAGE` for a report that is not an observed report, or options of audit reports
 */
export async function mergeObservedCommand(
  files: readonly string[],
  options: ObservedMergeOptions,
  streams: Streams,
  cwd: string,
): Promise<number> {
  for (const [flag, given] of [
    ['--min-coverage', options.minCoverage !== undefined],
    ['--exit-zero', options.exitZero === true],
    ['--quiet', options.quiet === true],
  ] as const) {
    if (given) {
      throw new GateAuditError('USAGE', `option=<${flag}> | it applies to audit reports, not observed ones | drop it`);
    }
  }
  const reporters = observedReporters(options, cwd);
  const inputs = new Inputs();
  const raws: { shown: string; raw: unknown }[] = [];
  for (const shown of files) {
    const file = resolve(cwd, shown);
    inputs.add(file, 'a report this merge reads');
    raws.push({ shown, raw: await readJson(file, shown, 'the JSON reports gate-audit writes (--format json)') });
  }
  const modeOf = (raw: unknown): unknown => (raw as { mode?: unknown } | null)?.mode;
  const observed = raws.find((r) => modeOf(r.raw) === 'observed')?.shown ?? '?';
  const parts: ObservedPart[] = [];
  for (const { shown, raw } of raws) {
    const mode = modeOf(raw);
    if (mode !== 'observed') {
      throw new GateAuditError(
        'USAGE',
        `report=<${visible(shown)}> | it is ${mode === 'audit' || mode === 'plan' ? 'an audit report' : 'not an observed report'}, and ${visible(observed)} is an observed report: merge joins reports of one kind | merge the audit reports and the observed reports apart`,
      );
    }
    const version = (raw as { schemaVersion?: unknown }).schemaVersion;
    const parsed = ObservedReportSchema.safeParse(raw);
    if (version !== OBSERVED_SCHEMA_VERSION || !parsed.success) {
      const issue = parsed.success ? undefined : parsed.error.issues[0];
      throw new GateAuditError(
        'USAGE',
        `report=<${visible(shown)}>${issue === undefined ? '' : `, field=<${visible(issue.path.map(String).join('.'))}>`} | not an observed report of schema version ${OBSERVED_SCHEMA_VERSION}${issue === undefined ? '' : `: ${visible(issue.message)}`} | merge observed reports written by one gate-audit version`,
      );
    }
    parts.push({ name: shown, report: parsed.data });
  }
  refuseOverwrites(reporters, inputs, cwd);
  const report = mergeObserved(parts);
  writeAll(report, reporters, streams, cwd, 'gate-audit merge');
  streams.stderr.write(
    `gate-audit merge: ${parts.length} observed report${parts.length === 1 ? '' : 's'}, ${report.hosts.length} host${report.hosts.length === 1 ? '' : 's'}, ${report.summary.undecided} of ${report.summary.calls} tool calls undecided\n`,
  );
  return observedExitCode(report);
}
