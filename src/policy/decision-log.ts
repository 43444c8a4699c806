/**
 * The decision log: one JSON line per decision, written synchronously before the call it records runs,
 * optionally hash-chained so that `gate-audit verify-log` finds the first changed, removed or inserted record.
 *
 * Chaining: each record carries `seq` (0, 1, 2, …), `prev` (the previous record's `hash`, `null` for the
 * first) and, last, `hash`: the SHA-256 of the line without its `hash`. A log reopened later continues the
 * chain from its last line. Without a key, someone who rewrites the file and recomputes every hash is not
 * caught: keep the last hash elsewhere and check it with `verify-log --expect-last-hash`.
 *
 * One writer per file: within a process, every open of one file (by path, another path, a hard link or a
 * descriptor; found by the device and inode of the opened file) shares one writer and so one chain; across
 * processes, a lockfile `<log>.lock` holding the writer's pid refuses a second writer (see `log-lock.ts`).
 *
 * Fail closed: a write that fails throws, so the enforcement point refuses the call (and stops the run);
 * after a failure the log stays failed and every later call is refused too. Nothing is dropped silently.
 * Records are written with `write(2)` (no `fsync`): a record survives the process, not a power loss.
 *
 * Signing (`signing: { keyFile }`): the writer signs a checkpoint of its chain with an Ed25519 key every
 * `every` records (at most 100) and when its last handle closes; a checkpoint is a line of the chain
 * (`"checkpoint":{"key":…,"signature":…}`), see `decision-log-signing.ts`. Records after the last checkpoint
 * (a process killed before it closed the log) are reported as unsigned by `verify-log`.
 *
 * While a `gateSpanProcessor` (`gate-audit/otel`) is open, a record written inside an active span also carries
 * `traceId` and `spanId` (see `trace-ids.ts`), before its `hash`: the chain covers them like every other field.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { AUDITING_REFUSAL, isAuditing } from '../auditing.js';
import { sha256Hex } from '../enforce/digest.js';
import type { GateRecord } from '../enforce/gate.js';
import { GateAuditError, messageOf } from '../errors.js';
import { joinPath } from '../tree-paths.js';
import { visible } from '../escape.js';
import { inputDigest } from './approval.js';
import { checkpointMessage, type LogSigner, type LogSigningOptions, logSignerOf } from './decision-log-signing.js';
import { releaseLock, takeLock } from './log-lock.js';
import { activeSpanIds } from './trace-ids.js';

/** Where the decision log goes and what it holds. */
export interface DecisionLogOptions {
  /**
   * A file path (appended to, locked with `<path>.lock`), an open file descriptor (appended to, not locked;
   * to continue the chain of a non-empty file it must be readable, e.g. opened with `'a+'`), or a
   * stream-like `{ write(line) }` that throws on failure.
   */
  readonly destination: string | number | { write(line: string): unknown };
  /** Hash-chain the records (`seq`, `prev`) so `gate-audit verify-log` can check them. Default `true`. */
  readonly chain?: boolean;
  /** Also write the raw input of each call (it may hold secrets). Default `false`: only its SHA-256. */
  readonly includeInput?: boolean;
  /**
   * Sign checkpoints of the chain with an Ed25519 key (every `every` records, at most 100, and at close), so
   * `verify-log --key` proves that nobody without the key changed the records before the last checkpoint.
   */
  readonly signing?: LogSigningOptions;
}

/**
 * A decision log open for writing (from `openDecisionLog`). Pass it as a gate's `log` option to share it
 * between gates; every open of one file in a process shares one chain.
 */
export interface DecisionLog {
  /**
   * Writes one record, chained, before returning.
   *
   * @param record - what the enforcement point saw
   * @param gateName - the `gate` field of the line
   * @throws Error when the record cannot be written; the log then stays failed and every later append throws
   */
  append(record: GateRecord, gateName: string): void;
  /**
   * Closes this handle; later appends through it throw. When no other handle of this process writes the
   * file, the file is closed and its lockfile deleted. Calling it again does nothing.
   */
  close(): void;
}

