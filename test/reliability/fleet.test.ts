/**
 * The fleet under load, bounded in time: worker processes appending to one PostgreSQL sink, one of them
 * killed, approvals raced, and the server stopped mid-run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePending, denyPending, GateFailedError } from '../../src/index.js';
import { type PostgresStore, postgresStore, verifyStoreLog } from '../../src/stores/postgres.js';
import { alice, answer, as, bob, pauseInA, restarted } from '../helpers/approvals.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { isolateEachTest, ran } from '../helpers/sdk.js';

let cluster: TestCluster;
const opened: PostgresStore[] = [];
function open(): PostgresStore {
  const store = postgresStore({ connectionString: cluster.url });
  opened.push(store);
  return store;
}
beforeAll(async () => {
  cluster = startCluster();
  await open().migrate();
});
afterAll(async () => {
  for (const store of opened) await store.close().catch(() => undefined);
  cluster?.destroy();
});
isolateEachTest();

async function reset(): Promise<void> {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('truncate gate_audit_decisions, gate_audit_writers, gate_audit_heads');
  await admin.end();
}

interface Worker {
  child: ChildProcess;
  writer: Promise<string>;
  acked: () => number;
  exited: Promise<number | null>;
}

function worker(count: number): Worker {
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules/jiti/lib/jiti-cli.mjs'),
      join(root, 'test/reliability/fleet-worker.ts'),
      cluster.url,
      String(count),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let acked = 0;
  let buffer = '';
  let stderr = '';
  let resolveWriter: (id: string) => void = () => undefined;
  const writer = new Promise<string>((resolve) => {
    resolveWriter = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('writer ')) resolveWriter(line.slice('writer '.length));
      if (line.startsWith('ack ')) acked = Number(line.slice(4)) + 1;
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) console.log(stderr);
      resolve(code);
    }),
  );
  return { child, writer, acked: () => acked, exited };
}

describe('the fleet decision log under load', () => {
  describe('when 8 worker processes append at once', () => {
    it('8 worker processes × 500 decisions: none lost, every chain verifies', async () => {
      await reset();
      const workers = Array.from({ length: 8 }, () => worker(500));
      const codes = await Promise.all(workers.map((w) => w.exited));
      expect(codes).toEqual(Array(8).fill(0));
      const ids = await Promise.all(workers.map((w) => w.writer));
      const report = await verifyStoreLog(open());
      expect(report.problems).toEqual([]);
      expect(report.writers.map((w) => w.problem)).toEqual(Array(8).fill(undefined));
      expect(new Set(report.writers.map((w) => w.writer))).toEqual(new Set(ids));
      expect(report.writers.map((w) => w.records)).toEqual(Array(8).fill(500));
      expect(report.ok).toBe(true);
    }, 120_000);
  });
  describe('when a worker is killed mid-run', () => {
    it('a worker killed with SIGKILL mid-run: every record it acknowledged is there, its chain verifies', async () => {
      await reset();
      const steady = worker(200);
      const victim = worker(100_000);
      const id = await victim.writer;
      while (victim.acked() < 50) await new Promise((r) => setTimeout(r, 20));
      victim.child.kill('SIGKILL');
      await victim.exited;
      const acked = victim.acked();
      expect(await steady.exited).toBe(0);
      const report = await verifyStoreLog(open());
      const killed = report.writers.find((w) => w.writer === id);
      expect(killed?.problem).toBeUndefined();
      expect(killed!.records).toBeGreaterThanOrEqual(acked);
      expect(report.ok).toBe(true);
    }, 120_000);
  });
  describe('when the server stops mid-run', () => {
    it('the server stopped mid-run: appends are refused, none silently dropped, and the sink works again after', async () => {
      await reset();
      const store = open();
      let acked = 0;
      let refused = 0;
      const appendOne = async (i: number): Promise<void> => {
        try {
          await store.append(
            { event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: [] },
            'fleet',
          );
          acked += 1;
        } catch {
          refused += 1;
        }
      };
      for (let i = 0; i < 50; i += 1) await appendOne(i);
      cluster.stop();
      try {
        for (let i = 50; i < 60; i += 1) await appendOne(i);
      } finally {
        cluster.start();
      }
      for (let i = 60; i < 110; i += 1) await appendOne(i);
      expect(refused).toBe(10);
      expect(acked).toBe(100);
      const report = await verifyStoreLog(store);
      expect(report.ok).toBe(true);
      // Every acknowledged record is there; a refused one may be there only if it committed before the
      // connection broke, never the other way round.
      expect(report.writers[0]!.records).toBeGreaterThanOrEqual(acked);
      expect(report.writers[0]!.records).toBeLessThanOrEqual(acked + refused);
    }, 60_000);
  });
});

describe('approvals raced across processes', () => {
  describe('when two approvers and two resumers race', () => {
    it('two approvers and two resumers: exactly one answer is stored and exactly one consume runs the call', async () => {
      const gateSide = open();
      const { paused, snapshot } = await pauseInA(gateSide);
      const [approver1, approver2] = [open(), open()];
      const answers = await Promise.allSettled([
        approvePending(approver1, paused.approvalId, as(alice)),
        denyPending(approver2, paused.approvalId, as(bob)),
      ]);
      expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      const approved = answers[0].status === 'fulfilled';
      const [resumer1, resumer2] = [restarted(open(), snapshot), restarted(open(), snapshot)];
      const resumed = await Promise.allSettled([
        resumer1.invoke(answer(paused.id, paused.approvalId)),
        resumer2.invoke(answer(paused.id, paused.approvalId)),
      ]);
      // The loser's consume finds the approval used: refused, and its run stops.
      const stopped = resumed.filter((r) => r.status === 'rejected');
      expect(stopped).toHaveLength(1);
      expect((stopped[0] as PromiseRejectedResult).reason).toBeInstanceOf(GateFailedError);
      expect(ran).toEqual(approved ? ['rm({"path":"/tmp/x"})@a'] : []);
    });
  });
});
