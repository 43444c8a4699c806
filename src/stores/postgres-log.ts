/**
 * The decision log of a fleet in PostgreSQL. Each store instance is one writer (host, pid, start time and a
 * random id), with its own hash chain in one table with a global order (`id`), so writers never wait on
 * each other. Writers register in a hash-chained `gate_audit_writers` table (one advisory lock orders the
 * registrations; no LOCK TABLE). Each record is inserted with its head row (`gate_audit_heads`: the
 * writer, seq and hash) in the same statement, so the log is insert-only for the runtime role, and a tail
 * cut from the records but not from the heads is reported by `verifyStoreLog`. The hashed canonical JSON
 * text is stored as text (JSONB would reorder its keys). A record resolves once PostgreSQL committed it; a
 * failure rejects (the gate refuses the call and stops the run) and the next record first re-reads the
 * writer's head, so the sink works again when the server is back, without a restart. While a
 * `gateSpanProcessor` is open, a record appended inside an active span carries `traceId` and `spanId` in
 * its hashed text (see `policy/trace-ids.ts`).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { canonicalJson, sha256Hex } from '../enforce/digest.js';
import type { GateRecord } from '../enforce/gate.js';
import { messageOf } from '../errors.js';
import { joinPath } from '../paths.js';
import { inputDigest } from '../policy/approval.js';
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
}

/**
 * A writer of the decision log over a pool.
 *
 * @param ready - the pool, once the schema is checked
 */