/** One file (or stream) this process writes records to, shared by every handle open on it. */
interface Writer {
  readonly chain: boolean;
  readonly signer: LogSigner | undefined;
  /** Records written since the last checkpoint (or possibly unsigned records left by an earlier writer). */
  unsigned: number;
  seq: number;
  prev: string | null;
  failure: string | undefined;
  /** Handles open on it. */
  handles: number;
  write(line: string): void;
  /** Closes the file and releases its lock (after the last handle closed). */
  release(): void;
}

/** Writers of files, by `<device>:<inode>` of the opened file. */
const writers = new Map<string, Writer>();

const CHUNK = 64 * 1024;

/**
 * The last non-empty line of an open file (read backwards in chunks, decoded once whole, so a character
 * split across two chunks stays whole), or undefined for an empty file.
 */
function lastLine(fd: number): string | undefined {
  let end = fstatSync(fd).size;
  let tail = Buffer.alloc(0);
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const chunk = Buffer.alloc(end - start);
    readSync(fd, chunk, 0, chunk.length, start);
    tail = Buffer.concat([chunk, tail]);
    end = start;
    let stop = tail.length;
    while (stop > 0 && tail[stop - 1] === 0x0a) stop -= 1;
    if (stop === 0) continue;
    const cut = tail.lastIndexOf(0x0a, stop - 1);
    if (cut >= 0 || end === 0) return tail.subarray(cut + 1, stop).toString('utf8');
  }
  return undefined;
}

/** Where the chain continues in an existing log file. */
function chainStart(fd: number, subject: string): { seq: number; prev: string | null; unsigned: number } {
  let line: string | undefined;
  try {
    line = lastLine(fd);
  } catch (error) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `destination=<${subject}> | cannot read the decision log to continue its chain: ${messageOf(error)} | ` +
        "pass its path, or a descriptor opened for reading too ('a+')",
      { cause: error },
    );
  }
  if (line === undefined) return { seq: 0, prev: null, unsigned: 0 };
  let record: { seq?: unknown; hash?: unknown; checkpoint?: unknown } = {};
  try {
    record = JSON.parse(line) as { seq?: unknown; hash?: unknown; checkpoint?: unknown };
  } catch {
    // Reported below.
  }
  const { seq, hash: last } = record;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || typeof last !== 'string') {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `file=<${subject}> | the decision log's last record is not a chained record, so the chain cannot continue | ` +
        'check it with gate-audit verify-log, then move it away or pass { chain: false }',
    );
  }
  return { seq: seq + 1, prev: last, unsigned: record.checkpoint === undefined ? 1 : 0 };
}

