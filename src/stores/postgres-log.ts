/**
 * The decision log of a fleet in PostgreSQL: the writing side. Each store instance is one writer (host, pid,
 * start time and a random id), with its own hash chain in one table with a global order (`id`), so writers
 * never wait on each other. Writers register in a hash-chained `gate_audit_writers` table (one advisory lock
 * orders the registrations; no LOCK TABLE), in the transaction of their first records: a writer killed before
 * its first commit leaves no registration, so a registration without records is a deletion. Each record is inserted with its head row (`gate_audit_heads`:
 * the writer, seq and hash) in the same statement, so the log is insert-only for the runtime role, and a
 * tail cut from the records but not from the heads is reported by `verifyStoreLog`. The hashed canonical
 * JSON text is stored as text (JSONB would reorder its keys).
 *
 * Group commit: calls of one process that append while a round trip is under way wait together, and the
 * next round trip inserts all of them in one statement; each call still resolves only once its own record
 * committed (a failure rejects every call of the batch: the gate refuses them and stops the run), and the
 * next batch first re-reads the writer's head, so the sink works again when the server is back.
 *
 * Signing (`signing: { keyFile }`): the registration is signed with the writer's key, and the writer
 * appends a signed checkpoint record (`checkpoint: { key, registry, signature }`) every `every` records and
 * at close; its signature covers the writer, `seq`, `prev` and the newest registration the writer saw (read
 * back with every batch), so deleting a writer registered before that checkpoint is a break.
 *
 * While a `gateSpanProcessor` is open, a record appended inside an active span carries `traceId` and
 * `spanId` in its hashed text (see `policy/trace-ids.ts`).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { canonicalJson, sha256Hex } from '../enforce/digest.js';
import type { GateRecord } from '../enforce/gate.js';
import { messageOf } from '../errors.js';
import { joinPath } from '../tree-paths.js';
import { inputDigest } from '../policy/approval.js';
import { checkpointMessage, type LogSigner, registrationMessage } from '../policy/decision-log-signing.js';
import { activeSpanIds, type SpanIds } from '../policy/trace-ids.js';
import { inTransaction, type PgPoolLike, type PgQueryable } from './postgres-schema.js';

/** Any fixed number: the advisory lock that orders writer registrations. */
const REGISTER_LOCK = 0x6761_7466;

/** Drops `undefined` members so the canonical text is plain JSON. */
function defined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

/** One writer of the decision log. */
export interface LogWriter {
  /** The writer id (`host/pid/start/random`). */
  readonly writerId: string;
  /** Appends one record; resolves once committed. */
  append(record: GateRecord, gateName: string): Promise<void>;
  /** Resolves when every record appended so far settled. */
  drained(): Promise<void>;
  /** Appends a signed checkpoint when records since the last one are unsigned (at close); resolves once committed. */
  checkpoint(): Promise<void>;
}

/** A registration's place: its `seq` and `hash`. */
interface RegistryHead {
  readonly seq: number;
  readonly hash: string;
}

/** A call waiting for the next round trip: a record, or a request for a checkpoint. */
interface Waiting {
  readonly record?: { readonly record: GateRecord; readonly gateName: string; readonly span: SpanIds | undefined };
  readonly time: string;
  resolve(): void;
  reject(error: unknown): void;
}

const BATCH_INSERT = `
with added as (
  insert into gate_audit_decisions (writer_id, seq, body, hash)
    select $1, t.seq, t.body, t.hash from unnest($2::bigint[], $3::text[], $4::text[]) as t (seq, body, hash)
    returning id
), heads as (
  insert into gate_audit_heads (writer_id, seq, hash)
    select $1, t.seq, t.hash from unnest($2::bigint[], $4::text[]) as t (seq, hash)
    returning 1
)
select (select count(*) from added) as added, (select count(*) from heads) as heads, r.seq as registry_seq,
  r.hash as registry_hash
from (select seq, hash from gate_audit_writers order by seq desc limit 1) as r`;

/**
 * A writer of the decision log over a pool.
 *
 * @param ready - the pool, once the schema is checked
 * @param signer - the writer's signing key, when the log is signed
 */
