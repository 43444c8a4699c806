/**
 * The fleet log at size and under load: a 300k-record writer verified under a 64 MB heap in a child
 * process (records made with a bulk insert, not through the gate), and concurrent calls of one process
 * committed in groups.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/enforce/digest.js';
import { type PgPoolLike, postgresStore } from '../../src/stores/postgres.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';

let cluster: TestCluster;
let admin: pg.Client;
beforeAll(async () => {
  cluster = startCluster();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await postgresStore({ connectionString: cluster.url }).migrate();
});
afterAll(async () => {
  await admin?.end();
  cluster?.destroy();
});

const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: ['p'], input: { i } }) as const;

describe('gate-audit verify-log --store (the fleet log)', () => {
  describe('when a writer has 300k records (at size)', () => {
    it('verifies a 300k-record writer under --max-old-space-size=64, and finds a break deep in it', async () => {
      const store = postgresStore({ connectionString: cluster.url });
      await store.append(record(0), 'g');
      await store.close();
      const last = await admin.query<{ hash: string }>('select hash from gate_audit_decisions where writer_id = $1', [
        store.writerId,
      ]);
      let prev = last.rows[0]!.hash;
      const total = 300_000;
      const batch = 20_000;
      for (let start = 1; start < total; start += batch) {
        const seqs: number[] = [];
        const bodies: string[] = [];
        const hashes: string[] = [];
        for (let seq = start; seq < Math.min(total, start + batch); seq += 1) {
          const body = canonicalJson({
            writer: store.writerId,
            seq,
            prev,
            time: '2026-01-01T00:00:00.000Z',
            gate: 'g',
            event: 'allow',
            verdict: 'allow',
            toolName: 'ls',
            toolUseId: `t${seq}`,
            path: 'p',
          });
          prev = sha256Hex(body);
          seqs.push(seq);
          bodies.push(body);
          hashes.push(prev);
        }
        await admin.query(
          `with d as (insert into gate_audit_decisions (writer_id, seq, body, hash)
           select $1, s, b, h from unnest($2::bigint[], $3::text[], $4::text[]) as t (s, b, h) returning 1)
         insert into gate_audit_heads (writer_id, seq, hash) select $1, s, h from unnest($2::bigint[], $4::text[]) as t (s, h)`,
          [store.writerId, seqs, bodies, hashes],
        );
      }
      const child = (): { status: number | null; stdout: string; stderr: string } =>
        spawnSync(
          process.execPath,
          [
            '--max-old-space-size=64',
            join(root, 'node_modules/jiti/lib/jiti-cli.mjs'),
            join(root, 'test/stores/verify-child.ts'),
            'verify-log',
            '--store',
            cluster.url,
          ],
          { cwd: root, encoding: 'utf8', timeout: 240_000 },
        );
      const ok = child();
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`${store.writerId}: OK, 300000 records intact`);
      await admin.query(
        'update gate_audit_decisions set body = replace(body, \'"ls"\', \'"rm"\') where writer_id = $1 and seq = 250000',
        [store.writerId],
      );
      const broken = child();
      expect(broken.status, broken.stderr).toBe(1);
      expect(broken.stdout).toMatch(/seq=<250000>, row=<\d+> \| record 250000 was changed/);
    }, 300_000);
  });
});

describe('the PostgreSQL sink', () => {
  describe('when calls wait together (concurrent calls)', () => {
    it('commits calls waiting together in one statement, each resolving once its record committed', async () => {
      const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
      let inserts = 0;
      const counting: PgPoolLike = {
        query: (text: string, values?: unknown[]) => {
          if (text.includes('insert into gate_audit_decisions')) inserts += 1;
          return pool.query(text, values);
        },
        connect: () => pool.connect(),
        end: () => pool.end(),
      };
      const store = postgresStore({ pool: counting });
      await store.append(record(0), 'g');
      inserts = 0;
      const committed: number[] = [];
      await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          await store.append(record(i + 1), 'g');
          const { rows } = await admin.query('select 1 from gate_audit_decisions where writer_id = $1 and seq = $2', [
            store.writerId,
            i + 1,
          ]);
          committed.push(rows.length);
        }),
      );
      expect(committed).toEqual(Array.from({ length: 50 }, () => 1));
      expect(inserts).toBeLessThanOrEqual(2);
      await store.close();
      await pool.end();
    });
  });
});
