/**
 * The signed decision log of a fleet in PostgreSQL: writers as separate OS processes, each signing its
 * registration and checkpoints; table edits made as the admin; checked through `gate-audit verify-log
 * --store` and `store prune`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { generateApproverKey } from '../../src/policy/approval-keys.js';
import { type PostgresStore, postgresStore, verifyStoreLog } from '../../src/stores/postgres.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { createRoles, RUNTIME, urlAs } from './roles.js';

let cluster: TestCluster;
let admin: pg.Client;
let dir: string;
const opened: PostgresStore[] = [];
const key = generateApproverKey('fleet');
let keyFile: string;
let checker: PostgresStore;
const keyArg = `fleet=${key.publicKey}`;

beforeAll(async () => {
  cluster = startCluster();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  dir = mkdtempSync(join(tmpdir(), 'signed-log-'));
  keyFile = join(dir, 'writer.pem');
  writeFileSync(keyFile, key.privateKeyPem, { mode: 0o600 });
  await postgresStore({ connectionString: cluster.url }).migrate();
  await createRoles(cluster);
  checker = postgresStore({ connectionString: cluster.url });
  opened.push(checker);
});
afterAll(async () => {
  for (const store of opened) await store.close().catch(() => undefined);
  await admin?.end();
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function reset(): Promise<void> {
  await admin.query(
    'truncate gate_audit_decisions, gate_audit_writers, gate_audit_heads, gate_audit_prunes, gate_audit_consumptions, gate_audit_answers, gate_audit_pending',
  );
}

/** A signed writer connected as the gates' runtime role (SELECT and INSERT only). */
function open(every = 10): PostgresStore {
  const store = postgresStore({ connectionString: urlAs(cluster, RUNTIME), signing: { keyFile, every } });
  opened.push(store);
  return store;
}

const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: ['p'], input: { i } }) as const;

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { cwd: root },
  );
  return { code, out, err };
}

interface Writer {
  child: ChildProcess;
  id: Promise<string>;
  ready: Promise<void>;
  done: Promise<void>;
}

function writer(count: number): Writer {
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules/jiti/lib/jiti-cli.mjs'),
      join(root, 'test/stores/signed-writer.ts'),
      urlAs(cluster, RUNTIME),
      keyFile,
      String(count),
    ],
    { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  const seen = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = pattern.exec(out);
        if (found !== null) resolve(found);
      };
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        check();
      });
      child.on('exit', (code) => reject(new Error(`writer exited ${code} before ${pattern}: ${out}`)));
    });
  return {
    child,
    id: seen(/^writer (.+)$/m).then((m) => m[1]!),
    ready: seen(/^ready$/m).then(() => undefined),
    done: seen(/^done$/m).then(() => undefined),
  };
}

