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
import { visible } from '../text.js';

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

/** What `verifyLog` and `verifyLogFile` found. */
export type LogVerification = LogSignatures &
  (
    | { readonly ok: true; readonly records: number; readonly lastHash: string | null }
    | {
        readonly ok: false;
        /** Records before the break, all intact. */
        readonly records: number;
        /** The line (1-based) where the chain breaks; one past the last line when the tail is missing. */
        readonly line: number;
        /** What is wrong there, as a clause ("the record was changed: …"). */
        readonly problem: string;
        /** The hash of the last intact record (`null` when none). */
        readonly lastHash: string | null;
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
}

/** Longest line checked; a longer one is reported instead of being held in memory. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Checks one line after another; `line` returns the first break, `end` the verdict on the whole log. */
class ChainCheck {
  private _records = 0;
  private _previous: string | null = null;
  /** Line of the record whose hash is the expected last hash, when one is. */
  private _expectedAt: number | undefined;
  private _lastCheckpoint: number | null = null;
  private _lastCheckpointKey: string | undefined;
  private _unsigned = 0;

  constructor(
    private readonly _expect: string | undefined,
    private readonly _keyring: Keyring | undefined,
  ) {}

  private _signatures(): LogSignatures {
    return {
      signatures: this._keyring === undefined ? 'not checked' : 'checked',
      lastCheckpoint: this._lastCheckpoint,
      ...(this._lastCheckpointKey === undefined ? {} : { lastCheckpointKey: this._lastCheckpointKey }),
      unsigned: this._unsigned,
    };
  }

  private _fail(problem: string, line = this._records + 1): LogVerification {
    return { ok: false, records: this._records, line, problem, lastHash: this._previous, ...this._signatures() };
  }

  line(text: string): LogVerification | undefined {
    const index = this._records;
    let record: { seq?: unknown; prev?: unknown; hash?: unknown; checkpoint?: unknown };
    try {
      record = JSON.parse(text) as { seq?: unknown; prev?: unknown; hash?: unknown; checkpoint?: unknown };
    } catch {
      return this._fail('the record is not a JSON record');
    }
    if (typeof record !== 'object' || record === null) return this._fail('the record is not a JSON record');
    const { seq, prev, hash: own } = record;
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || typeof own !== 'string') {
      return this._fail('the record carries no chain (seq and hash)');
    }
    if (seq > index)
      return this._fail(`the record has seq ${seq}, expected ${index}: ${seq - index} record(s) missing`);
    if (seq < index)
      return this._fail(`the record has seq ${seq}, expected ${index}: a record was inserted or repeated`);
    const suffix = `,"hash":${JSON.stringify(own)}}`;
    if (!text.endsWith(suffix) || sha256Hex(`${text.slice(0, -suffix.length)}}`) !== own) {
      return this._fail('the record was changed: its hash does not match its content');
    }
    if (prev !== this._previous) {
      return this._fail(
        index === 0
          ? 'the record is the first record but names a previous one'
          : `the record does not chain to line ${index}`,
      );
    }
    const checkpoint = checkpointFieldOf(record.checkpoint);
    if (typeof checkpoint === 'string') return this._fail(`the record is a malformed checkpoint: ${checkpoint}`);
    if (checkpoint !== undefined) {
      if (this._keyring !== undefined) {
        const message = checkpointMessage({
          key: checkpoint.key,
          writer: null,
          seq,
          prev: this._previous,
          registry: null,
        });
        const problem = signatureProblem(this._keyring, checkpoint.key, message, checkpoint.signature);
        if (problem !== undefined) return this._fail(`the checkpoint does not verify: ${problem}`);
      }
      this._lastCheckpoint = seq;
      this._lastCheckpointKey = checkpoint.key;
      this._unsigned = 0;
    } else {
      this._unsigned += 1;
    }
    this._previous = own;
    this._records += 1;
    if (own === this._expect) this._expectedAt = this._records;
    return undefined;
  }

  tooLong(): LogVerification {
    return this._fail(`the line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB, which no decision record is`);
  }

  end(): LogVerification {
    const expect = this._expect;
    if (expect === undefined || this._previous === expect) {
      return { ok: true, records: this._records, lastHash: this._previous, ...this._signatures() };
    }
    if (this._expectedAt !== undefined) {
      const after = this._records - this._expectedAt;
      return this._fail(
        `the log goes on past the expected last hash (line ${this._expectedAt}), ${after} record${after === 1 ? '' : 's'} more: ` +
          'records written after that hash was taken, or added by someone else',
        this._expectedAt + 1,
      );
    }
    return this._fail(
      `the log ends here, but no record has the expected last hash ${expect}: ` +
        'records were cut from the end, or the log was rewritten',
    );
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
 * @returns OK with the number of records and the last hash, or the first broken or missing record
 * @throws GateAuditError `INVALID_ARGUMENT` when `expectLastHash` is not 64 hex digits
 */
export function verifyLog(text: string, options: VerifyLogOptions = {}): LogVerification {
  const check = checked(options);
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const broken = check.line(text.slice(start, end));
    if (broken !== undefined) return broken;
    start = end + 1;
  }
  return check.end();
}

/**
 * Checks a chained decision log file as `verifyLog` does, reading it as a stream: memory stays bounded by
 * the longest line whatever the file's size, and the check stops at the first break.
 *
 * @param path - the log file
 * @param options - the expected last hash
 * @returns the verdict, as `verifyLog`
 * @throws the file system's error when the file cannot be read (`ENOENT`, `EISDIR`, `EACCES`, …);
 *   GateAuditError `INVALID_ARGUMENT` when `expectLastHash` is not 64 hex digits
 */
export async function verifyLogFile(path: string, options: VerifyLogOptions = {}): Promise<LogVerification> {
  const check = checked(options);
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  let pieces: Buffer[] = [];
  let pending = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      let bytes = chunk.subarray(start, end);
      if (pieces.length > 0) {
        if (pending + bytes.length > MAX_LINE_BYTES) return check.tooLong();
        bytes = Buffer.concat([...pieces, bytes]);
        pieces = [];
        pending = 0;
      } else if (bytes.length > MAX_LINE_BYTES) {
        return check.tooLong();
      }
      const broken = check.line(bytes.toString('utf8'));
      if (broken !== undefined) return broken;
      start = end + 1;
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > MAX_LINE_BYTES) return check.tooLong();
      pieces.push(chunk.subarray(start));
    }
  }
  if (pieces.length > 0) {
    const broken = check.line(Buffer.concat(pieces).toString('utf8'));
    if (broken !== undefined) return broken;
  }
  return check.end();
}
