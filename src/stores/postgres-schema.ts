/**
 * The PostgreSQL store's schema: numbered migrations, applied in order by `migrate` (an admin role, e.g.
 * `gate-audit store migrate`) and recorded in `gate_audit_schema_version`. The runtime never issues DDL: a
 * store checks once, before its first statement, that the schema is exactly the version this code knows,
 * and refuses (`STORE_SCHEMA`) when it is missing, older or newer.
 *
 * Version 2 makes the store append-only for the roles a team runs gates and approvers with: a pending
 * approval, its answer and its consumption are rows of three tables, the answer and consumption tables each
 * with a unique index on the approval id (a second answer or consumption fails on insert); a writer's head
 * is a row per record in `gate_audit_heads`, never an update; the id columns are identity columns (no
 * sequence privilege needed). The runtime role needs SELECT and INSERT, the approver role INSERT on
 * `gate_audit_answers` and SELECT; neither needs UPDATE, DELETE, DDL or LOCK TABLE.
 */
import { GateAuditError, messageOf } from '../errors.js';

/** The part of a `pg` client this store uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

/** The part of a `pg.Pool` this store uses. */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgQueryable & { release(error?: Error | boolean): void }>;
  end(): Promise<void>;
}

/** One numbered migration. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Version 1: the tables gate-audit 0.1 created on first use (kept as they were, so a store of then upgrades). */
const V1 = `
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

/**
 * Version 2: append-only approvals and heads, identity ids. The approvals of version 1 were answered with a
 * shared secret and cannot be checked with approvers' keys: they are dropped (ask again).
 */
const V2 = `
drop table if exists gate_audit_approvals;
create table gate_audit_pending (
  seq bigint generated always as identity primary key,
  id text not null unique,
  call_digest text not null,
  tool_use_id text not null,
  entry text not null,
  created_at timestamptz not null default now()
);
create index gate_audit_pending_call on gate_audit_pending (call_digest, tool_use_id, seq);
create table gate_audit_answers (
  seq bigint generated always as identity primary key,
  approval_id text not null references gate_audit_pending (id),
  body text not null,
  created_at timestamptz not null default now()
);
create unique index gate_audit_answers_once on gate_audit_answers (approval_id);
create table gate_audit_consumptions (
  seq bigint generated always as identity primary key,
  approval_id text not null references gate_audit_pending (id),
  body text not null,
  created_at timestamptz not null default now()
);
create unique index gate_audit_consumptions_once on gate_audit_consumptions (approval_id);
create table gate_audit_heads (
  writer_id text not null,
  seq bigint not null,
  hash text not null,
  primary key (writer_id, seq)
);
insert into gate_audit_heads (writer_id, seq, hash)
  select writer_id, last_seq, last_hash from gate_audit_writers where last_seq >= 0 and last_hash is not null;