export function logWriter(ready: () => Promise<PgPoolLike>): LogWriter {
  const startedAt = new Date().toISOString();
  const writer = { host: hostname(), pid: process.pid, startedAt, random: randomBytes(8).toString('hex') };
  const writerId = `${writer.host}/${writer.pid}/${startedAt}/${writer.random}`;
  let head: { seq: number; prev: string | null } | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const register = async (): Promise<{ seq: number; prev: string | null }> => {
    const db = await ready();
    return inTransaction(db, async (client) => {
      const existing = await client.query('select 1 from gate_audit_writers where writer_id = $1', [writerId]);
      if (existing.rows.length > 0) {
        const last = await client.query(
          'select seq, hash from gate_audit_heads where writer_id = $1 order by seq desc limit 1',
          [writerId],
        );
        const found = last.rows[0];
        return found === undefined ? { seq: 0, prev: null } : { seq: Number(found.seq) + 1, prev: String(found.hash) };
      }
      // Registration is rare: one advisory lock orders the writers' chain.
      await client.query('select pg_advisory_xact_lock($1)', [REGISTER_LOCK]);
      const last = await client.query('select hash from gate_audit_writers order by seq desc limit 1');
      const prev = (last.rows[0]?.hash as string | undefined) ?? null;
      const body = canonicalJson({ writer: writerId, ...writer, prev });
      await client.query('insert into gate_audit_writers (writer_id, body, prev, hash) values ($1, $2, $3, $4)', [
        writerId,
        body,
        prev,
        sha256Hex(body),
      ]);
      return { seq: 0, prev: null };
    });
  };

  const appendNow = async (record: GateRecord, gateName: string, span: SpanIds | undefined): Promise<void> => {
    head ??= await register();
    const db = await ready();
    const { input, path, paths, durationMs, ...fields } = record;
    let digest: string | undefined;
    if (input !== undefined) {
      try {
        digest = inputDigest(input);
      } catch {
        digest = undefined;
      }
    }
    const body = canonicalJson(
      defined({
        writer: writerId,
        seq: head.seq,
        prev: head.prev,
        time: new Date().toISOString(),
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
    const hash = sha256Hex(body);
    const result = await db.query(
      `with added as (
         insert into gate_audit_decisions (writer_id, seq, body, hash) values ($1, $2, $3, $4) returning id
       )
       insert into gate_audit_heads (writer_id, seq, hash) values ($1, $2, $4)
       returning (select id from added) as id`,
      [writerId, head.seq, body, hash],
    );
    if (result.rowCount !== 1) throw new Error(`writer ${writerId} lost its place in its chain`);
    head = { seq: head.seq + 1, prev: hash };
  };

  return {
    writerId,
    append: (record, gateName) => {
      // Read now: the span active when the gate appends, not when the queue gets to it.
      const span = activeSpanIds();
      const run = queue.then(() =>
        appendNow(record, gateName, span).catch((error: unknown) => {
          // Whether the failed statement committed is unknown: the next record re-reads the head first.
          head = undefined;
          throw new Error(`the PostgreSQL decision log failed: ${messageOf(error)}`, { cause: error });
        }),
      );
      queue = run.catch(() => undefined);
      return run;
    },
    drained: async () => {
      await queue;
    },
  };
}

/** What `verifyStoreLog` found for one writer. */
export interface WriterVerification {
  /** The writer id (`host/pid/start/random`). */
  readonly writer: string;
  /** How many records verified. */
  readonly records: number;
  /** The hash of its last verified record (`null` when none). */
  readonly lastHash: string | null;
  /** The first break, when there is one. */
  readonly problem?: string;
}

/** What `verifyStoreLog` found. */
export interface StoreLogVerification {
  /** Every writer chain, the writers' chain and every expected hash verified. */
  readonly ok: boolean;
  /** Per writer, in registration order (then any writer with records but no registration). */
  readonly writers: readonly WriterVerification[];
  /** Problems of the writers' own chain and expected hashes naming no writer. */
  readonly problems: readonly string[];
}

function parseBody(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies the decision log in PostgreSQL: the writers' chain (each registration hashes the one before, so
 * a deleted writer breaks it), then each writer's own chain (`seq` from 0 without a gap, each record's
 * hash over its stored text, each `prev` the hash before) up to its last head row (a cut tail or deleted
 * records are reported), and any `expectLastHash` per writer. Without a key, someone who can rewrite every
 * table and recompute every hash is caught only by `expectLastHash` values kept elsewhere.
 *
 * @param source - a `postgresStore`, or `{ pool }`
 * @param options - `expectLastHash`: writer id → hex hash its last record must have
 */
export async function verifyStoreLog(
  source: { readonly pool: PgQueryable },
  options: { readonly expectLastHash?: Readonly<Record<string, string>> } = {},
): Promise<StoreLogVerification> {
  const { pool } = source;
  const problems: string[] = [];
  const writers: WriterVerification[] = [];
  const registered = await pool.query('select seq, writer_id, body, prev, hash from gate_audit_writers order by seq');
  const lastHeads = await pool.query(
    'select distinct on (writer_id) writer_id, seq, hash from gate_audit_heads order by writer_id, seq desc',
  );
  const heads = new Map<string, { lastSeq: number; lastHash: string | null }>();
  for (const row of lastHeads.rows) {
    heads.set(String(row.writer_id), { lastSeq: Number(row.seq), lastHash: String(row.hash) });
  }
  let previous: string | null = null;
  const known = new Set<string>();
  for (const [index, row] of registered.rows.entries()) {
    const writer = String(row.writer_id);
    const body = String(row.body);
    const parsed = parseBody(body);
    if (sha256Hex(body) !== row.hash || parsed?.writer !== writer) {
      problems.push(`writer registration ${index + 1} (${writer}) was changed: its hash does not match`);
    } else if ((parsed.prev ?? null) !== previous || (row.prev ?? null) !== previous) {
      problems.push(
        `writer registration ${index + 1} (${writer}) does not chain to the one before: a writer was deleted`,
      );
    }
    previous = String(row.hash);
    known.add(writer);
  }
  const withRecords = await pool.query('select distinct writer_id from gate_audit_decisions');
  const all = [...known];
  for (const row of withRecords.rows) {
    const writer = String(row.writer_id);
    if (!known.has(writer)) all.push(writer);
  }
  for (const writer of all) {
    const head = heads.get(writer) ?? { lastSeq: -1, lastHash: null };
    const { rows } = await pool.query(
      'select seq, body, hash from gate_audit_decisions where writer_id = $1 order by seq',
      [writer],
    );
    let prev: string | null = null;
    let records = 0;
    let problem: string | undefined;
    for (const row of rows) {
      const body = String(row.body);
      const parsed = parseBody(body);
      const seq = Number(row.seq);
      if (seq !== records || parsed?.seq !== records) {
        problem =
          seq > records
            ? `record ${records} is missing (the next is ${seq})`
            : `record ${seq} is inserted or repeated (expected ${records})`;
        break;
      }
      if (sha256Hex(body) !== row.hash || parsed.writer !== writer) {
        problem = `record ${seq} was changed: its hash does not match its content`;
        break;
      }
      if ((parsed.prev ?? null) !== prev) {
        problem = `record ${seq} does not chain to record ${seq - 1}`;
        break;
      }
      prev = String(row.hash);
      records += 1;
    }
    if (problem === undefined) {
      if (!known.has(writer)) problem = 'the writer is not registered in gate_audit_writers';
      else if (head.lastSeq !== records - 1 || head.lastHash !== prev) {
        problem =
          head.lastSeq >= records
            ? `the heads table says ${head.lastSeq + 1} record(s), ${records} found: records were deleted or the tail was cut`
            : `the heads table says ${head.lastSeq + 1} record(s) ending in another hash, ${records} found`;
      }
    }
    const expected = options.expectLastHash?.[writer];
    if (problem === undefined && expected !== undefined && expected !== prev) {
      problem = `the last hash is ${prev ?? 'none'}, expected ${expected}: the tail was cut or rewritten`;
    }
    writers.push({ writer, records, lastHash: prev, ...(problem === undefined ? {} : { problem }) });
  }
  for (const writer of Object.keys(options.expectLastHash ?? {})) {
    if (!all.includes(writer)) problems.push(`writer ${writer} (from --expect-last-hash) has no records`);
  }
  return { ok: problems.length === 0 && writers.every((w) => w.problem === undefined), writers, problems };
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
