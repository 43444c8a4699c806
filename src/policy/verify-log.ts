/**
 * Checking a hash-chained decision log: line by line, in constant memory, so a log of any size is read as a
 * stream and never held whole.
 */
import { createReadStream } from 'node:fs';
import { sha256Hex } from '../enforce/digest.js';
import type { Keyring } from './approval-keys.js';
import {
  checkpointFieldOf,
  checkpointMessage,
  signatureProblem,
  type WriterKeysOptions,
  writerKeyringOf,
} from './decision-log-signing.js';
import { GateAuditError } from '../errors.js';
import { visible } from '../escape.js';

/** What a check found about the log's signatures (present in every verdict). */
export interface LogSignatures {
  /** `checked` when keys were given (every checkpoint's signature verified), `not checked` otherwise. */
  readonly signatures: 'checked' | 'not checked';
  /** The `seq` of the last checkpoint (it signs the records before it), `null` when none. */
  readonly lastCheckpoint: number | null;
  /** The key that signed the last checkpoint. */
  readonly lastCheckpointKey?: string;
  /** Records after the last checkpoint: written but not signed (a writer that did not close). */
  readonly unsigned: number;
}

/** One break of a log file: where it is and what is wrong. */
export interface LogLineBreak {
  /** The line (1-based); one past the last line for a break of the end (a cut tail). */
  readonly line: number;
  /** The `seq` the record there carries, `null` when it carries none (or for the end). */
  readonly seq: number | null;
  /** What is wrong there, as a clause ("the record was changed: …"). */
  readonly problem: string;
}

/** What `verifyLog` and `verifyLogFile` found. */
export type LogVerification = LogSignatures &
  (
    | { readonly ok: true; readonly records: number; readonly lastHash: string | null }
    | {
        readonly ok: false;
        /** Records before the first break, all intact. */
        readonly records: number;
        /** The line (1-based) of the first break; one past the last line when the tail is missing. */
        readonly line: number;
        /** What is wrong at the first break, as a clause ("the record was changed: …"). */
        readonly problem: string;
        /** The hash of the last intact record before the first break (`null` when none). */
        readonly lastHash: string | null;
        /**
         * Every break, in the order of the file (the check goes on after one), up to the first
         * `MAX_LISTED_BREAKS`; `onBreak` sees all of them.
         */
        readonly breaks: readonly LogLineBreak[];
        /** How many breaks there are in all. */
        readonly breakCount: number;
      }
  );

/** What a check may also demand. */
export interface VerifyLogOptions {
  /**
   * The hash the chain's last record must have (64 hex digits), kept elsewhere when it was written: this
   * catches a cut tail and a log rewritten with every hash recomputed.
   */
  readonly expectLastHash?: string;
  /**
   * The writers' public keys (`keys: { name: '<public key>' }` and/or a `keyring` file
   * `{ "writers": { … } }`): every checkpoint's signature is then checked, and one that does not verify is
   * a break. Without keys, checkpoints are checked as chained records only.
   */
  readonly keys?: WriterKeysOptions['keys'];
  /** A writers' keyring file (see `keys`). */
  readonly keyring?: string;
  /**
   * Called with each break as it is found (and how many records were read before it), all of them however
   * many (the verdict lists the first `MAX_LISTED_BREAKS`): a log with a break on every line is reported in
   * bounded memory this way.
   */
  readonly onBreak?: (found: LogLineBreak, recordsBefore: number) => void;
  /**
   * `verifyLogFile` only: awaited after each chunk of the file, so a caller writing every break somewhere
   * slower than the check (a pipe) can hold the reading until that has drained, and memory stays bounded.
   */
  readonly pace?: () => Promise<void> | undefined;
}

/** Longest line checked; a longer one is reported instead of being held in memory. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** How many breaks a verdict lists (`breakCount` counts them all, `onBreak` sees them all). */
export const MAX_LISTED_BREAKS = 1000;

/** The state of the chain at the first break, kept for the verdict. */
interface FirstBreak {
  readonly records: number;
  readonly lastHash: string | null;
  readonly line: number;
  readonly problem: string;
}

/**
 * Checks one line after another and goes on after a break, so every break is found: after a changed
 * record, the chain goes on from the hash it carries; after missing records, from the record found; a
 * record inserted or repeated (a `seq` already read) is skipped; after a line that carries no chain, the
 * next record is taken as it is.
 */
