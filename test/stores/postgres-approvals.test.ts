import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePending, denyPending, GateFailedError, listPending } from '../../src/index.js';
import { type PostgresStore, postgresStore } from '../../src/stores/postgres.js';
import { answer, pauseInA, restarted, secret } from '../helpers/approvals.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { isolateEachTest, ran, toolResults } from '../helpers/sdk.js';

let cluster: TestCluster;
let store: PostgresStore;
let admin: pg.Client;
beforeAll(async () => {
  cluster = startCluster();
  store = postgresStore({ connectionString: cluster.url });
  await store.migrate();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await store?.close();
  cluster?.destroy();
});
isolateEachTest();

/** Edits a stored entry straight in the table, as someone with database access could. */
async function editEntry(id: string, edit: (entry: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const { rows } = await admin.query<{ entry: string }>('select entry from gate_audit_approvals where id = $1', [id]);
  const entry = edit(JSON.parse(rows[0]!.entry) as Record<string, unknown>);
  await admin.query('update gate_audit_approvals set entry = $2 where id = $1', [id, JSON.stringify(entry)]);
}

describe('approvals in PostgreSQL', () => {
  it('process A pauses, another process approves, a restarted A resumes from its snapshot and runs the call once', async () => {
    const { paused, snapshot } = await pauseInA(store);
    // "Another process": a second store instance with its own pool.
    const other = postgresStore({ connectionString: cluster.url });
    const listed = await listPending(other, { secret });
    expect(listed.map((l) => l.entry.id)).toContain(paused.approvalId);
    await approvePending(other, paused.approvalId, { secret, by: 'alice' });
    await other.close();
    const a2 = restarted(store, snapshot);
    expect((await a2.invoke(answer(paused.id, paused.approvalId))).stopReason).toBe('endTurn');
    expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
    const a3 = restarted(store, snapshot);
    await expect(a3.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
    expect(ran).toHaveLength(1);
    const { rows } = await admin.query<{ consumed_at: unknown }>(
      'select consumed_at from gate_audit_approvals where id = $1',
      [paused.approvalId],
    );
    expect(rows[0]?.consumed_at).toBeInstanceOf(Date);
  });

  it('refuses a row written straight into the table, even one copying a real nonce and HMAC', async () => {
    const { paused, snapshot } = await pauseInA(store);
    const { rows } = await admin.query<{ entry: string }>('select entry from gate_audit_approvals where id = $1', [
      paused.approvalId,
    ]);
    const copyId = '00000000-0000-4000-8000-000000000001';
    const copy = { ...(JSON.parse(rows[0]!.entry) as Record<string, unknown>), id: copyId };
    await admin.query('insert into gate_audit_approvals (id, entry) values ($1, $2)', [copyId, JSON.stringify(copy)]);
    await expect(approvePending(store, copyId, { secret, by: 'alice' })).rejects.toThrow(/not written by this gate/);
    const forged = (await listPending(store, { secret })).find((l) => l.entry.id === copyId);
    expect(forged?.forged).toMatch(/not written by this gate/);
    // Answered straight in the table too, with the real row's token: still refused at consume.
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    await admin.query(
      'update gate_audit_approvals set answered_at = now(), answer = (select answer from gate_audit_approvals where id = $2) where id = $1',
      [copyId, paused.approvalId],
    );
    const a2 = restarted(store, snapshot);
    await expect(a2.invoke(answer(paused.id, copyId))).rejects.toBeInstanceOf(GateFailedError);
    expect(toolResults(a2)[0]).toMatch(/not written by this gate/);
    expect(ran).toEqual([]);
  });

  it('refuses a row whose reason was edited before the approver saw it, and one whose expiry was extended', async () => {
    const first = await pauseInA(store);
    await editEntry(first.paused.approvalId, (e) => ({ ...e, reason: 'just listing files' }));
    await expect(approvePending(store, first.paused.approvalId, { secret, by: 'alice' })).rejects.toThrow(
      /not written by this gate/,
    );
    const second = await pauseInA(store, 1);
    await new Promise((r) => setTimeout(r, 5));
    await editEntry(second.paused.approvalId, (e) => ({ ...e, expiresAt: Date.now() + 60_000 }));
    await expect(approvePending(store, second.paused.approvalId, { secret, by: 'alice' })).rejects.toThrow(
      /not written by this gate/,
    );
  });

  it('refuses an approval for other arguments (the row edited to the resumed input)', async () => {
    const { paused, snapshot } = await pauseInA(store);
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    // The session is edited to run rm on /etc; the approved row is for /tmp/x.
    const edited = JSON.parse(JSON.stringify(snapshot).replaceAll('/tmp/x', '/etc')) as typeof snapshot;
    const a2 = restarted(store, edited);
    await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
    expect(toolResults(a2)[0]).toMatch(/for another call \(input differ/);
    expect(ran).toEqual([]);
  });

  it('the first answer wins: a denial is never overwritten, and a race stores exactly one answer', async () => {
    const { paused } = await pauseInA(store);
    const results = await Promise.allSettled([
      approvePending(store, paused.approvalId, { secret, by: 'alice' }),
      denyPending(store, paused.approvalId, { secret, by: 'bob' }),
      approvePending(store, paused.approvalId, { secret, by: 'carol' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const { rows } = await admin.query<{ answer: string }>('select answer from gate_audit_approvals where id = $1', [
      paused.approvalId,
    ]);
    const stored = JSON.parse(rows[0]!.answer) as { by: string };
    const winner = ['alice', 'bob', 'carol'][results.findIndex((r) => r.status === 'fulfilled')];
    expect(stored.by).toBe(winner);
  });

  it('refuses and stops the run when the store is down at resume, and nothing runs', async () => {
    const { paused, snapshot } = await pauseInA(store);
    await approvePending(store, paused.approvalId, { secret, by: 'alice' });
    cluster.stop();
    try {
      const a2 = restarted(store, snapshot);
      await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
      expect(toolResults(a2)[0]).toMatch(/the approval check failed/);
      expect(ran).toEqual([]);
    } finally {
      cluster.start();
    }
    await admin.end();
    admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
  });
});