alter table gate_audit_writers drop column last_seq, drop column last_hash;
alter table gate_audit_writers alter column seq drop default;
drop sequence if exists gate_audit_writers_seq_seq;
alter table gate_audit_writers alter column seq add generated always as identity;
select setval(pg_get_serial_sequence('gate_audit_writers', 'seq'), coalesce(max(seq), 0) + 1, false) from gate_audit_writers;
alter table gate_audit_decisions alter column id drop default;
drop sequence if exists gate_audit_decisions_id_seq;
alter table gate_audit_decisions alter column id add generated always as identity;
select setval(pg_get_serial_sequence('gate_audit_decisions', 'id'), coalesce(max(id), 0) + 1, false) from gate_audit_decisions;`;

/**
 * Version 3: retention. `gate-audit store prune` (an admin role) records each prune in `gate_audit_prunes`,
 * so a verifier accepts a writer's chain that starts at the signed checkpoint a prune kept; the runtime role
 * only reads it.
 */
const V3 = `
create table gate_audit_prunes (
  seq bigint generated always as identity primary key,
  before timestamptz not null,
  pruned_at timestamptz not null default now(),
  body text not null
);`;

const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'tables of gate-audit 0.1', sql: V1 },
  { version: 2, name: 'append-only approvals (pending, answers, consumptions), writer heads, identity ids', sql: V2 },
  { version: 3, name: 'prunes: retention of records and approvals', sql: V3 },
];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Any fixed number: the advisory lock that serialises migrations. */
const MIGRATE_LOCK = 0x6761_7465;

/** What `migrate` did. */
export interface MigrationResult {
  /** The schema version before (0: no schema). */
  readonly from: number;
  /** The schema version after (this code's). */
  readonly to: number;
  /** The migrations applied, by number and name. */
  readonly applied: readonly string[];
}

/**
 * Runs `work` in a transaction on one client of the pool; rolls back and releases a broken client on error.
 *
 * @param pool - the pool
 * @param work - the statements
 */
export async function inTransaction<T>(pool: PgPoolLike, work: (client: PgQueryable) => Promise<T>): Promise<T> {
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

function newer(found: number): GateAuditError {
  return new GateAuditError(
    'STORE_SCHEMA',
    `store=<postgres>, schema=<${found}> | the schema is newer than this gate-audit knows (version ${SCHEMA_VERSION}) | upgrade gate-audit on this host to the version that migrated the store`,
  );
}

/**
 * Creates or upgrades the schema to `SCHEMA_VERSION`, in one transaction under an advisory lock (two
 * migrations at once run one after the other). Needs a role that may create and alter the tables.
 *
 * @param pool - the pool, connected as an admin role
 * @throws GateAuditError `STORE_SCHEMA` when the schema is newer than this code
 */
export function migrate(pool: PgPoolLike): Promise<MigrationResult> {
  return inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
    await client.query(
      `create table if not exists gate_audit_schema_version (
         version integer primary key,
         name text not null,
         applied_at timestamptz not null default now()
       )`,
    );
    const { rows } = await client.query('select coalesce(max(version), 0) as version from gate_audit_schema_version');
    const from = Number(rows[0]?.version ?? 0);
    if (from > SCHEMA_VERSION) throw newer(from);
    const applied: string[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query(migration.sql);
      await client.query('insert into gate_audit_schema_version (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(`${migration.version} ${migration.name}`);
    }
    return { from, to: SCHEMA_VERSION, applied };
  });
}

/**
 * Checks that the schema is exactly `SCHEMA_VERSION` (one SELECT; no DDL).
 *
 * @param db - a pool or client
 * @throws GateAuditError `STORE_SCHEMA` when there is no schema, or it is older or newer
 */
export async function checkSchema(db: PgQueryable): Promise<void> {
  let found: number;
  try {
    const { rows } = await db.query('select coalesce(max(version), 0) as version from gate_audit_schema_version');
    found = Number(rows[0]?.version ?? 0);
  } catch (error) {
    if ((error as { code?: unknown })?.code !== '42P01') throw error;
    found = 0;
  }
  if (found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) throw newer(found);
  if (found === 0) {
    const { rows } = await db.query("select to_regclass('gate_audit_writers') is not null as old");
    if (rows[0]?.old !== true) {
      throw new GateAuditError(
        'STORE_SCHEMA',
        'store=<postgres> | the store has no gate-audit schema (gate_audit_schema_version is missing) | run gate-audit store migrate --store <url> once, as a role that may create tables; gates never create them',
      );
    }
  }
  throw new GateAuditError(
    'STORE_SCHEMA',
    `store=<postgres>, schema=<${found === 0 ? '0.1, unversioned' : found}> | the schema is older than this gate-audit (version ${SCHEMA_VERSION}) | run gate-audit store migrate --store <url> as an admin role`,
  );
}

/** The tables a gate's runtime role reads, and the ones it appends to. */
const RUNTIME_READS = [
  'gate_audit_schema_version',
  'gate_audit_pending',
  'gate_audit_answers',
  'gate_audit_consumptions',
  'gate_audit_writers',
  'gate_audit_decisions',
  'gate_audit_heads',
  'gate_audit_prunes',
];
const RUNTIME_APPENDS = [
  'gate_audit_pending',
  'gate_audit_consumptions',
  'gate_audit_writers',
  'gate_audit_decisions',
  'gate_audit_heads',
];
/** The tables an approver's role reads, and the one it appends to. */
const APPROVER_READS = [
  'gate_audit_schema_version',
  'gate_audit_pending',
  'gate_audit_answers',
  'gate_audit_consumptions',
];
const APPROVER_APPENDS = ['gate_audit_answers'];

/** A role name as an SQL identifier (double-quoted). */
function identifier(role: string): string {
  if (role === '' || role.includes('\0'))
    throw new GateAuditError('INVALID_ARGUMENT', 'option=<role> | expected a role name');
  return `"${role.replaceAll('"', '""')}"`;
}

/**
 * The GRANT statements that give the roles exactly what they need of schema version `SCHEMA_VERSION`: the
 * runtime role (gates: their pending approvals, consumptions and decision log) SELECT and INSERT, the
 * approver role SELECT and INSERT on the answers only. Neither gets UPDATE, DELETE, TRUNCATE or DDL; the id
 * columns are identity columns, so no sequence privilege is needed. Run them as the admin role that ran
 * `migrate` (`gate-audit store grants` prints them).
 *
 * @param roles - the role names (either may be omitted)
 */
export function grantStatements(roles: { readonly runtime?: string; readonly approver?: string }): string[] {
  const statements: string[] = [];
  if (roles.runtime !== undefined) {
    const role = identifier(roles.runtime);
    statements.push(`grant select on ${RUNTIME_READS.join(', ')} to ${role};`);
    statements.push(`grant insert on ${RUNTIME_APPENDS.join(', ')} to ${role};`);
  }
  if (roles.approver !== undefined) {
    const role = identifier(roles.approver);
    statements.push(`grant select on ${APPROVER_READS.join(', ')} to ${role};`);
    statements.push(`grant insert on ${APPROVER_APPENDS.join(', ')} to ${role};`);
  }
  return statements;
}