/** Writes all of `line` to `fd`, however many `write(2)` calls it takes. */
function writeAll(fd: number, line: string): void {
  const written = writeSync(fd, line);
  if (written === line.length && written === Buffer.byteLength(line)) return;
  const bytes = Buffer.from(line);
  for (let at = written; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

function openError(subject: string, error: unknown): GateAuditError {
  return new GateAuditError(
    'INVALID_ARGUMENT',
    `destination=<${subject}> | cannot open the decision log: ${messageOf(error)}`,
    { cause: error },
  );
}

/** The writer of a file this process already writes, or a new one (locked, its chain read from its end). */
function fileWriter(destination: string | number, chain: boolean, signer: LogSigner | undefined): Writer {
  const subject = visible(String(destination));
  const owned = typeof destination === 'string';
  let fd: number;
  try {
    fd = owned ? openSync(destination, 'a+') : destination;
  } catch (error) {
    throw openError(subject, error);
  }
  let kept = false;
  try {
    let key: string;
    let regular: boolean;
    try {
      const stats = fstatSync(fd);
      key = `${stats.dev}:${stats.ino}`;
      regular = stats.isFile();
    } catch (error) {
      throw openError(subject, error);
    }
    const shared = writers.get(key);
    if (shared !== undefined) {
      if (shared.chain !== chain) {
        throw new GateAuditError(
          'INVALID_ARGUMENT',
          `destination=<${subject}> | this process already writes this decision log ${shared.chain ? 'with' : 'without'} a chain | ` +
            'open it with the same chain option, or give this log another file',
        );
      }
      if (shared.signer?.name !== signer?.name) {
        throw new GateAuditError(
          'INVALID_ARGUMENT',
          `destination=<${subject}> | this process already writes this decision log ${shared.signer === undefined ? 'unsigned' : `signed with the key ${JSON.stringify(shared.signer.name)}`} | ` +
            'open it with the same signing option, or give this log another file',
        );
      }
      shared.handles += 1;
      return shared;
    }
    // Devices and pipes (/dev/stdout, a FIFO) are neither locked nor read back: their chain starts at 0.
    const lockPath = regular && owned ? takeLock(destination) : undefined;
    let start: { seq: number; prev: string | null; unsigned: number } = { seq: 0, prev: null, unsigned: 0 };
    if (regular && chain) {
      try {
        start = chainStart(fd, subject);
      } catch (error) {
        if (lockPath !== undefined) releaseLock(lockPath);
        throw error;
      }
    }
    const writer: Writer = {
      chain,
      signer,
      unsigned: start.unsigned,
      seq: start.seq,
      prev: start.prev,
      failure: undefined,
      handles: 1,
      write: (line) => writeAll(fd, line),
      release: () => {
        writers.delete(key);
        if (owned) closeSync(fd);
        if (lockPath !== undefined) releaseLock(lockPath);
      },
    };
    writers.set(key, writer);
    kept = true;
    return writer;
  } finally {
    // A descriptor this call opened and no writer keeps (shared, or refused) is closed again.
    if (owned && !kept) closeSync(fd);
  }
}

/** A writer of a stream-like destination: never shared, nothing to release. */
function streamWriter(sink: { write(line: string): unknown }, chain: boolean, signer: LogSigner | undefined): Writer {
  return {
    chain,
    signer,
    unsigned: 0,
    seq: 0,
    prev: null,
    failure: undefined,
    handles: 1,
    write: (line) => void sink.write(line),
    release: () => undefined,
  };
}

const LEVELS = {
  info: '{"level":"info","time":"',
  warn: '{"level":"warn","time":"',
  error: '{"level":"error","time":"',
};

/** Fields of a line the log writes itself, whatever the record holds. */
const OWN_FIELDS = new Set(['input', 'path', 'paths', 'durationMs', 'traceId', 'spanId']);

/**
 * The line of a record without its closing brace: level, time, chain, gate, the record's own fields in
 * their order, then its place, the active span's ids, the input's digest (and the input when asked) and the
 * duration.
 */
function lineOf(record: GateRecord, gateName: string, writer: Writer, includeInput: boolean): string {
  const level =
    record.verdict === 'allow' ? 'info' : record.event === 'error' || record.event === 'tampering' ? 'error' : 'warn';
  let line = `${LEVELS[level]}${new Date().toISOString()}"`;
  if (writer.chain) line += `,"seq":${writer.seq},"prev":${writer.prev === null ? 'null' : `"${writer.prev}"`}`;
  line += `,"gate":${JSON.stringify(gateName)}`;
  for (const key of Object.keys(record)) {
    if (OWN_FIELDS.has(key)) continue;
    const value: unknown = record[key as keyof GateRecord];
    if (value === undefined || typeof value === 'function') continue;
    line += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  line += `,"path":${JSON.stringify(joinPath(record.path))}`;
  if (record.paths !== undefined) line += `,"paths":${JSON.stringify(record.paths.map(joinPath))}`;
  const span = activeSpanIds();
  if (span !== undefined) line += `,"traceId":"${span.traceId}","spanId":"${span.spanId}"`;
  const { input, durationMs } = record;
  if (input !== undefined) {
    let digest: string | undefined;
    try {
      digest = inputDigest(input);
    } catch {
      digest = undefined;
    }
    if (digest !== undefined) line += `,"inputSha256":"${digest}"`;
    if (includeInput) line += `,"input":${JSON.stringify(input)}`;
  }
  if (durationMs !== undefined) line += `,"durationMs":${JSON.stringify(Math.round(durationMs * 1000) / 1000)}`;
  return line;
}

/**
 * Writes a signed checkpoint of the writer's chain: a chained line whose signature covers `seq` and `prev`.
 *
 * @throws Error when the line cannot be written (the writer is then failed)
 */
function writeCheckpoint(writer: Writer): void {
  const signer = writer.signer!;
  const signature = signer.sign(
    checkpointMessage({ key: signer.name, writer: null, seq: writer.seq, prev: writer.prev, registry: null }),
  );
  const body =
    `${LEVELS.info}${new Date().toISOString()}","seq":${writer.seq},"prev":${writer.prev === null ? 'null' : `"${writer.prev}"`}` +
    `,"checkpoint":{"key":${JSON.stringify(signer.name)},"signature":"${signature}"}}`;
  const hash = sha256Hex(body);
  try {
    writer.write(`${body.slice(0, -1)},"hash":"${hash}"}\n`);
  } catch (error) {
    writer.failure ??= messageOf(error);
    throw error;
  }
  writer.seq += 1;
  writer.prev = hash;
  writer.unsigned = 0;
}

/**
 * Opens a decision log. A second open of a file this process already writes (by any path, a hard link or a
 * descriptor) shares the first one's writer and chain; another process's lock on it is refused.
 *
 * @param options - destination, chaining, whether to include raw inputs; a string is a file path
 * @returns the open log; `close()` it when done (the lock is released at process exit otherwise)
 * @throws GateAuditError `INVALID_ARGUMENT` when the destination cannot be opened or an existing chained
 *   file cannot be continued; `LOG_LOCKED` when another process, running or gone, holds its lockfile
 */
export function openDecisionLog(options: DecisionLogOptions | string): DecisionLog {
  if (isAuditing()) {
    // An audit opens no file (no lock a running app would meet) and records nothing: every record is refused.
    return {
      append(): void {
        throw new Error(AUDITING_REFUSAL);
      },
      close(): void {},
    };
  }
  const {
    destination,
    chain = true,
    includeInput = false,
    signing,
  } = typeof options === 'string' ? { destination: options } : options;
  const signer = signing === undefined ? undefined : logSignerOf(signing);
  if (signer !== undefined && !chain) {
    throw new GateAuditError('INVALID_ARGUMENT', 'option=<log.signing> | a signed log is chained | drop chain: false');
  }
  let writer: Writer;
  if (typeof destination === 'string' || (typeof destination === 'number' && Number.isInteger(destination))) {
    writer = fileWriter(destination, chain, signer);
  } else if (typeof destination === 'object' && destination !== null && typeof destination.write === 'function') {
    writer = streamWriter(destination, chain, signer);
  } else {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      'option=<log.destination> | expected a file path, a descriptor or { write(line) }',
    );
  }
  let open = true;
  return {
    append(record: GateRecord, gateName: string): void {
      if (!open) throw new Error('the decision log is closed');
      if (writer.failure !== undefined) throw new Error(`the decision log failed earlier: ${writer.failure}`);
      let line: string;
      let next: string | undefined;
      try {
        const body = `${lineOf(record, gateName, writer, includeInput)}}`;
        if (writer.chain) {
          next = sha256Hex(body);
          // The record's own hash closes the line: `{…,"hash":"<sha256 of the line without it>"}`.
          line = `${body.slice(0, -1)},"hash":"${next}"}\n`;
        } else {
          line = `${body}\n`;
        }
      } catch (error) {
        // Nothing was written: the log stays usable, this call is refused.
        throw new Error(`the decision log cannot write this record: ${messageOf(error)}`, { cause: error });
      }
      try {
        writer.write(line);
      } catch (error) {
        writer.failure ??= messageOf(error);
        throw new Error(`the decision log failed: ${writer.failure}`, { cause: error });
      }
      if (next !== undefined) {
        writer.seq += 1;
        writer.prev = next;
        writer.unsigned += 1;
        if (writer.signer !== undefined && writer.unsigned >= writer.signer.every) {
          try {
            writeCheckpoint(writer);
          } catch (error) {
            // The record is written; the next call is refused, as after any failed write.
            writer.failure ??= messageOf(error);
          }
        }
      }
    },
    close(): void {
      if (!open) return;
      open = false;
      writer.handles -= 1;
      if (writer.handles === 0) {
        if (writer.signer !== undefined && writer.unsigned > 0 && writer.failure === undefined) {
          try {
            writeCheckpoint(writer);
          } catch {
            // Closing reports nothing: the records after the last checkpoint stay unsigned, and verify-log says so.
          }
        }
        writer.release();
      }
    },
  };
}
