/**
 * `postgresStore`: pending approvals and the decision log of a fleet of processes in PostgreSQL, through
 * `pg` (an optional peer dependency).
 *
 * The schema is made by `migrate()` (`gate-audit store migrate`), as an admin role; a store never issues DDL,
 * and checks once, before its first statement, that the schema is the version it knows (`STORE_SCHEMA`
 * otherwise). Everything a gate or an approver writes is an insert (see `postgres-approvals.ts` and
 * `postgres-log.ts`), so the runtime role needs only SELECT and INSERT, and the approver role INSERT on the
 * answers: holding the runtime credential cannot alter or remove a row.
 */
import pg from 'pg';
import { AUDITING_REFUSAL, isAuditing } from '../auditing.js';
import { GateAuditError } from '../errors.js';
import type { DecisionSink } from '../policy/decision-sink.js';
import { clientMaker, type PostgresApprovals, postgresApprovals } from './postgres-approvals.js';
import { type LogSigningOptions, logSignerOf } from '../policy/decision-log-signing.js';
import { logWriter } from './postgres-log.js';
import { type PruneResult, pruneStore } from './postgres-prune.js';
import { checkSchema, type MigrationResult, migrate, type PgPoolLike } from './postgres-schema.js';

export type { StoredRecord } from './postgres-log.js';
export { storeRecords } from './postgres-log.js';
export type {
  LogBreak,
  StoreLogVerification,
  VerifyStoreLogOptions,
  WriterVerification,
} from './postgres-log-verify.js';
export { verifyStoreLog } from './postgres-log-verify.js';
export type { PruneResult } from './postgres-prune.js';
export type { MigrationResult, PgPoolLike, PgQueryable } from './postgres-schema.js';
export { grantStatements, SCHEMA_VERSION } from './postgres-schema.js';

/** The pool a store makes from a connection string: its size and timeouts. */
export interface PostgresPoolOptions {
  /** The connection string (`postgresql://…`); without a password in it, `PG*` variables and `~/.pgpass` apply. */
  readonly connectionString: string;
  /** At most this many connections (default 10). */
  readonly poolSize?: number;
  /** How long connecting may take, in ms (default 10000). */
  readonly connectTimeoutMs?: number;
  /** How long one query may take, in ms (default 30000). */
  readonly queryTimeoutMs?: number;
}

/**
 * Where the store connects: a connection string (the store owns its pool) or your `pg.Pool` (its settings
 * are used for the one connection outside the pool that waiting for answers and watching need).
 */
export type PostgresStoreOptions = (PostgresPoolOptions | { readonly pool: PgPoolLike }) & {
  /**
   * Sign this writer's registration and checkpoints of its chain with an Ed25519 key (every `every`
   * records, at most 100, and at close). The key is readable by the agent: its signatures prove that nobody
   * without it changed the chain, not that the agent did not.
   */
  readonly signing?: LogSigningOptions;
};

/** A PostgreSQL store: an `ApprovalStore`, a `DecisionSink` (one writer), closable. */
export interface PostgresStore extends PostgresApprovals, DecisionSink {
  /** This store's writer id in the decision log (`host/pid/start/random`). */
  readonly writerId: string;
  /**
   * Creates or upgrades the schema (numbered migrations, recorded in `gate_audit_schema_version`). Run it
   * once per upgrade with an admin role (`gate-audit store migrate`); gates and approvers never call it.
   */
  migrate(): Promise<MigrationResult>;
  /**
   * Removes records, and answered or expired approvals, older than `before`, keeping each writer's last
   * checkpoint before it (run it as an admin role: `gate-audit store prune`).
   */
  prune(before: Date): Promise<PruneResult>;
  /** Checks that the schema is the version this code knows (done before the first statement anyway). */
  checkSchema(): Promise<void>;
  /**
   * Waits for pending records, writes a signed checkpoint when signing and records are unsigned, then ends
   * the pool when the store created it (a pool you passed stays open).
   */
  close(): Promise<void>;
  /** The pool (for `verifyStoreLog`). */
  readonly pool: PgPoolLike;
}

function positive(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new GateAuditError('INVALID_ARGUMENT', `option=<${option}> | expected a positive whole number`);
  }
  return value;
}

/**
 * A PostgreSQL store for approvals and decision records.
 *
 * @param options - `{ connectionString, poolSize?, connectTimeoutMs?, queryTimeoutMs? }` or `{ pool }`
 * @returns the store; pass it as `approvals: { store, approvers }` and as `log`
 * @throws GateAuditError `INVALID_ARGUMENT` when neither is given, or a size or timeout is not a positive
 *   whole number
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  let pool: PgPoolLike;
  let config: pg.ClientConfig | undefined;
  let owned = false;
  if (isAuditing()) {
    // An audit connects to nothing and records nothing: every query is refused.
    const refuse = (): Promise<never> => Promise.reject(new Error(AUDITING_REFUSAL));
    pool = { query: refuse, connect: refuse, end: () => Promise.resolve() };
  } else if (typeof (options as { connectionString?: unknown })?.connectionString === 'string') {
    const given = options as PostgresPoolOptions;
    const connectTimeoutMs = positive(given.connectTimeoutMs, 10_000, 'postgresStore.connectTimeoutMs');
    const queryTimeoutMs = positive(given.queryTimeoutMs, 30_000, 'postgresStore.queryTimeoutMs');
    config = {
      connectionString: given.connectionString,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: queryTimeoutMs,
    };
    const created = new pg.Pool({ ...config, max: positive(given.poolSize, 10, 'postgresStore.poolSize') });
    // An idle connection the server drops must not crash the process: the next query reports it.
    created.on('error', () => undefined);
    pool = created;
    owned = true;
  } else if (typeof (options as { pool?: PgPoolLike })?.pool?.query === 'function') {
    pool = (options as { pool: PgPoolLike }).pool;
    const poolOptions = (pool as { options?: unknown }).options;
    if (typeof poolOptions === 'object' && poolOptions !== null) config = poolOptions;
  } else {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      'option=<postgresStore> | expected { connectionString } or { pool } | e.g. postgresStore({ connectionString: process.env.DATABASE_URL })',
    );
  }

  let checked: Promise<void> | undefined;
  const check = (): Promise<void> => {
    checked ??= checkSchema(pool).catch((error: unknown) => {
      // Checked again next time: the schema may be migrated meanwhile.
      checked = undefined;
      throw error;
    });
    return checked;
  };
  const ready = async (): Promise<PgPoolLike> => {
    await check();
    return pool;
  };
  const signing = (options as { signing?: LogSigningOptions }).signing;
  const writer = logWriter(ready, signing === undefined ? undefined : logSignerOf(signing));
  const approvals = postgresApprovals(ready, clientMaker(pg.Client, config));

  return {
    ...approvals,
    writerId: writer.writerId,
    pool,
    migrate: () => migrate(pool),
    prune: async (before) => pruneStore(await ready(), before),
    checkSchema: check,
    append: (record, gateName) => writer.append(record, gateName),
    close: async () => {
      await writer.drained();
      await writer.checkpoint().catch(() => undefined);
      if (owned) await pool.end();
    },
  };
}