class ChainCheck {
  private _records = 0;
  private _lines = 0;
  private _expected = 0;
  private _previous: string | null = null;
  /** Set after a line without a chain: the next record's seq and prev are taken as they are. */
  private _lost = false;
  /** Line of the record whose hash is the expected last hash, when one is. */
  private _expectedAt: number | undefined;
  private _lastCheckpoint: number | null = null;
  private _lastCheckpointKey: string | undefined;
  private _unsigned = 0;
  private _first: FirstBreak | undefined;
  private readonly _listed: LogLineBreak[] = [];
  private _breakCount = 0;

  constructor(
    private readonly _expect: string | undefined,
    private readonly _keyring: Keyring | undefined,
    private readonly _onBreak: ((found: LogLineBreak, recordsBefore: number) => void) | undefined,
  ) {}

  private _signatures(): LogSignatures {
    return {
      signatures: this._keyring === undefined ? 'not checked' : 'checked',
      lastCheckpoint: this._lastCheckpoint,
      ...(this._lastCheckpointKey === undefined ? {} : { lastCheckpointKey: this._lastCheckpointKey }),
      unsigned: this._unsigned,
    };
  }

  private _break(problem: string, seq: number | null, line = this._lines): void {
    this._first ??= { records: this._records, lastHash: this._previous, line, problem };
    const found: LogLineBreak = { line, seq, problem };
    this._breakCount += 1;
    if (this._listed.length < MAX_LISTED_BREAKS) this._listed.push(found);
    this._onBreak?.(found, this._records);
  }

  line(text: string): void {
    this._lines += 1;
    let record: { seq?: unknown; prev?: unknown; hash?: unknown; checkpoint?: unknown };
    try {
      record = JSON.parse(text) as { seq?: unknown; prev?: unknown; hash?: unknown; checkpoint?: unknown };
    } catch {
      this._lost = true;
      return this._break('the record is not a JSON record', null);
    }
    if (typeof record !== 'object' || record === null) {
      this._lost = true;
      return this._break('the record is not a JSON record', null);
    }
    const { seq, prev, hash: own } = record;
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || typeof own !== 'string') {
      this._lost = true;
      return this._break('the record carries no chain (seq and hash)', null);
    }
    const expected = this._expected;
    const lost = this._lost;
    this._lost = false;
    let broken = false;
    if (!lost && seq < expected) {
      // Skipped: the chain goes on from the record before it.
      return this._break(`the record has seq ${seq}, expected ${expected}: a record was inserted or repeated`, seq);
    }
    if (!lost && seq > expected) {
      this._break(`the record has seq ${seq}, expected ${expected}: ${seq - expected} record(s) missing`, seq);
      broken = true;
    }
    const suffix = `,"hash":${JSON.stringify(own)}}`;
    if (!text.endsWith(suffix) || sha256Hex(`${text.slice(0, -suffix.length)}}`) !== own) {
      this._break('the record was changed: its hash does not match its content', seq);
      broken = true;
    } else if (!broken && !lost && prev !== this._previous) {
      this._break(
        seq === 0
          ? 'the record is the first record but names a previous one'
          : `the record does not chain to line ${this._lines - 1}`,
        seq,
      );
      broken = true;
    }
    const checkpoint = checkpointFieldOf(record.checkpoint);
    if (typeof checkpoint === 'string') {
      this._break(`the record is a malformed checkpoint: ${checkpoint}`, seq);
    } else if (checkpoint !== undefined) {
      let problem: string | undefined;
      if (this._keyring !== undefined) {
        const message = checkpointMessage({
          key: checkpoint.key,
          writer: null,
          seq,
          prev: typeof prev === 'string' ? prev : null,
          registry: null,
        });
        problem = signatureProblem(this._keyring, checkpoint.key, message, checkpoint.signature);
        if (problem !== undefined) this._break(`the checkpoint does not verify: ${problem}`, seq);
      }
      if (problem === undefined && !broken) {
        this._lastCheckpoint = seq;
        this._lastCheckpointKey = checkpoint.key;
        this._unsigned = 0;
      }
    } else {
      this._unsigned += 1;
    }
    this._previous = own;
    this._expected = seq + 1;
    this._records += 1;
    if (own === this._expect) this._expectedAt = this._lines;
  }

  tooLong(): void {
    this._lines += 1;
    this._lost = true;
    this._break(`the line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB, which no decision record is`, null);
  }

  end(): LogVerification {
    const expect = this._expect;
    if (expect !== undefined && this._previous !== expect) {
      if (this._expectedAt !== undefined) {
        const after = this._lines - this._expectedAt;
        this._break(
          `the log goes on past the expected last hash (line ${this._expectedAt}), ${after} record${after === 1 ? '' : 's'} more: ` +
            'records written after that hash was taken, or added by someone else',
          null,
          this._expectedAt + 1,
        );
      } else {
        this._break(
          `the log ends here, but no record has the expected last hash ${expect}: ` +
            'records were cut from the end, or the log was rewritten',
          null,
          this._lines + 1,
        );
      }
    }
    const first = this._first;
    if (first === undefined) {
      return { ok: true, records: this._records, lastHash: this._previous, ...this._signatures() };
    }
    return {
      ok: false,
      records: first.records,
      line: first.line,
      problem: first.problem,
      lastHash: first.lastHash,
      ...this._signatures(),
      breaks: this._listed,
      breakCount: this._breakCount,
    };
  }
}

