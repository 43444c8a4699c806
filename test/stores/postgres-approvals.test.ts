/**
 * Approvals in PostgreSQL with the roles a team runs: the schema made by the admin (`migrate`), gates on a
 * runtime role with SELECT and INSERT only, approvers on a role that may only add answers. Table edits the
 * runtime credential could make before are now refused by the database itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approvePending,
  denyPending,
  GateFailedError,
  type DecisionSink,
  install,
  openDecisionLog,
  policyGate,
} from '../../src/index.js';
import { canonicalJson, sha256Hex } from '../../src/enforce/digest.js';
import { type PostgresStore, postgresStore, SCHEMA_VERSION, verifyStoreLog } from '../../src/stores/postgres.js';
import { alice, answer, approvers, as, askPolicy, bob, pausedOf, pauseInA, restarted } from '../helpers/approvals.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';
import { APPROVER, asAdmin, createRoles, privilegesOf, RUNTIME, urlAs } from './roles.js';

let cluster: TestCluster;
let dir: string;
const opened: PostgresStore[] = [];
/** A store connected as a role (default: the gates' runtime role). */
function open(role = RUNTIME, database = 'postgres'): PostgresStore {
  const store = postgresStore({ connectionString: urlAs(cluster, role, database) });
  opened.push(store);
  return store;
}
beforeAll(async () => {
  cluster = startCluster();
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-pg-approvals-'));
  await open('postgres').migrate();
  await createRoles(cluster);
});
afterAll(async () => {
  for (const store of opened) await store.close().catch(() => undefined);
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});
isolateEachTest();

/** Runs one statement as a role and gives the error code it fails with (undefined when it worked). */
async function failsAs(role: string, sql: string, values: unknown[] = []): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: urlAs(cluster, role) });
  await client.connect();
  try {
    await client.query(sql, values);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    await client.end();
  }
}

