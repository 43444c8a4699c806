/**
 * The decision log: one JSON line per decision, written by pino to a synchronous destination, optionally
 * hash-chained so that `verifyLog` finds the first changed, removed or inserted record.
 *
 * Chaining: each record carries `seq` (0, 1, 2, …), `prev` (the previous record's `hash`, `null` for the
 * first) and, last, `hash`: the SHA-256 of the line without its `hash`. A log reopened later continues the
 * chain from its last line. One process writes a file at a time. Without a key, someone who rewrites the
 * file and recomputes every hash is not caught: keep the last hash elsewhere to anchor it.
 *
 * Fail closed: a write that fails throws, so the enforcement point refuses the call (and stops the run);
 * after a failure the log stays failed and every later call is refused too. Nothing is dropped silently.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { GateRecord } from '../enforce/gate.js';
import { GateAuditError, messageOf } from '../errors.js';
import { joinPath } from '../paths.js';
import { inputDigest } from './approval.js';

/** Where the decision log goes and what it holds. */
export interface DecisionLogOptions {
  /** A file path (appended to), an open file descriptor, or a stream-like `{ write(line) }` that throws on failure. */
  readonly destination: string | number | { write(line: string): unknown };
  /** Hash-chain the records (`seq`, `prev`) so `gate-audit verify-log` can check them. Default `true`. */
  readonly chain?: boolean;
  /** Also write the raw input of each call (it may hold secrets). Default `false`: only its SHA-256. */
  readonly includeInput?: boolean;
}

/** Writes gate records; throws when a record cannot be written. */
export type RecordWriter = (gateName: string, record: GateRecord) => void;

const CHUNK = 64 * 1024;

/** The last non-empty line of a file (read backwards in chunks), or undefined for an empty file. */
function lastLine(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    let end = fstatSync(fd).size;
    let tail = '';
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const buffer = Buffer.alloc(end - start);
      readSync(fd, buffer, 0, buffer.length, start);
      tail = buffer.toString('utf8') + tail;
      end = start;
      const trimmed = tail.replace(/\n+$/, '');
      const cut = trimmed.lastIndexOf('\n');
      if (cut >= 0 || end === 0) return trimmed.slice(cut + 1) || undefined;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Where the chain continues in an existing log file. */
function chainStart(path: string): { seq: number; prev: string | null } {
  const line = lastLine(path);
  if (line === undefined) return { seq: 0, prev: null };
  let record: { seq?: unknown; hash?: unknown } = {};
  try {
    record = JSON.parse(line) as { seq?: unknown; hash?: unknown };
  } catch {
    // Reported below.
  }
  const { seq, hash } = record;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || typeof hash !== 'string') {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `file=<${path}> | the decision log's last record is not a chained record, so the chain cannot continue | ` +
        'check it with gate-audit verify-log, then move it away or pass { chain: false }',
    );
  }
  return { seq: seq + 1, prev: hash };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Opens a decision log.
 *
 * @param options - destination, chaining, whether to include raw inputs
 * @returns a writer for gate records
 * @throws GateAuditError when the destination cannot be opened, or an existing chained file cannot be continued
 */
