/**
 * Retention of the PostgreSQL store (`gate-audit store prune --before <time>`, an admin role: the runtime
 * role cannot delete). In one transaction:
 *
 * - each writer's records older than the time are removed up to its last checkpoint written before the
 *   time, which stays as the chain's first record: its signature (over `seq` and `prev`) lets `verify-log`
 *   prove the rest. A writer with no checkpoint before the time keeps every record (sign your logs to
 *   prune them); the registry is never pruned.
 * - approvals raised before the time that were answered or have expired are removed (pending row, answer,
 *   consumption), except a used approval that has not expired yet: it stays whole, so its consumption keeps
 *   refusing a second use.
 * - the prune is recorded in `gate_audit_prunes`.
 */
import { canonicalJson } from '../enforce/digest.js';
import { inTransaction, type PgPoolLike } from './postgres-schema.js';

/** What `pruneStore` removed. */
export interface PruneResult {
  /** Decision records removed (their head rows too). */
  readonly records: number;
  /** Writers whose chain now starts at a checkpoint. */
  readonly writers: number;
  /** Approvals removed (with their answers and consumptions). */
  readonly approvals: number;
}

/** Per writer, the seq of its last checkpoint written before $1: the chain's first record after the prune. */
const CUTS = `
select writer_id, max(seq) as cut from gate_audit_decisions
where body::json -> 'checkpoint' is not null and (body::json ->> 'time')::timestamptz < $1
group by writer_id`;

/** The ids of the approvals a prune removes ($1 the time, $2 now in ms). */
const DOOMED_APPROVALS = `
select p.id from gate_audit_pending p
left join gate_audit_answers a on a.approval_id = p.id
left join gate_audit_consumptions c on c.approval_id = p.id
where p.created_at < $1
  and (
    (p.entry::json ->> 'expiresAt')::bigint < $2
    or (a.approval_id is not null and c.approval_id is null)
  )`;

/**
 * Removes what is older than `before` (see the module comment).
 *
 * @param pool - a pool connected as an admin role (DELETE on the store's tables)
 * @param before - the time: what is older goes
 * @param now - the time expiries are compared with (default: now)
 */
export function pruneStore(pool: PgPoolLike, before: Date, now: Date = new Date()): Promise<PruneResult> {
  return inTransaction(pool, async (client) => {
    const cuts = await client.query(CUTS, [before.toISOString()]);
    let records = 0;
    let writers = 0;
    for (const row of cuts.rows) {
      const removed = await client.query('delete from gate_audit_decisions where writer_id = $1 and seq < $2', [
        row.writer_id,
        row.cut,
      ]);
      await client.query('delete from gate_audit_heads where writer_id = $1 and seq < $2', [row.writer_id, row.cut]);
      records += removed.rowCount ?? 0;
      if ((removed.rowCount ?? 0) > 0) writers += 1;
    }
    const found = await client.query(DOOMED_APPROVALS, [before.toISOString(), now.getTime()]);
    const doomed = [found.rows.map((row) => String(row.id))];
    await client.query('delete from gate_audit_consumptions where approval_id = any($1::text[])', doomed);
    await client.query('delete from gate_audit_answers where approval_id = any($1::text[])', doomed);
    const approvals = await client.query('delete from gate_audit_pending where id = any($1::text[])', doomed);
    const result = { records, writers, approvals: approvals.rowCount ?? 0 };
    await client.query('insert into gate_audit_prunes (before, body) values ($1, $2)', [
      before.toISOString(),
      canonicalJson({ before: before.toISOString(), ...result }),
    ]);
    return result;
  });
}