/** The expected last hash in its canonical form, or undefined when it is not 64 hex digits. */
export function parseLastHash(text: string): string | undefined {
  return /^[0-9a-f]{64}$/i.test(text) ? text.toLowerCase() : undefined;
}

function checked(options: VerifyLogOptions): ChainCheck {
  const expect = options.expectLastHash;
  if (expect !== undefined && parseLastHash(expect) === undefined) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `option=<expectLastHash> | ${visible(expect.slice(0, 80))} is not a SHA-256 in hex | pass the 64 hex digits verify-log printed after "last hash"`,
    );
  }
  return new ChainCheck(
    expect === undefined ? undefined : parseLastHash(expect),
    writerKeyringOf({
      ...(options.keys === undefined ? {} : { keys: options.keys }),
      ...(options.keyring === undefined ? {} : { keyring: options.keyring }),
    }),
    options.onBreak,
  );
}

/**
 * Checks a chained decision log held in memory: every line is a JSON record whose `hash` is the SHA-256 of
 * the line without it, `seq` counts up from 0 without a gap, and each `prev` is the `hash` of the record
 * before. This finds a record changed, removed or inserted by anyone who did not also recompute every later
 * hash; `expectLastHash` (a copy kept elsewhere) also catches a rewrite or a cut tail.
 *
 * @param text - the log file's content
 * @param options - the expected last hash
 * @returns OK with the number of records and the last hash, or the first broken or missing record and
 *   every break after it
 * @throws GateAuditError `INVALID_ARGUMENT` when `expectLastHash` is not 64 hex digits
 */
export function verifyLog(text: string, options: VerifyLogOptions = {}): LogVerification {
  const check = checked(options);
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    check.line(text.slice(start, end));
    start = end + 1;
  }
  return check.end();
}

/**
 * Checks a chained decision log file as `verifyLog` does, reading it as a stream: memory stays bounded by
 * the longest line (and the first `MAX_LISTED_BREAKS` breaks) whatever the file's size; the check goes on
 * after a break to the end, and `onBreak` sees every break as it is found.
 *
 * @param path - the log file
 * @param options - the expected last hash, the writers' keys, `onBreak`
 * @returns the verdict, as `verifyLog`
 * @throws the file system's error when the file cannot be read (`ENOENT`, `EISDIR`, `EACCES`, …);
 *   GateAuditError `INVALID_ARGUMENT` when `expectLastHash` is not 64 hex digits
 */
export async function verifyLogFile(path: string, options: VerifyLogOptions = {}): Promise<LogVerification> {
  const check = checked(options);
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  let pieces: Buffer[] = [];
  let pending = 0;
  /** Inside a line longer than the limit (reported): its bytes are dropped up to its newline. */
  let skipping = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      let bytes = chunk.subarray(start, end);
      start = end + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      if (pieces.length > 0) {
        if (pending + bytes.length > MAX_LINE_BYTES) {
          pieces = [];
          pending = 0;
          check.tooLong();
          continue;
        }
        bytes = Buffer.concat([...pieces, bytes]);
        pieces = [];
        pending = 0;
      } else if (bytes.length > MAX_LINE_BYTES) {
        check.tooLong();
        continue;
      }
      check.line(bytes.toString('utf8'));
    }
    if (start < chunk.length && !skipping) {
      pending += chunk.length - start;
      pieces.push(chunk.subarray(start));
      if (pending > MAX_LINE_BYTES) {
        pieces = [];
        pending = 0;
        skipping = true;
        check.tooLong();
      }
    }
    await options.pace?.();
  }
  if (pieces.length > 0) check.line(Buffer.concat(pieces).toString('utf8'));
  return check.end();
}
