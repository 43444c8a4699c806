/**
 * Approvals in PostgreSQL, insert-only: a pending approval is a row of `gate_audit_pending`, its answer a
 * row of `gate_audit_answers`, its consumption a row of `gate_audit_consumptions`; the last two carry a
 * unique index on the approval id, so of two answers (or consumptions) the database takes the first and the
 * second fails on insert (unique violation: `false` here). Each insert of a pending row or an answer
 * notifies its channel in the same statement (`pg_notify`), for `watch` and `waitForAnswer`.
 */
import type pg from 'pg';
import { GateAuditError, messageOf } from '../errors.js';
import type {
  ApprovalAnswer,
  ApprovalConsumption,
  ApprovalStore,
  PendingApprovalEntry,
  StoredApproval,
  WaitOptions,
} from '../policy/approval-store.js';
import { unknownApproval, waitUntilAnswered } from '../policy/approval-store.js';
import { ANSWER_CHANNEL, listen, PENDING_CHANNEL } from './postgres-listen.js';
import type { PgPoolLike } from './postgres-schema.js';

const SELECT = `
select p.entry, a.body as answer, c.body as consumption,
  (select q.id from gate_audit_pending q
     where q.call_digest = p.call_digest and q.tool_use_id = p.tool_use_id and q.seq > p.seq
     order by q.seq desc limit 1) as superseded_by
from gate_audit_pending p
left join gate_audit_answers a on a.approval_id = p.id
left join gate_audit_consumptions c on c.approval_id = p.id`;

function parsed<T>(text: unknown, what: string): T {
  try {
    return JSON.parse(String(text)) as T;
  } catch (error) {
    throw new Error(`a stored ${what} is not JSON (${messageOf(error)})`, { cause: error });
  }
}

function storedOf(row: Record<string, unknown>): StoredApproval {
  return {
    entry: parsed<PendingApprovalEntry>(row.entry, 'pending approval'),
    ...(typeof row.answer === 'string' ? { answer: parsed<ApprovalAnswer>(row.answer, 'answer') } : {}),
    ...(typeof row.consumption === 'string'
      ? { consumption: parsed<ApprovalConsumption>(row.consumption, 'consumption') }
      : {}),
    ...(typeof row.superseded_by === 'string' ? { supersededBy: row.superseded_by } : {}),
  };
}

/** Whether an insert failed on a unique index (taken first) or a missing pending approval (unknown). */
function takenOrUnknown(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '23505' || code === '23503';
}

/** The approval methods of a PostgreSQL store, and its follow of new pending approvals. */
export interface PostgresApprovals extends ApprovalStore {
  /**
   * Follows new pending approvals (LISTEN on a dedicated connection, outside the pool): calls `onPending`
   * once for each unanswered, unused one, those there already first, until the signal aborts. After a
   * reconnection it lists again (notifications sent while disconnected are lost).
   */
  watchPending(
    onPending: (row: StoredApproval) => void,
    options: { readonly signal: AbortSignal; readonly onProblem?: (message: string) => void },
  ): Promise<void>;
}

/**
 * The approval methods over a pool.
 *
 * @param ready - the pool, once the schema is checked
 * @param connect - a new client outside the pool (for LISTEN)
 */
export function postgresApprovals(ready: () => Promise<PgPoolLike>, connect: () => pg.Client): PostgresApprovals {
  const getPending = async (id: string): Promise<StoredApproval | undefined> => {
    const db = await ready();
    const { rows } = await db.query(`${SELECT} where p.id = $1`, [id]);
    return rows[0] === undefined ? undefined : storedOf(rows[0]);
  };
  const listPending = async (list?: { readonly all?: boolean }): Promise<StoredApproval[]> => {
    const db = await ready();
    const where = list?.all === true ? '' : 'where a.approval_id is null and c.approval_id is null';
    const { rows } = await db.query(`${SELECT} ${where} order by p.seq`);
    return rows.map(storedOf);
  };
  const insertOnce = async (sql: string, values: unknown[]): Promise<boolean> => {
    const db = await ready();
    try {
      const { rowCount } = await db.query(sql, values);
      return rowCount === 1;
    } catch (error) {
      if (takenOrUnknown(error)) return false;
      throw error;
    }
  };
  return {
    putPending: async (entry: PendingApprovalEntry): Promise<void> => {
      const db = await ready();
      await db.query(
        `with added as (
           insert into gate_audit_pending (id, call_digest, tool_use_id, entry) values ($1, $2, $3, $4) returning id
         )
         select pg_notify('${PENDING_CHANNEL}', id) from added`,
        [entry.id, entry.callDigest, entry.request.toolUseId, JSON.stringify(entry)],
      );
    },
    listPending,
    getPending,
    answerPending: (answer: ApprovalAnswer) =>
      insertOnce(
        `with added as (
           insert into gate_audit_answers (approval_id, body) values ($1, $2) returning approval_id
         )
         select pg_notify('${ANSWER_CHANNEL}', approval_id) from added`,
        [answer.approvalId, JSON.stringify(answer)],
      ),
    consumePending: (consumption: ApprovalConsumption) =>
      insertOnce('insert into gate_audit_consumptions (approval_id, body) values ($1, $2)', [
        consumption.approvalId,
        JSON.stringify(consumption),
      ]),
    waitForAnswer: (approvalId: string, options?: WaitOptions) =>
      waitUntilAnswered(
        async () => {
          const stored = await getPending(approvalId);
          if (stored === undefined) throw unknownApproval(approvalId);
          return stored.answer;
        },
        (news) => {
          const listener = listen(connect, ANSWER_CHANNEL, {
            onNotify: (payload) => {
              if (payload === approvalId) news();
            },
            onReady: news,
          });
          return () => void listener.stop();
        },
        options,
      ),
    watchPending: async (onPending, { signal, onProblem }) => {
      if (signal.aborted) return;
      const seen = new Set<string>();
      const show = (row: StoredApproval): void => {
        if (seen.has(row.entry.id) || row.answer !== undefined || row.consumption !== undefined) return;
        seen.add(row.entry.id);
        onPending(row);
      };
      const problem = (error: unknown): void => onProblem?.(messageOf(error));
      const listener = listen(connect, PENDING_CHANNEL, {
        onNotify: (id) => {
          getPending(id).then((row) => row !== undefined && show(row), problem);
        },
        // Listening (again): what arrived while not listening is listed.
        onReady: () => {
          listPending().then((rows) => rows.forEach(show), problem);
        },
        ...(onProblem === undefined ? {} : { onProblem }),
      });
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await listener.stop();
    },
  };
}

/**
 * A client outside the pool with the pool's own settings (for LISTEN).
 *
 * @param Client - `pg.Client`
 * @param config - the settings the pool was made with (a `pg.Pool`'s `options`)
 * @throws GateAuditError `INVALID_ARGUMENT` when there are none (a pool that is not a `pg.Pool`)
 */
export function clientMaker(Client: typeof pg.Client, config: pg.ClientConfig | undefined): () => pg.Client {
  return () => {
    if (config === undefined) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        'option=<postgresStore.pool> | waiting and watching need a connection outside the pool, and this pool has no pg.Pool options to make one | pass a pg.Pool, or { connectionString }',
      );
    }
    return new Client(config);
  };
}
