/**
 * `postgresStore`: pending approvals and the decision log of a fleet of processes in PostgreSQL, through
 * `pg` (an optional peer dependency).
 *
 * Approvals (`ApprovalStore`): one row per pending approval; the entry is stored as the JSON text the gate
 * wrote (its HMAC is checked by the gate, not by the database). "First answer wins" is one
 * `UPDATE … WHERE answered_at IS NULL AND consumed_at IS NULL`, single use one
 * `UPDATE … WHERE consumed_at IS NULL RETURNING …`.
 *
 * Decision log (`DecisionSink`): each store instance is one writer (host, pid, start time and a random id),
 * with its own hash chain in one table with a global order (`id`), so writers never wait on each other.
 * Writers register in a hash-chained `writers` table, which also keeps each writer's head (last seq and
 * hash, updated in the same statement as each record): a writer whose records were deleted or whose tail
 * was cut is reported by `verifyStoreLog`. The hashed canonical JSON text is stored as text (JSONB would
 * reorder its keys). A record resolves once PostgreSQL committed it; a failure rejects (the gate refuses the
 * call and stops the run) and the next record first re-reads the writer's head, so the sink works again
 * when the server is back, without a restart. While a `gateSpanProcessor` is open, a record appended inside an
 * active span carries `traceId` and `spanId` in its hashed text (see `policy/trace-ids.ts`).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { canonicalJson, sha256Hex } from '../enforce/digest.js';
import type { GateRecord } from '../enforce/gate.js';
import { AUDITING_REFUSAL, isAuditing } from '../auditing.js';
import { GateAuditError, messageOf } from '../errors.js';
import { joinPath } from '../paths.js';
import { inputDigest } from '../policy/approval.js';
import type { ApprovalAnswer, ApprovalStore, PendingApprovalEntry, StoredApproval } from '../policy/approval-store.js';
import type { DecisionSink } from '../policy/decision-sink.js';
import { activeSpanIds, type SpanIds } from '../policy/trace-ids.js';

/** The part of a `pg` client this store uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

/** The part of a `pg.Pool` this store uses. */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgQueryable & { release(error?: Error | boolean): void }>;
  end(): Promise<void>;
}

/** Where the store connects: a connection string (the store owns its pool) or your `pg.Pool`. */
export type PostgresStoreOptions = { readonly connectionString: string } | { readonly pool: PgPoolLike };

/** A PostgreSQL store: an `ApprovalStore`, a `DecisionSink` (one writer), closable. */
export interface PostgresStore extends ApprovalStore, DecisionSink {
  /** This store's writer id in the decision log (`host/pid/start/random`). */
  readonly writerId: string;
  /** Creates the tables if they are missing (done on first use anyway). */
  migrate(): Promise<void>;
  /** Ends the pool when the store created it (a pool you passed stays open). */
  close(): Promise<void>;
  /** The pool (for `verifyStoreLog`). */
  readonly pool: PgPoolLike;
}

const SCHEMA = `
create table if not exists gate_audit_approvals (
  id text primary key,
  entry text not null,
  created_at timestamptz not null default now(),
  answered_at timestamptz,
  answer text,
  consumed_at timestamptz
);
create table if not exists gate_audit_writers (
  seq bigserial primary key,
  writer_id text not null unique,
  body text not null,
  prev text,
  hash text not null,
  last_seq bigint not null default -1,
  last_hash text
);
create table if not exists gate_audit_decisions (
  id bigserial primary key,
  writer_id text not null,
  seq bigint not null,
  body text not null,
  hash text not null,
  unique (writer_id, seq)
);`;

/** Any fixed number: the advisory lock that serialises creating the tables. */
const MIGRATE_LOCK = 0x6761_7465;

function millis(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.getTime();
  return typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : undefined;
}

function storedOf(row: Record<string, unknown>): StoredApproval {
  const consumedAt = millis(row.consumed_at);
  return {
    entry: JSON.parse(String(row.entry)) as PendingApprovalEntry,
    ...(typeof row.answer === 'string' ? { answer: JSON.parse(row.answer) as ApprovalAnswer } : {}),
    ...(consumedAt === undefined ? {} : { consumedAt }),
  };
}

/** Drops `undefined` members so the canonical text is plain JSON. */
function defined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

