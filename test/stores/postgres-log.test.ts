import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateFailedError, install, type PolicyInput, policyGate } from '../../src/index.js';
import { type PostgresStore, postgresStore, verifyStoreLog } from '../../src/stores/postgres.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

const policy: PolicyInput = {
  version: 1,
  rules: [
    { id: 'ls-ok', tools: ['ls'], verdict: 'allow' },
    { id: 'no-rm', tools: ['rm'], verdict: 'deny', reason: 'no deleting' },
  ],
};

let cluster: TestCluster;
let admin: pg.Client;
const opened: PostgresStore[] = [];
function open(): PostgresStore {
  const store = postgresStore({ connectionString: cluster.url });
  opened.push(store);
  return store;
}
beforeAll(async () => {
  cluster = startCluster();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  for (const store of opened) await store.close();
  cluster?.destroy();
});
isolateEachTest();

async function reset(): Promise<void> {
  await open().migrate();
  await admin.query('truncate gate_audit_decisions, gate_audit_writers, gate_audit_heads');
}

/** Runs an agent that calls ls and rm `times` times, logging to the store. */
async function runLogged(store: PostgresStore, times = 1): Promise<void> {
  const turns = [];
  for (let i = 0; i < times; i += 1) turns.push(call('ls', { path: `/${i}` }), call('rm', { path: `/${i}` }));
  const agent = scriptedAgent('w', [...turns, say('done')], { tools: [recordingTool('ls'), recordingTool('rm')] });
  install(agent, { gate: policyGate(policy, { log: store }) });
  await agent.invoke('go');
}

describe('the decision log in PostgreSQL', () => {
  describe('when gates record their decisions', () => {
    it('records every decision in its writer chain, with the hashed text stored as it was hashed', async () => {
      await reset();
      const store = open();
      await runLogged(store, 3);
      const report = await verifyStoreLog(store);
      expect(report).toMatchObject({ ok: true, problems: [] });
      expect(report.writers.map((w) => [w.writer, w.records, w.problem])).toEqual([[store.writerId, 6, undefined]]);
      expect(report.writers[0]?.lastHash).toMatch(/^[0-9a-f]{64}$/);
      const { rows } = await admin.query<{ body: string }>('select body from gate_audit_decisions order by id');
      const first = JSON.parse(rows[0]!.body) as Record<string, unknown>;
      expect(first).toMatchObject({
        seq: 0,
        prev: null,
        event: 'allow',
        toolName: 'ls',
        gate: 'policy',
        rule: 'ls-ok',
      });
      expect(JSON.parse(rows[1]!.body)).toMatchObject({ seq: 1, event: 'deny', reason: 'no deleting' });
      expect(store.writerId).toMatch(new RegExp(`/${process.pid}/`));
    });

    it('keeps two sinks in one process as two writers, each chain verifying', async () => {
      await reset();
      const [one, two] = [open(), open()];
      await Promise.all([runLogged(one, 2), runLogged(two, 2)]);
      const report = await verifyStoreLog(one);
      expect(report.ok).toBe(true);
      expect(report.writers.map((w) => w.records)).toEqual([4, 4]);
      expect(new Set(report.writers.map((w) => w.writer))).toEqual(new Set([one.writerId, two.writerId]));
    });
  });

  describe('when a chain is changed, cut or deleted', () => {
    it('reports the first break per writer: a changed record, a deleted one, a cut tail, a deleted writer', async () => {
      await reset();
      const [a, b, c, d] = [open(), open(), open(), open()];
      for (const s of [a, b, c, d]) await runLogged(s, 2);
      await admin.query(
        "update gate_audit_decisions set body = replace(body, 'no deleting', 'fine') where writer_id = $1 and seq = 1",
        [a.writerId],
      );
      await admin.query('delete from gate_audit_decisions where writer_id = $1 and seq = 2', [b.writerId]);
      await admin.query('delete from gate_audit_decisions where writer_id = $1 and seq = 3', [c.writerId]);
      const report = await verifyStoreLog(a);
      const problem = (s: PostgresStore): string | undefined =>
        report.writers.find((w) => w.writer === s.writerId)?.problem;
      expect(problem(a)).toBe('record 1 was changed: its hash does not match its content');
      expect(problem(b)).toBe('record 2 is missing (the next is 3)');
      expect(problem(c)).toMatch(/says 4 record\(s\), 3 found: records were deleted or the tail was cut/);
      expect(problem(d)).toBeUndefined();
      expect(report.ok).toBe(false);
      // Every record and the registration of writer b deleted: the writers' chain breaks at c.
      await admin.query('delete from gate_audit_decisions where writer_id = $1', [b.writerId]);
      await admin.query('delete from gate_audit_writers where writer_id = $1', [b.writerId]);
      const after = await verifyStoreLog(a);
      expect(after.problems).toEqual([
        expect.stringMatching(/\(.*\) does not chain to the one before: a writer was deleted/),
      ]);
    });

    it('checks an expected last hash per writer (a tail cut together with the head)', async () => {
      await reset();
      const store = open();
      await runLogged(store, 2);
      const { writers } = await verifyStoreLog(store);
      const last = writers[0]!.lastHash!;
      expect((await verifyStoreLog(store, { expectLastHash: { [store.writerId]: last } })).ok).toBe(true);
      await admin.query('delete from gate_audit_decisions where writer_id = $1 and seq = 3', [store.writerId]);
      await admin.query('delete from gate_audit_heads where writer_id = $1 and seq = 3', [store.writerId]);
      expect((await verifyStoreLog(store)).ok).toBe(true);
      const checked = await verifyStoreLog(store, { expectLastHash: { [store.writerId]: last } });
      expect(checked.writers[0]?.problem).toMatch(/expected [0-9a-f]{64}: the tail was cut or rewritten/);
      const unknown = await verifyStoreLog(store, { expectLastHash: { 'nobody/1/x/y': last } });
      expect(unknown.problems).toEqual(['writer nobody/1/x/y (from --expect-last-hash) has no records']);
    });
  });

  describe('when the server is down', () => {
    it('refuses calls while the server is down (the run stops), then works again without a restart', async () => {
      await reset();
      const store = open();
      await runLogged(store, 1);
      cluster.stop();
      let refused: ReturnType<typeof scriptedAgent>;
      try {
        refused = scriptedAgent('w', [call('ls', { path: '/down' }), say('done')], { tools: [recordingTool('ls')] });
        install(refused, { gate: policyGate(policy, { log: store }) });
        await expect(refused.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      } finally {
        cluster.start();
      }
      expect(ran).toEqual(['ls({"path":"/0"})@w']);
      expect(toolResults(refused)[0]).toMatch(/could not record the decision: the PostgreSQL decision log failed/);
      await admin.end();
      admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await runLogged(store, 1);
      expect(ran).toHaveLength(2);
      const report = await verifyStoreLog(store);
      expect(report.ok).toBe(true);
      expect(report.writers[0]?.records).toBe(4);
    });
  });
});