export function openDecisionLog(options: DecisionLogOptions): RecordWriter {
  const chain = options.chain ?? true;
  let failure: string | undefined;
  let sink: { write(line: string): unknown };
  let state = { seq: 0, prev: null as string | null };
  const { destination } = options;
  if (typeof destination === 'string' || typeof destination === 'number') {
    if (typeof destination === 'string' && chain) state = chainStart(destination);
    let boom: ReturnType<typeof pino.destination>;
    try {
      boom = pino.destination({ dest: destination, sync: true, append: true });
    } catch (error) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `destination=<${destination}> | cannot open the decision log: ${messageOf(error)}`,
        { cause: error },
      );
    }
    // A synchronous SonicBoom reports a failed write as an 'error' event, not a throw.
    boom.on('error', (error: Error) => {
      failure ??= error.message;
    });
    sink = boom;
  } else if (typeof destination === 'object' && destination !== null && typeof destination.write === 'function') {
    sink = destination;
  } else {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      'option=<log.destination> | expected a file path, a descriptor or { write(line) }',
    );
  }
  const written: { hash?: string } = {};
  const lastHash = (): string | undefined => written.hash;
  const logger: Logger = pino(
    {
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    {
      write: (line: string): void => {
        const body = line.replace(/\n$/, '');
        const hash = sha256(body);
        // The record's own hash closes the line: `{…,"hash":"<sha256 of the line without it>"}`.
        sink.write(chain ? `${body.slice(0, -1)},"hash":"${hash}"}\n` : line);
        if (failure !== undefined) throw new Error(failure);
        written.hash = hash;
      },
    },
  );
  return (gateName, record) => {
    if (failure !== undefined) throw new Error(`the decision log failed earlier: ${failure}`);
    const { input, path, paths, durationMs, ...fields } = record;
    let digest: string | undefined;
    if (input !== undefined) {
      try {
        digest = inputDigest(input);
      } catch {
        digest = undefined;
      }
    }
    const entry = {
      ...(chain ? { seq: state.seq, prev: state.prev } : {}),
      gate: gateName,
      ...fields,
      path: joinPath(path),
      ...(paths === undefined ? {} : { paths: paths.map(joinPath) }),
      ...(digest === undefined ? {} : { inputSha256: digest }),
      ...(options.includeInput === true && input !== undefined ? { input } : {}),
      ...(durationMs === undefined ? {} : { durationMs: Math.round(durationMs * 1000) / 1000 }),
    };
    const level =
      record.verdict === 'allow' ? 'info' : record.event === 'error' || record.event === 'tampering' ? 'error' : 'warn';
    delete written.hash;
    try {
      logger[level](entry);
    } catch (error) {
      failure ??= messageOf(error);
      throw new Error(`the decision log failed: ${failure}`, { cause: error });
    }
    const hash = lastHash();
    if (hash === undefined) throw new Error('the decision log wrote nothing');
    if (chain) state = { seq: state.seq + 1, prev: hash };
  };
}

/** What `verifyLog` found. */
export type LogVerification =
  | { ok: true; records: number; lastHash: string | null }
  | { ok: false; records: number; line: number; problem: string };

/**
 * Checks a chained decision log: every line is a JSON record whose `hash` is the SHA-256 of the line
 * without it, `seq` counts up from 0 without a gap, and each `prev` is the `hash` of the record before.
 * This finds a record changed, removed or inserted by anyone who did not also recompute every later hash;
 * compare `lastHash` with a copy kept elsewhere to catch a rewrite or a cut tail.
 *
 * @param text - the log file's content
 * @returns OK with the number of records and the last hash, or the first broken or missing record
 */
export function verifyLog(text: string): LogVerification {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let previous: string | null = null;
  for (const [index, line] of lines.entries()) {
    const fail = (problem: string): LogVerification => ({ ok: false, records: index, line: index + 1, problem });
    let record: { seq?: unknown; prev?: unknown; hash?: unknown };
    try {
      record = JSON.parse(line) as { seq?: unknown; prev?: unknown; hash?: unknown };
    } catch {
      return fail('is not a JSON record');
    }
    const { seq, prev, hash } = record;
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || typeof hash !== 'string') {
      return fail('carries no chain (seq and hash)');
    }
    if (seq > index) return fail(`has seq ${seq}, expected ${index}: ${seq - index} record(s) missing`);
    if (seq < index) return fail(`has seq ${seq}, expected ${index}: a record was inserted or repeated`);
    const suffix = `,"hash":${JSON.stringify(hash)}}`;
    if (!line.endsWith(suffix) || sha256(`${line.slice(0, -suffix.length)}}`) !== hash) {
      return fail('was changed: its hash does not match its content');
    }
    if (prev !== previous) {
      return fail(index === 0 ? 'is the first record but names a previous one' : `does not chain to line ${index}`);
    }
    previous = hash;
  }
  return { ok: true, records: lines.length, lastHash: previous };
}