async function inTransaction<T>(pool: PgPoolLike, work: (client: PgQueryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    broken = error instanceof Error ? error : new Error(messageOf(error));
    try {
      await client.query('rollback');
    } catch {
      // the connection is gone; it is released as broken below
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * A PostgreSQL store for approvals and decision records.
 *
 * @param options - `{ connectionString }` or `{ pool }` (a `pg.Pool`)
 * @returns the store; pass it as `approvals: { secret, store }` and as `log`
 * @throws GateAuditError `INVALID_ARGUMENT` when neither is given
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  let pool: PgPoolLike;
  let owned = false;
  if (isAuditing()) {
    // An audit connects to nothing and records nothing: every query is refused.
    const refuse = (): Promise<never> => Promise.reject(new Error(AUDITING_REFUSAL));
    pool = { query: refuse, connect: refuse } as unknown as PgPoolLike;
  } else if (typeof (options as { connectionString?: unknown })?.connectionString === 'string') {
    const created = new pg.Pool({
      connectionString: (options as { connectionString: string }).connectionString,
      max: 4,
      connectionTimeoutMillis: 10_000,
      query_timeout: 30_000,
    });
    // An idle connection the server drops must not crash the process: the next query reports it.
    created.on('error', () => undefined);
    pool = created;
    owned = true;
  } else if (typeof (options as { pool?: PgPoolLike })?.pool?.query === 'function') {
    pool = (options as { pool: PgPoolLike }).pool;
  } else {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      'option=<postgresStore> | expected { connectionString } or { pool } | e.g. postgresStore({ connectionString: process.env.DATABASE_URL })',
    );
  }

  let migrated: Promise<void> | undefined;
  const migrate = (): Promise<void> => {
    migrated ??= inTransaction(pool, async (client) => {
      await client.query('select pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
      await client.query(SCHEMA);
    }).catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };
  const ready = async (): Promise<PgPoolLike> => {
    await migrate();
    return pool;
  };

  // The decision log writer.
  const startedAt = new Date().toISOString();
  const writer = {
    host: hostname(),
    pid: process.pid,
    startedAt,
    random: randomBytes(8).toString('hex'),
  };
  const writerId = `${writer.host}/${writer.pid}/${startedAt}/${writer.random}`;
  let head: { seq: number; prev: string | null } | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const register = async (): Promise<{ seq: number; prev: string | null }> => {
    const db = await ready();
    return inTransaction(db, async (client) => {
      const existing = await client.query('select last_seq, last_hash from gate_audit_writers where writer_id = $1', [
        writerId,
      ]);
      const found = existing.rows[0];
      if (found !== undefined) {
        return { seq: Number(found.last_seq) + 1, prev: (found.last_hash as string | null) ?? null };
      }
      // Registration is rare: one lock orders the writers' chain.
      await client.query('lock table gate_audit_writers in share row exclusive mode');
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
    const result = await pool.query(
      `with added as (
         insert into gate_audit_decisions (writer_id, seq, body, hash) values ($1, $2, $3, $4) returning id
       )
       update gate_audit_writers set last_seq = $2, last_hash = $4
         where writer_id = $1 and last_seq = $2 - 1
       returning (select id from added) as id`,
      [writerId, head.seq, body, hash],
    );
    if (result.rowCount !== 1) throw new Error(`writer ${writerId} lost its place in its chain`);
    head = { seq: head.seq + 1, prev: hash };
  };

  const append = (record: GateRecord, gateName: string): Promise<void> => {
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
  };

  return {
    writerId,
    pool,
    migrate,
    close: async () => {
      await queue;
      if (owned) await pool.end();
    },
    append,
    putPending: async (entry) => {
      const db = await ready();
      await db.query('insert into gate_audit_approvals (id, entry) values ($1, $2)', [entry.id, JSON.stringify(entry)]);
    },
    listPending: async (list) => {
      const db = await ready();
      const { rows } = await db.query(
        `select * from gate_audit_approvals ${
          list?.all === true ? '' : 'where answered_at is null and consumed_at is null'
        } order by created_at, id`,
      );
      return rows.map(storedOf);
    },
    getPending: async (id) => {
      const db = await ready();
      const { rows } = await db.query('select * from gate_audit_approvals where id = $1', [id]);
      return rows[0] === undefined ? undefined : storedOf(rows[0]);
    },
    answerPending: async (id, answer) => {
      const db = await ready();
      const { rowCount } = await db.query(
        `update gate_audit_approvals set answered_at = now(), answer = $2
           where id = $1 and answered_at is null and consumed_at is null`,
        [id, JSON.stringify(answer)],
      );
      return rowCount === 1;
    },
    consumePending: async (id) => {
      const db = await ready();
      const { rows } = await db.query(
        'update gate_audit_approvals set consumed_at = now() where id = $1 and consumed_at is null returning *',
        [id],
      );
      return rows[0] === undefined ? undefined : storedOf(rows[0]);
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
 * hash over its stored text, each `prev` the hash before) up to the head the writers table keeps (a cut tail
 * or deleted records are reported), and any `expectLastHash` per writer. Without a key, someone who can
 * rewrite every table and recompute every hash is caught only by `expectLastHash` values kept elsewhere.
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
  const registered = await pool.query(
    'select seq, writer_id, body, prev, hash, last_seq, last_hash from gate_audit_writers order by seq',
  );
  let previous: string | null = null;
  const heads = new Map<string, { lastSeq: number; lastHash: string | null }>();
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
    heads.set(writer, { lastSeq: Number(row.last_seq), lastHash: (row.last_hash as string | null) ?? null });
  }
  const withRecords = await pool.query('select distinct writer_id from gate_audit_decisions');
  const all = [...heads.keys()];
  for (const row of withRecords.rows) {
    const writer = String(row.writer_id);
    if (!heads.has(writer)) all.push(writer);
  }
  for (const writer of all) {
    const head = heads.get(writer);
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
      if (head === undefined) problem = 'the writer is not registered in gate_audit_writers';
      else if (head.lastSeq !== records - 1 || head.lastHash !== prev) {
        problem =
          head.lastSeq >= records
            ? `the writers table says ${head.lastSeq + 1} record(s), ${records} found: records were deleted or the tail was cut`
            : `the writers table says ${head.lastSeq + 1} record(s) ending in another hash, ${records} found`;
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