export function logWriter(ready: () => Promise<PgPoolLike>, signer?: LogSigner): LogWriter {
  const startedAt = new Date().toISOString();
  const writer = { host: hostname(), pid: process.pid, startedAt, random: randomBytes(8).toString('hex') };
  const writerId = `${writer.host}/${writer.pid}/${startedAt}/${writer.random}`;
  let head: { seq: number; prev: string | null } | undefined;
  let registry: RegistryHead | undefined;
  /** Records since the last checkpoint (or since the head was re-read: then unknown, so at least 1). */
  let unsigned = 0;
  let waiting: Waiting[] = [];
  let pumping: Promise<void> | undefined;

  /**
   * Finds this writer's place inside the transaction of a batch: after a failed round trip, from its
   * registration and last head; the first time, by registering it (so the registration commits with the
   * writer's first records, or not at all: a writer killed before its first commit leaves nothing).
   */
  const place = async (client: PgQueryable): Promise<{ seq: number; prev: string | null }> => {
    const existing = await client.query('select 1 from gate_audit_writers where writer_id = $1', [writerId]);
    if (existing.rows.length > 0) {
      const newest = await client.query('select seq, hash from gate_audit_writers order by seq desc limit 1');
      registry = { seq: Number(newest.rows[0]!.seq), hash: String(newest.rows[0]!.hash) };
      const last = await client.query(
        'select seq, hash from gate_audit_heads where writer_id = $1 order by seq desc limit 1',
        [writerId],
      );
      const found = last.rows[0];
      // What the failed round trip left is unknown: sign whatever is there at the next checkpoint.
      unsigned = Math.max(unsigned, 1);
      return found === undefined ? { seq: 0, prev: null } : { seq: Number(found.seq) + 1, prev: String(found.hash) };
    }
    // Registration is rare: one advisory lock orders the writers' chain (held until the first batch commits).
    await client.query('select pg_advisory_xact_lock($1)', [REGISTER_LOCK]);
    const last = await client.query('select hash from gate_audit_writers order by seq desc limit 1');
    const prev = (last.rows[0]?.hash as string | undefined) ?? null;
    const fields = { writer: writerId, ...writer, prev, ...(signer === undefined ? {} : { key: signer.name }) };
    const unsignedText = canonicalJson(fields);
    const body =
      signer === undefined
        ? unsignedText
        : canonicalJson({ ...fields, signature: signer.sign(registrationMessage(unsignedText)) });
    const hash = sha256Hex(body);
    const inserted = await client.query(
      'insert into gate_audit_writers (writer_id, body, prev, hash) values ($1, $2, $3, $4) returning seq',
      [writerId, body, prev, hash],
    );
    registry = { seq: Number(inserted.rows[0]!.seq), hash };
    return { seq: 0, prev: null };
  };

  const recordBody = (
    item: NonNullable<Waiting['record']>,
    time: string,
    at: { seq: number; prev: string | null },
  ): string => {
    const { record, gateName, span } = item;
    const { input, path, paths, durationMs, ...fields } = record;
    let digest: string | undefined;
    if (input !== undefined) {
      try {
        digest = inputDigest(input);
      } catch {
        digest = undefined;
      }
    }
    return canonicalJson(
      defined({
        writer: writerId,
        seq: at.seq,
        prev: at.prev,
        time,
        gate: gateName,
        ...fields,
        path: joinPath(path),
        paths: paths?.map(joinPath),
        // The store's own span ids, over any the record holds (absent outside a span: dropped by `defined`).
        traceId: span?.traceId,
        spanId: span?.spanId,
        inputSha256: digest,
        durationMs: durationMs === undefined ? undefined : Math.round(durationMs * 1000) / 1000,
      }),
    );
  };

  const checkpointBody = (key: LogSigner, at: { seq: number; prev: string | null }, time: string): string => {
    const seen = registry ?? null;
    const signature = key.sign(
      checkpointMessage({ key: key.name, writer: writerId, seq: at.seq, prev: at.prev, registry: seen }),
    );
    return canonicalJson({
      writer: writerId,
      seq: at.seq,
      prev: at.prev,
      time,
      checkpoint: { key: key.name, signature, ...(seen === null ? {} : { registry: seen }) },
    });
  };

  /** The rows of a batch from the writer's place `from`: records, and checkpoints when due. */
  const rowsOf = (
    batch: readonly Waiting[],
    from: { seq: number; prev: string | null },
  ): {
    seqs: number[];
    bodies: string[];
    hashes: string[];
    at: { seq: number; prev: string | null };
    count: number;
  } => {
    const at = { ...from };
    let count = unsigned;
    const seqs: number[] = [];
    const bodies: string[] = [];
    const hashes: string[] = [];
    const push = (body: string): void => {
      const hash = sha256Hex(body);
      seqs.push(at.seq);
      bodies.push(body);
      hashes.push(hash);
      at.seq += 1;
      at.prev = hash;
    };
    for (const item of batch) {
      if (item.record !== undefined) {
        push(recordBody(item.record, item.time, at));
        count += 1;
        if (signer !== undefined && count >= signer.every) {
          push(checkpointBody(signer, at, item.time));
          count = 0;
        }
      } else if (signer !== undefined && count > 0) {
        push(checkpointBody(signer, at, item.time));
        count = 0;
      }
    }
    return { seqs, bodies, hashes, at, count };
  };

  /** Inserts a batch's rows in one statement; the newest registration comes back with it. */
  const insert = async (db: PgQueryable, rows: ReturnType<typeof rowsOf>): Promise<void> => {
    const result = await db.query(BATCH_INSERT, [writerId, rows.seqs, rows.bodies, rows.hashes]);
    const row = result.rows[0];
    if (row === undefined || Number(row.added) !== rows.seqs.length || Number(row.heads) !== rows.seqs.length) {
      throw new Error(`writer ${writerId} lost its place in its chain`);
    }
    registry = { seq: Number(row.registry_seq), hash: String(row.registry_hash) };
  };

  /**
   * Writes one batch in one statement; the first one (or the first after a failure) in one transaction with
   * the writer's registration (or the re-reading of its head).
   */
  const writeBatch = async (batch: readonly Waiting[]): Promise<void> => {
    const db = await ready();
    if (head === undefined) {
      // Nothing to write (a close with every record signed): no registration either.
      if (unsigned === 0 && batch.every((item) => item.record === undefined)) return;
      const written = await inTransaction(db, async (client) => {
        const rows = rowsOf(batch, await place(client));
        if (rows.seqs.length > 0) await insert(client, rows);
        return rows;
      });
      head = written.at;
      unsigned = written.count;
      return;
    }
    if (signer !== undefined && batch.some((item) => item.record === undefined)) {
      // The closing checkpoint names the newest registration now, not the one the last batch saw.
      const newest = await db.query('select seq, hash from gate_audit_writers order by seq desc limit 1');
      const row = newest.rows[0];
      if (row !== undefined) registry = { seq: Number(row.seq), hash: String(row.hash) };
    }
    const rows = rowsOf(batch, head);
    if (rows.seqs.length === 0) return;
    await insert(db, rows);
    head = rows.at;
    unsigned = rows.count;
  };

  const pump = async (): Promise<void> => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await writeBatch(batch);
        for (const item of batch) item.resolve();
      } catch (error) {
        // Whether the failed statement committed is unknown: the next batch re-reads the head first.
        head = undefined;
        const failure = new Error(`the PostgreSQL decision log failed: ${messageOf(error)}`, { cause: error });
        for (const item of batch) item.reject(failure);
      }
    }
    pumping = undefined;
  };

  const enqueue = (record: Waiting['record']): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ ...(record === undefined ? {} : { record }), time: new Date().toISOString(), resolve, reject });
      pumping ??= pump();
    });

  return {
    writerId,
    // Read now: the span active when the gate appends, not when the batch is written.
    append: (record, gateName) => enqueue({ record, gateName, span: activeSpanIds() }),
    drained: async () => {
      while (pumping !== undefined) await pumping;
    },
    checkpoint: async () => {
      if (signer === undefined || (head === undefined && unsigned === 0)) return;
      await enqueue(undefined);
    },
  };
}

/** A stored record's text as an object, or undefined when it is not a JSON object. */
export function parseBody(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** One decision record as the store keeps it: its place in the global order and its parsed text. */
export interface StoredRecord {
  /** The row's `id` (the log's global order), as text. */
  readonly id: string;
  /** The record, or undefined when its text is not a JSON object. */
  readonly record: Record<string, unknown> | undefined;
}

/**
 * Every decision record of the store's log in its global order, read a page at a time (memory holds one page,
 * whatever the log's size). The records are not verified: `verifyStoreLog` does that.
 *
 * @param source - a `postgresStore`, or `{ pool }`
 * @param pageSize - rows per query
 */
export async function* storeRecords(
  source: { readonly pool: PgQueryable },
  pageSize = 5000,
): AsyncGenerator<StoredRecord, void, undefined> {
  let after = '0';
  for (;;) {
    const { rows } = await source.pool.query(
      'select id, body from gate_audit_decisions where id > $1 order by id limit $2',
      [after, pageSize],
    );
    for (const row of rows) {
      after = String(row.id);
      yield { id: after, record: parseBody(String(row.body)) };
    }
    if (rows.length < pageSize) return;
  }
}