describe('postgresStore approvals', () => {
  describe('when its runtime and approver roles act (the roles of a store)', () => {
    it('the runtime role may SELECT and INSERT only, the approver role INSERT only on the answers; neither may CREATE', async () => {
      const tables = [
        'answers',
        'consumptions',
        'decisions',
        'heads',
        'pending',
        'prunes',
        'schema_version',
        'writers',
      ];
      const select = (names: string[]) => names.map((t) => `gate_audit_${t}:SELECT`);
      const insert = (names: string[]) => names.map((t) => `gate_audit_${t}:INSERT`);
      expect(await privilegesOf(cluster, RUNTIME)).toEqual(
        [...select(tables), ...insert(['consumptions', 'decisions', 'heads', 'pending', 'writers'])].sort(),
      );
      expect(await privilegesOf(cluster, APPROVER)).toEqual(
        [...select(['answers', 'consumptions', 'pending', 'schema_version']), ...insert(['answers'])].sort(),
      );
    });

    it('a runtime role without CREATE works after store migrate: pauses, the approver role answers, it resumes and runs once', async () => {
      const { paused, snapshot } = await pauseInA(open());
      const approver = open(APPROVER);
      expect((await approver.listPending()).map((row) => row.entry.id)).toContain(paused.approvalId);
      await approvePending(approver, paused.approvalId, as(alice));
      const a2 = restarted(open(), snapshot);
      expect((await a2.invoke(answer(paused.id, paused.approvalId))).stopReason).toBe('endTurn');
      expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
      // The runtime role issued no DDL: the schema is the admin's, at this code's version.
      const { rows } = await asAdmin(cluster, 'select max(version) as v from gate_audit_schema_version');
      expect(Number(rows[0]?.v)).toBe(SCHEMA_VERSION);
    });

    it('the runtime role cannot UPDATE, DELETE, TRUNCATE, LOCK or create anything, nor add an answer', async () => {
      const { paused } = await pauseInA(open());
      await approvePending(open(APPROVER), paused.approvalId, as(alice));
      const id = paused.approvalId;
      const denied = '42501';
      expect(await failsAs(RUNTIME, 'update gate_audit_pending set entry = entry where id = $1', [id])).toBe(denied);
      expect(await failsAs(RUNTIME, 'update gate_audit_answers set body = body where approval_id = $1', [id])).toBe(
        denied,
      );
      expect(await failsAs(RUNTIME, 'delete from gate_audit_answers where approval_id = $1', [id])).toBe(denied);
      expect(await failsAs(RUNTIME, 'delete from gate_audit_consumptions')).toBe(denied);
      expect(await failsAs(RUNTIME, 'delete from gate_audit_decisions')).toBe(denied);
      expect(await failsAs(RUNTIME, 'truncate gate_audit_heads')).toBe(denied);
      expect(await failsAs(RUNTIME, 'begin; lock table gate_audit_pending in exclusive mode; commit')).toBe(denied);
      expect(await failsAs(RUNTIME, 'create table gate_audit_mine (x int)')).toBe(denied);
      expect(await failsAs(RUNTIME, "insert into gate_audit_answers (approval_id, body) values ($1, '{}')", [id])).toBe(
        denied,
      );
      expect(await failsAs(APPROVER, 'delete from gate_audit_answers')).toBe(denied);
      expect(
        await failsAs(APPROVER, "insert into gate_audit_consumptions (approval_id, body) values ($1, '{}')", [id]),
      ).toBe(denied);
    });
  });

  describe('when approvals are kept in PostgreSQL (append-only)', () => {
    describe('when the runtime role tries to undo an answer or a consumption', () => {
      it('a consumption cannot be taken back by the runtime role: the same snapshot never runs twice', async () => {
        const { paused, snapshot } = await pauseInA(open());
        await approvePending(open(APPROVER), paused.approvalId, as(alice));
        await restarted(open(), snapshot).invoke(answer(paused.id, paused.approvalId));
        expect(ran).toHaveLength(1);
        // What `consumed_at = NULL` did before: with the runtime credential, the consumption cannot go.
        expect(
          await failsAs(RUNTIME, 'delete from gate_audit_consumptions where approval_id = $1', [paused.approvalId]),
        ).toBe('42501');
        const again = restarted(open(), snapshot);
        await expect(again.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
        expect(toolResults(again)[0]).toMatch(/was already used/);
        expect(ran).toHaveLength(1);
        const { rows } = await asAdmin(
          cluster,
          `select body from gate_audit_consumptions where approval_id = '${paused.approvalId}'`,
        );
        expect(JSON.parse(String(rows[0]?.body))).toMatchObject({ approvalId: paused.approvalId, outcome: 'granted' });
      });

      it('a denial cannot be erased by the runtime role, and a second answer fails on insert', async () => {
        const { paused, snapshot } = await pauseInA(open());
        await denyPending(open(APPROVER), paused.approvalId, as(bob));
        expect(
          await failsAs(RUNTIME, 'delete from gate_audit_answers where approval_id = $1', [paused.approvalId]),
        ).toBe('42501');
        await expect(approvePending(open(APPROVER), paused.approvalId, as(alice))).rejects.toThrow(/answered already/);
        // The unique index itself, not a check before the write, refuses the second answer.
        expect(
          await failsAs(APPROVER, "insert into gate_audit_answers (approval_id, body) values ($1, '{}')", [
            paused.approvalId,
          ]),
        ).toBe('23505');
        const a2 = restarted(open(), snapshot);
        await a2.invoke(answer(paused.id, paused.approvalId));
        expect(toolResults(a2)[0]).toMatch(/approval refused \(denied by bob\)/);
        expect(ran).toEqual([]);
      });
    });

    describe('when approvers or resumers race', () => {
      it('of racing approvers on separate connections exactly one answer is stored', async () => {
        const { paused } = await pauseInA(open());
        const results = await Promise.allSettled([
          approvePending(open(APPROVER), paused.approvalId, as(alice)),
          denyPending(open(APPROVER), paused.approvalId, as(bob)),
          approvePending(open(APPROVER), paused.approvalId, as(bob)),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const { rows } = await asAdmin(
          cluster,
          `select body from gate_audit_answers where approval_id = '${paused.approvalId}'`,
        );
        expect(rows).toHaveLength(1);
        const winner = results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ approverId: string }>;
        expect((JSON.parse(String(rows[0]?.body)) as { approverId: string }).approverId).toBe(winner.value.approverId);
      });

      it('two resumer processes racing on one approval: exactly one runs the call', async () => {
        const { paused, snapshot } = await pauseInA(open());
        await approvePending(open(APPROVER), paused.approvalId, as(alice));
        const file = join(dir, 'race-snapshot.json');
        writeFileSync(file, JSON.stringify(snapshot));
        const workers: ChildProcess[] = [];
        const outputs = await new Promise<string[]>((resolve, reject) => {
          const lines: string[][] = [[], []];
          let ready = 0;
          for (const index of [0, 1]) {
            const child = spawn(
              process.execPath,
              [
                join(root, 'node_modules/jiti/lib/jiti-cli.mjs'),
                join(root, 'test/stores/resume-worker.ts'),
                urlAs(cluster, RUNTIME),
                file,
                paused.id,
                paused.approvalId,
              ],
              {
                cwd: root,
                env: { ...process.env, APPROVERS: JSON.stringify(approvers) },
                stdio: ['pipe', 'pipe', 'inherit'],
              },
            );
            workers.push(child);
            child.stdout.on('data', (chunk: Buffer) => {
              for (const line of chunk.toString().split('\n').filter(Boolean)) {
                if (line === 'ready' && ++ready === 2) for (const w of workers) w.stdin!.write('go\n');
                else if (line !== 'ready') lines[index]!.push(line);
              }
            });
            child.on('error', reject);
          }
          let exited = 0;
          for (const child of workers) {
            child.on('exit', () => {
              if (++exited === 2) resolve(lines.map((l) => l.join('\n')));
            });
          }
        });
        expect(outputs.filter((o) => o === 'ran 1')).toHaveLength(1);
        expect(outputs.filter((o) => /^refused 0 .*was already used/.test(o))).toHaveLength(1);
      }, 60_000);
    });

    describe('when a resume is checked against the stored rows and logged', () => {
      it('consumptions are in the store whatever the log sink, and the decision log names the approval and the approver', async () => {
        const file = join(dir, 'decisions.log');
        const fileLog = openDecisionLog(file);
        const runtime = open();
        const sinks: [string, DecisionSink | undefined][] = [
          ['file', fileLog],
          ['store', runtime],
          ['none', undefined],
        ];
        for (const [name, log] of sinks) {
          const agent = scriptedAgent('a', [call('rm', { path: `/${name}` }), say('done')], {
            tools: [recordingTool('rm')],
          });
          install(agent, {
            gate: policyGate(askPolicy, {
              approvals: { store: runtime, approvers },
              ...(log === undefined ? {} : { log }),
            }),
          });
          const paused = pausedOf(await agent.invoke('go'));
          await approvePending(open(APPROVER), paused.approvalId, as(alice));
          await agent.invoke(answer(paused.id, paused.approvalId));
          const { rows } = await asAdmin(
            cluster,
            `select body from gate_audit_consumptions where approval_id = '${paused.approvalId}'`,
          );
          expect(JSON.parse(String(rows[0]?.body)), name).toMatchObject({ outcome: 'granted' });
          if (name === 'file') {
            const granted = readFileSync(file, 'utf8')
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line) as Record<string, unknown>)
              .find((r) => r.event === 'approval-granted');
            expect(granted).toMatchObject({ approvalId: paused.approvalId, approverId: 'alice' });
          }
          if (name === 'store') {
            const logged = await asAdmin(
              cluster,
              "select body from gate_audit_decisions where body like '%approval-granted%'",
            );
            expect(logged.rows.map((r) => JSON.parse(String(r.body)) as unknown)).toContainEqual(
              expect.objectContaining({ approvalId: paused.approvalId, approverId: 'alice', writer: runtime.writerId }),
            );
          }
        }
        fileLog.close();
        expect(ran).toEqual(['rm({"path":"/file"})@a', 'rm({"path":"/store"})@a', 'rm({"path":"/none"})@a']);
      });

      it("resuming call B with call A's approval is refused and spends nothing of A's", async () => {
        const a = await pauseInA(open());
        await approvePending(open(APPROVER), a.paused.approvalId, as(alice));
        const other = scriptedAgent('a', [call('rm', { path: '/etc' }), say('done')], { tools: [recordingTool('rm')] });
        install(other, { gate: policyGate(askPolicy, { approvals: { store: open(), approvers } }) });
        const b = pausedOf(await other.invoke('go'));
        const resumedB = restarted(open(), other.takeSnapshot({ preset: 'session' }));
        await expect(resumedB.invoke(answer(b.id, a.paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
        const { rows } = await asAdmin(
          cluster,
          `select 1 from gate_audit_consumptions where approval_id = '${a.paused.approvalId}'`,
        );
        expect(rows).toEqual([]);
        await restarted(open(), a.snapshot).invoke(answer(a.paused.id, a.paused.approvalId));
        expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
      });

      it('refuses an answer whose approver name was changed in the table (by an admin), and runs nothing', async () => {
        const { paused, snapshot } = await pauseInA(open());
        await approvePending(open(APPROVER), paused.approvalId, as(alice));
        await asAdmin(
          cluster,
          `update gate_audit_answers set body = replace(body, '"approverId":"alice"', '"approverId":"bob"') where approval_id = '${paused.approvalId}'`,
        );
        const a2 = restarted(open(), snapshot);
        await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
        expect(toolResults(a2)[0]).toMatch(/the answer's signature is not by "bob"/);
        expect(ran).toEqual([]);
      });

      it('refuses a row whose input was edited in the table, at the approver and at the gate', async () => {
        const { paused, snapshot } = await pauseInA(open());
        await asAdmin(
          cluster,
          `update gate_audit_pending set entry = replace(entry, '/tmp/x', '/etc') where id = '${paused.approvalId}'`,
        );
        await expect(approvePending(open(APPROVER), paused.approvalId, as(alice))).rejects.toThrow(
          /input does not match its digest: it was not written by a gate/,
        );
        const a2 = restarted(open(), snapshot);
        await expect(a2.invoke(answer(paused.id, paused.approvalId))).rejects.toBeInstanceOf(GateFailedError);
        expect(ran).toEqual([]);
      });
    });

    describe('when the paused process waits for the answer', () => {
      it('the paused process waits for the answer over LISTEN/NOTIFY, through a dropped connection, then resumes', async () => {
        const runtime = open();
        const { a, paused } = await pauseInA(runtime);
        const waiting = runtime.waitForAnswer(paused.approvalId, { timeoutMs: 20_000 });
        // The listening connection is killed; the answer arrives while it is down or just after.
        await new Promise((r) => setTimeout(r, 200));
        const killed = await asAdmin(
          cluster,
          "select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen gate_audit_answers%'",
        );
        expect(killed.rowCount).toBeGreaterThan(0);
        await approvePending(open(APPROVER), paused.approvalId, as(alice));
        await expect(waiting).resolves.toMatchObject({ approvalId: paused.approvalId, approverId: 'alice' });
        await a.invoke(answer(paused.id, paused.approvalId));
        expect(ran).toEqual(['rm({"path":"/tmp/x"})@a']);
        await expect(runtime.waitForAnswer(paused.approvalId, { timeoutMs: 10 })).resolves.toMatchObject({
          decision: 'approve',
        });
        const other = await pauseInA(runtime);
        await expect(runtime.waitForAnswer(other.paused.approvalId, { timeoutMs: 100 })).resolves.toBeUndefined();
        const controller = new AbortController();
        const aborted = runtime.waitForAnswer(other.paused.approvalId, { signal: controller.signal });
        setTimeout(() => controller.abort(new Error('the user stopped waiting')), 50);
        await expect(aborted).rejects.toThrow('the user stopped waiting');
        // Every wait closed its own connection.
        let listening = -1;
        for (let i = 0; i < 50 && listening !== 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          const { rows } = await asAdmin(
            cluster,
            "select count(*) as n from pg_stat_activity where query ilike 'listen%' and state = 'idle'",
          );
          listening = Number(rows[0]?.n);
        }
        expect(listening).toBe(0);
      }, 30_000);
    });
  });

  describe('when opened (the schema and the pool)', () => {
    describe('when the database lacks the schema, or has another version of it', () => {
      it('refuses with STORE_SCHEMA a database without the schema, with an older one and with a newer one, naming the fix', async () => {
        for (const db of ['bare', 'legacy', 'future']) await asAdmin(cluster, `create database ${db}`);
        const refusal = async (database: string): Promise<string> =>
          open('postgres', database)
            .checkSchema()
            .then(
              () => 'no refusal',
              (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
            );
        expect(await refusal('bare')).toMatch(
          /^STORE_SCHEMA: .*the store has no gate-audit schema .* \| run gate-audit store migrate/,
        );
        // A store of gate-audit 0.1 (tables made on first use, no version): a writer with two records and its head.
        const writer = 'host/1/2026-01-01T00:00:00.000Z/0011223344556677';
        const registration = canonicalJson({ writer, prev: null });
        const first = canonicalJson({ writer, seq: 0, prev: null, event: 'allow' });
        const second = canonicalJson({ writer, seq: 1, prev: sha256Hex(first), event: 'deny' });
        await asAdmin(
          cluster,
          `create table gate_audit_approvals (id text primary key, entry text not null, created_at timestamptz not null default now(),
         answered_at timestamptz, answer text, consumed_at timestamptz);
       create table gate_audit_writers (seq bigserial primary key, writer_id text not null unique, body text not null,
         prev text, hash text not null, last_seq bigint not null default -1, last_hash text);
       create table gate_audit_decisions (id bigserial primary key, writer_id text not null, seq bigint not null,
         body text not null, hash text not null, unique (writer_id, seq));
       insert into gate_audit_writers (writer_id, body, prev, hash, last_seq, last_hash)
         values ('${writer}', '${registration}', null, '${sha256Hex(registration)}', 1, '${sha256Hex(second)}');
       insert into gate_audit_decisions (writer_id, seq, body, hash) values
         ('${writer}', 0, '${first}', '${sha256Hex(first)}'), ('${writer}', 1, '${second}', '${sha256Hex(second)}');`,
          'legacy',
        );
        expect(await refusal('legacy')).toMatch(
          /^STORE_SCHEMA: .*schema=<0.1, unversioned> \| the schema is older than this gate-audit \(version 3\) \| run gate-audit store migrate/,
        );
        // The gate refuses the call and stops the run: nothing is written to a store it cannot read.
        const agent = scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] });
        const old = open('postgres', 'legacy');
        install(agent, { gate: policyGate(askPolicy, { approvals: { store: old, approvers } }) });
        await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
        expect(toolResults(agent)[0]).toMatch(
          /could not store the pending approval: store=<postgres>, schema=<0.1, unversioned>/,
        );
        const upgraded = await old.migrate();
        expect(upgraded).toMatchObject({ from: 0, to: 3 });
        expect(upgraded.applied).toHaveLength(3);
        await expect(old.checkSchema()).resolves.toBeUndefined();
        // The writer's head moved to the heads table: its chain still verifies, and a cut tail is still seen.
        expect(await verifyStoreLog(old)).toMatchObject({ ok: true, writers: [{ writer, records: 2 }] });
        await asAdmin(cluster, 'delete from gate_audit_decisions where seq = 1', 'legacy');
        expect((await verifyStoreLog(old)).writers[0]?.problem).toMatch(/says 2 record\(s\), 1 found/);
        // Migrated again: nothing to do.
        expect(await old.migrate()).toMatchObject({ from: 3, to: 3, applied: [] });
        await open('postgres', 'future').migrate();
        await asAdmin(
          cluster,
          "insert into gate_audit_schema_version (version, name) values (4, 'from the future')",
          'future',
        );
        expect(await refusal('future')).toMatch(
          /^STORE_SCHEMA: .*schema=<4> \| the schema is newer than this gate-audit knows \(version 3\) \| upgrade gate-audit/,
        );
        await expect(open('postgres', 'future').migrate()).rejects.toMatchObject({
          code: 'STORE_SCHEMA',
        });
      });
    });

    describe('when the pool is configured', () => {
      it('takes its pool size and timeouts as options, refuses bad ones, and works on your own pg.Pool (waiting too)', async () => {
        expect(() => postgresStore({ connectionString: cluster.url, poolSize: 0 })).toThrow(
          'option=<postgresStore.poolSize> | expected a positive whole number',
        );
        expect(() => postgresStore({ connectionString: cluster.url, queryTimeoutMs: 1.5 })).toThrow(/queryTimeoutMs/);
        expect(() => postgresStore({ connectionString: cluster.url, connectTimeoutMs: -1 })).toThrow(
          /connectTimeoutMs/,
        );
        const small = postgresStore({ connectionString: urlAs(cluster, RUNTIME), poolSize: 1, queryTimeoutMs: 200 });
        opened.push(small);
        const pool = small.pool as unknown as pg.Pool;
        expect(pool.options).toMatchObject({ max: 1, query_timeout: 200, connectionTimeoutMillis: 10_000 });
        await expect(small.pool.query('select pg_sleep(1)')).rejects.toThrow(/timeout/i);
        const own = new pg.Pool({ connectionString: urlAs(cluster, RUNTIME), max: 2 });
        try {
          const store = postgresStore({ pool: own });
          const { paused, snapshot } = await pauseInA(store);
          const waiting = store.waitForAnswer(paused.approvalId, { timeoutMs: 10_000 });
          await approvePending(open(APPROVER), paused.approvalId, as(alice));
          await expect(waiting).resolves.toMatchObject({ approverId: 'alice' });
          await restarted(store, snapshot).invoke(answer(paused.id, paused.approvalId));
          expect(ran).toHaveLength(1);
          await store.close();
          // Your pool stays open.
          await expect(own.query('select 1')).resolves.toBeDefined();
        } finally {
          await own.end();
        }
      });
    });
  });
});