/** A writer process (as the runtime role) to be killed: `id` once it printed its writer id. */
function crashWriter(count: number): { child: ChildProcess; id: Promise<string>; exited: Promise<void> } {
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules/jiti/lib/jiti-cli.mjs'),
      join(root, 'test/stores/crash-writer.ts'),
      urlAs(cluster, RUNTIME),
      keyFile,
      String(count),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const id = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /^writer (.+)$/m.exec(out);
      if (found !== null) resolve(found[1]!);
    });
    child.on('exit', (code) => reject(new Error(`writer exited ${code}: ${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, id, exited };
}

/** Polls `check` every 20 ms until it holds (at most 20 s). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until no other session of the runtime role is connected (a killed writer's backends ended). */
async function settled(): Promise<void> {
  await until(async () => {
    const left = await admin.query<{ n: string }>('select count(*) as n from pg_stat_activity where usename = $1', [
      RUNTIME,
    ]);
    return Number(left.rows[0]!.n) === 0;
  });
}

describe('the signed fleet log in PostgreSQL', () => {
  describe('when a writer or a row is deleted or edited', () => {
    it('4 writer processes verify with their key; deleting the newest writer with all its records is a break', async () => {
      await reset();
      const writers = [writer(25), writer(25), writer(25), writer(25)];
      await Promise.all(writers.map((w) => w.ready));
      for (const w of writers) w.child.stdin!.end('close\n');
      await Promise.all(writers.map((w) => w.done));
      const ok = await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed');
      expect(ok.code, ok.out + ok.err).toBe(0);
      expect(ok.out).toMatch(/store OK, 4 writers, registry head [0-9a-f]{64}/);
      expect(ok.out.match(/: OK, 28 records intact, .*signed through seq 26 by key "fleet"/g)).toHaveLength(4);
      const newest = await admin.query<{ writer_id: string }>(
        'select writer_id from gate_audit_writers order by seq desc limit 1',
      );
      const gone = newest.rows[0]!.writer_id;
      for (const table of ['gate_audit_decisions', 'gate_audit_heads', 'gate_audit_writers']) {
        await admin.query(`delete from ${table} where writer_id = $1`, [gone]);
      }
      const broken = await run('verify-log', '--store', cluster.url, '--key', keyArg);
      expect(broken.code).toBe(1);
      expect(broken.out).toMatch(
        /break: writer=<[^>]+>, seq=<27>, row=<\d+> \| checkpoint 27 names writer registration seq \d+, which is missing or changed: a writer was deleted from the registry/,
      );
    }, 120_000);

    it('a table edit in the middle is a break naming the writer, seq and row id, even with every hash recomputed', async () => {
      await reset();
      const store = open();
      for (let i = 0; i < 30; i += 1) await store.append(record(i), 'g');
      await store.close();
      const target = await admin.query<{ id: string; body: string }>(
        'select id, body from gate_audit_decisions where writer_id = $1 and seq = 5',
        [store.writerId],
      );
      const { id } = target.rows[0]!;
      await admin.query('update gate_audit_decisions set body = replace(body, \'"ls"\', \'"rm"\') where id = $1', [id]);
      const plain = await run('verify-log', '--store', cluster.url);
      expect(plain.code).toBe(1);
      expect(plain.out).toContain(
        `break: writer=<${store.writerId}>, seq=<5>, row=<${id}> | record 5 was changed: its hash does not match its content`,
      );
      // Recompute every hash from seq 5 on (what an administrator without the key can do): only the key tells.
      const rows = await admin.query<{ id: string; seq: string; body: string }>(
        'select id, seq, body from gate_audit_decisions where writer_id = $1 and seq >= 4 order by seq',
        [store.writerId],
      );
      const { createHash } = await import('node:crypto');
      let prev: string | null = null;
      for (const row of rows.rows) {
        const parsed = JSON.parse(row.body) as Record<string, unknown>;
        if (prev !== null) parsed.prev = prev;
        const { canonicalJson } = await import('../../src/enforce/digest.js');
        const body = canonicalJson(parsed);
        prev = createHash('sha256').update(body).digest('hex');
        await admin.query('update gate_audit_decisions set body = $1, hash = $2 where id = $3', [body, prev, row.id]);
        await admin.query('update gate_audit_heads set hash = $1 where writer_id = $2 and seq = $3', [
          prev,
          store.writerId,
          row.seq,
        ]);
      }
      expect((await verifyStoreLog(checker)).ok).toBe(true);
      const signed = await run('verify-log', '--store', cluster.url, '--key', keyArg);
      expect(signed.code).toBe(1);
      expect(signed.out).toMatch(
        /seq=<10>, row=<\d+> \| checkpoint 10 does not verify: its signature is not by the key "fleet"/,
      );
    }, 60_000);
  });

  describe('when records follow the last checkpoint', () => {
    it('records after the last checkpoint are unsigned: exit 0 with a warning, exit 1 with --require-signed', async () => {
      await reset();
      const store = postgresStore({ connectionString: urlAs(cluster, RUNTIME), signing: { keyFile, every: 10 } });
      for (let i = 0; i < 13; i += 1) await store.append(record(i), 'g');
      const report = await verifyStoreLog(store, { keys: { fleet: key.publicKey } });
      expect(report).toMatchObject({ ok: true, signatures: 'checked', unsigned: 3 });
      expect(report.writers[0]).toMatchObject({ lastCheckpoint: 10, unsigned: 3, key: 'fleet' });
      const warned = await run('verify-log', '--store', cluster.url, '--key', keyArg);
      expect(warned.code).toBe(0);
      expect(warned.err).toMatch(/warning: .*3 records after the last signed checkpoint/);
      const strict = await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed');
      expect(strict.code).toBe(1);
      await store.close();
      expect((await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed')).code).toBe(0);
    });
  });

  describe('when the registry tail is cut', () => {
    it('a cut of the registry tail is caught only against --expect-registry-head', async () => {
      await reset();
      const first = open();
      await first.append(record(0), 'g');
      await first.close();
      const second = open();
      await second.append(record(0), 'g');
      await second.close();
      const before = await verifyStoreLog(checker, { keys: { fleet: key.publicKey } });
      expect(before.ok).toBe(true);
      const anchor = before.registryHead!.hash;
      for (const table of ['gate_audit_decisions', 'gate_audit_heads', 'gate_audit_writers']) {
        await admin.query(`delete from ${table} where writer_id = $1`, [second.writerId]);
      }
      expect((await run('verify-log', '--store', cluster.url, '--key', keyArg)).code).toBe(0);
      const anchored = await run(
        'verify-log',
        '--store',
        cluster.url,
        '--key',
        keyArg,
        '--expect-registry-head',
        anchor,
      );
      expect(anchored.code).toBe(1);
      expect(anchored.out).toMatch(
        /no writer registration has the expected registry head [0-9a-f]{64}: registrations were cut/,
      );
    });
  });

  describe('when the admin prunes it, or the runtime role tries to rewrite it', () => {
    it('store prune (admin) keeps a signed checkpoint per writer, verify still proves the rest; the runtime role may not prune', async () => {
      await reset();
      const store = open();
      for (let i = 0; i < 25; i += 1) await store.append(record(i), 'g');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cut = new Date();
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (let i = 25; i < 30; i += 1) await store.append(record(i), 'g');
      await store.close();
      // Approvals: old expired, old answered and unused, old used but not expired, old unanswered not expired.
      const now = Date.now();
      const old = new Date(cut.getTime() - 60_000).toISOString();
      const entry = (expiresAt: number) => JSON.stringify({ expiresAt });
      for (const [id, expiresAt] of [
        ['expired', now - 1000],
        ['answered', now + 600_000],
        ['used', now + 600_000],
        ['waiting', now + 600_000],
      ] as const) {
        await admin.query(
          "insert into gate_audit_pending (id, call_digest, tool_use_id, entry, created_at) values ($1, 'd', $1, $2, $3)",
          [id, entry(expiresAt), old],
        );
      }
      await admin.query("insert into gate_audit_answers (approval_id, body) values ('answered', '{}'), ('used', '{}')");
      await admin.query("insert into gate_audit_consumptions (approval_id, body) values ('used', '{}')");

      const refused = await run('store', 'prune', '--store', urlAs(cluster, RUNTIME), '--before', cut.toISOString());
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/permission denied/);

      const pruned = await run('store', 'prune', '--store', cluster.url, '--before', cut.toISOString());
      expect(pruned.code, pruned.err).toBe(0);
      expect(pruned.out).toMatch(/21 records of 1 writer .*, 2 approvals/);
      const left = await admin.query<{ id: string }>('select id from gate_audit_pending order by id');
      expect(left.rows.map((r) => r.id)).toEqual(['used', 'waiting']);
      const consumptions = await admin.query('select approval_id from gate_audit_consumptions');
      expect(consumptions.rows).toEqual([{ approval_id: 'used' }]);

      const verified = await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed');
      expect(verified.code, verified.out).toBe(0);
      expect(verified.out).toMatch(/: OK, 12 records intact, .*pruned before seq 21/);
      // Without a recorded prune the same cut is a break.
      await admin.query('truncate gate_audit_prunes');
      const unrecorded = await run('verify-log', '--store', cluster.url, '--key', keyArg);
      expect(unrecorded.code).toBe(1);
      expect(unrecorded.out).toMatch(/record 0 is missing \(the next is 21\)/);
    });

    it('the runtime role cannot UPDATE or DELETE a registration, a checkpoint or a head it wrote', async () => {
      await reset();
      const store = open();
      for (let i = 0; i < 12; i += 1) await store.append(record(i), 'g');
      await store.close();
      const runtime = new pg.Client({ connectionString: urlAs(cluster, RUNTIME) });
      await runtime.connect();
      try {
        const checkpoint = await runtime.query<{ id: string }>(
          'select id from gate_audit_decisions where writer_id = $1 and body like \'%"checkpoint":%\' order by seq limit 1',
          [store.writerId],
        );
        expect(checkpoint.rows).toHaveLength(1);
        const id = checkpoint.rows[0]!.id;
        const edits: [string, unknown[]][] = [
          ["update gate_audit_writers set body = body || ' ' where writer_id = $1", [store.writerId]],
          ['delete from gate_audit_writers where writer_id = $1', [store.writerId]],
          ["update gate_audit_decisions set body = body || ' ' where id = $1", [id]],
          ['delete from gate_audit_decisions where id = $1', [id]],
          ["update gate_audit_heads set hash = 'x' where writer_id = $1", [store.writerId]],
          ['delete from gate_audit_heads where writer_id = $1', [store.writerId]],
          ['truncate gate_audit_writers', []],
        ];
        for (const [sql, values] of edits) {
          await expect(runtime.query(sql, values), sql).rejects.toThrow(/permission denied/);
        }
      } finally {
        await runtime.end();
      }
      const verified = await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed');
      expect(verified.code, verified.out).toBe(0);
      expect(verified.out).toMatch(/: OK, 14 records intact, .*signed through seq 12 by key "fleet"/);
    });
  });

  describe('when a writer process is killed', () => {
    it('a writer process killed (SIGKILL) mid-run leaves an unsigned tail, not a break', async () => {
      await reset();
      const child = crashWriter(1_000_000);
      const id = await child.id;
      await until(
        async () =>
          Number((await admin.query<{ n: string }>('select count(*) as n from gate_audit_decisions')).rows[0]!.n) >=
          200,
      );
      child.child.kill('SIGKILL');
      await child.exited;
      await settled();
      const report = await verifyStoreLog(checker, { keys: { fleet: key.publicKey } });
      expect(report.ok, JSON.stringify(report.breaks)).toBe(true);
      expect(report.writers).toHaveLength(1);
      expect(report.writers[0]!.writer).toBe(id);
      const warned = await run('verify-log', '--store', cluster.url, '--key', keyArg);
      expect(warned.code, warned.out + warned.err).toBe(0);
      expect(warned.out).not.toMatch(/break:/);
      if (report.unsigned > 0) {
        expect(warned.err).toMatch(/warning: .* after the last signed checkpoint/);
        expect((await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed')).code).toBe(1);
      }
    }, 60_000);

    it('a writer process killed before its first commit leaves no registration without records: verify passes', async () => {
      await reset();
      // Hold the decisions table so the writer's first insert waits, then kill the writer while it waits; the
      // server notices the dead client (client_connection_check_interval) and ends the insert it ran.
      await admin.query(`alter role ${RUNTIME} set client_connection_check_interval = 50`);
      const blocker = new pg.Client({ connectionString: cluster.url });
      await blocker.connect();
      try {
        await blocker.query('begin');
        await blocker.query('lock table gate_audit_decisions in exclusive mode');
        const child = crashWriter(5);
        await child.id;
        await until(async () => {
          const waiting = await admin.query<{ n: string }>(
            "select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%gate_audit_decisions%'",
          );
          return Number(waiting.rows[0]!.n) > 0;
        });
        child.child.kill('SIGKILL');
        await child.exited;
        await settled();
      } finally {
        await admin.query(`alter role ${RUNTIME} reset client_connection_check_interval`);
        await blocker.query('commit');
        await blocker.end();
      }
      await settled();
      const records = await admin.query<{ n: string }>('select count(*) as n from gate_audit_decisions');
      expect(Number(records.rows[0]!.n)).toBe(0);
      const report = await verifyStoreLog(checker, { keys: { fleet: key.publicKey } });
      expect(report.breaks).toEqual([]);
      expect(report).toMatchObject({ ok: true, writers: [] });
      const verified = await run('verify-log', '--store', cluster.url, '--key', keyArg, '--require-signed');
      expect(verified.code, verified.out + verified.err).toBe(0);
    }, 60_000);
  });

  describe('when prune or migrate is given a time that is not one', () => {
    it('prune and migrate refuse a time that is not one (exit 2)', async () => {
      expect((await run('store', 'prune', '--store', cluster.url, '--before', 'yesterday')).code).toBe(2);
      expect((await run('store', 'prune', '--store', cluster.url)).code).toBe(2);
    });
  });
});
