/**
 * `fleet-log-throughput` and `fleet-log-vs-file`: the PostgreSQL decision sink with group commit, both with
 * the same signing setting (a checkpoint every 100 records), on a throwaway local cluster (unix socket,
 * fsync off: gate-audit and the round trips, not the disk).
 *
 * - `fleet-log-throughput`: 8 writer processes, each with 16 calls in flight, records committed per second
 *   all together (report only).
 * - `fleet-log-vs-file`: one process running 16 gated agents at once (a real `Agent`, a scripted model, a
 *   `policyGate` whose log is the sink, each tool call waiting for its record before it runs), µs of wall
 *   time per gated call with the PostgreSQL sink against the signed file log (target: ratio ≤ 1.25, i.e.
 *   ≥ 0.8× the file log's gated calls/s).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { type DecisionSink, install, openDecisionLog, policyGate } from '../dist/index.js';
import { generateApproverKey } from '../dist/policy/approval-keys.js';
import { type PostgresStore, postgresStore } from '../dist/stores/postgres.js';
import { call, ScriptedModel, say } from '../fixtures/support/scripted-model.js';
import { startCluster, type TestCluster } from '../test/helpers/postgres.js';
import { alternate, type Row, row } from './stats.js';

const WRITER = `
import { postgresStore } from './dist/stores/postgres.js';
const [url, keyFile, count] = process.argv.slice(1);
const store = postgresStore({ connectionString: url, signing: { keyFile, every: 100 } });
const record = (i) => ({ event: 'allow', verdict: 'allow', toolName: 'noop', toolUseId: 'u' + i, path: ['bench'], input: { i } });
await store.append(record(-1), 'bench');
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
let next = 0;
const started = performance.now();
await Promise.all(Array.from({ length: 16 }, async () => { while (next < Number(count)) await store.append(record(next++), 'bench'); }));
process.stdout.write(String(performance.now() - started) + '\\n');
await store.close();
`;

const POLICY = { version: 1 as const, rules: [{ id: 'noop-ok', tools: ['noop'], verdict: 'allow' as const }] };

/** A throwaway cluster, a signing key in a temporary folder, and their removal. */
interface Bench {
  readonly cluster: TestCluster;
  readonly dir: string;
  readonly keyFile: string;
  done(): void;
}

function benchSetup(): Bench {
  const cluster = startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'fleet-log-bench-'));
  const keyFile = join(dir, 'writer.pem');
  writeFileSync(keyFile, generateApproverKey('bench').privateKeyPem, { mode: 0o600 });
  return {
    cluster,
    dir,
    keyFile,
    done: () => {
      cluster.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Migrates the store's schema (as the admin), closing the admin's pool. */
async function migrated(url: string): Promise<void> {
  const admin = postgresStore({ connectionString: url });
  try {
    await admin.migrate();
  } finally {
    await admin.close();
  }
}

/**
 * Runs `agents` gated agents at once, each making `calls` tool calls (one per turn) through a `policyGate`
 * logging to `sink`; resolves with the wall-clock µs per gated call. Building and gating the agents is
 * outside the timing; every call must have run (the sink refusing one stops its agent's run).
 */
async function gatedCalls(sink: DecisionSink, agents: number, calls: number): Promise<number> {
  let ran = 0;
  const counted = tool({
    name: 'noop',
    description: 'does nothing',
    inputSchema: z.object({ i: z.number() }),
    callback: () => {
      ran += 1;
      return 'ok';
    },
  });
  const built = Array.from({ length: agents }, (_, a) => {
    const turns = [...Array.from({ length: calls }, (_, i) => call('noop', { i })), say('done')];
    const agent = new Agent({ id: `bench-${a}`, model: new ScriptedModel(turns), tools: [counted], printer: false });
    install(agent, { gate: policyGate(POLICY, { log: sink }) });
    return agent;
  });
  const started = performance.now();
  await Promise.all(built.map((agent) => agent.invoke('go')));
  const elapsed = performance.now() - started;
  if (ran !== agents * calls) throw new Error(`expected ${agents * calls} gated calls to run, ${ran} did`);
  return (elapsed * 1000) / (agents * calls);
}

/**
 * `fleet-log-vs-file`: gated calls of 16 agents at once, PostgreSQL sink vs the signed file log.
 *
 * @param pairs - measured pairs
 */
export async function fleetLogVsFile(pairs: number): Promise<Row> {
  const bench = benchSetup();
  const signing = { keyFile: bench.keyFile, every: 100 };
  let store: PostgresStore | undefined;
  try {
    await migrated(bench.cluster.url);
    const sink = postgresStore({ connectionString: bench.cluster.url, signing });
    store = sink;
    const agents = 16;
    const calls = 50;
    let files = 0;
    const viaStore = (): Promise<number> => gatedCalls(sink, agents, calls);
    const viaFile = async (): Promise<number> => {
      const log = openDecisionLog({ destination: join(bench.dir, `log-${files++}.jsonl`), signing });
      try {
        return await gatedCalls(log, agents, calls);
      } finally {
        log.close();
      }
    };
    // Check that the sink wrote what the calls asked for: one record per gated call.
    const samples = await alternate(pairs, 2, viaStore, viaFile);
    const written = await sink.pool.query('select count(*) as n from gate_audit_decisions where body not like $1', [
      '%"checkpoint":%',
    ]);
    const expected = (pairs + 2) * agents * calls;
    if (Number(written.rows[0]?.n) !== expected) {
      throw new Error(`expected ${expected} records in the store, found ${String(written.rows[0]?.n)}`);
    }
    return row(
      'fleet-log-vs-file',
      'µs/call',
      samples,
      `one process, ${agents} gated agents at once (real Agent, scripted model, policyGate), ${calls} tool calls each, every call waiting for its record before it runs: PostgreSQL sink (group commit) vs the file log, both signed every 100; wall time per call`,
      { max: 1.25, text: "ratio ≤ 1.25 (≥ 0.8× the file log's gated calls/s)" },
    );
  } finally {
    await store?.close().catch(() => undefined);
    bench.done();
  }
}

/**
 * `fleet-log-throughput`: 8 signed writer processes at once, records committed per second (report only).
 *
 * @param root - the project root (where dist/ is)
 */
export async function fleetLogThroughput(root: string): Promise<Row> {
  const bench = benchSetup();
  const { cluster, keyFile } = bench;
  try {
    await migrated(cluster.url);
    const perWriter = 5000;
    const children = Array.from({ length: 8 }, () =>
      spawn(process.execPath, ['--input-type=module', '-e', WRITER, cluster.url, keyFile, String(perWriter)], {
        cwd: root,
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const lines = children.map(
      (child) =>
        new Promise<string[]>((resolve) => {
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
          });
          child.on('exit', () => resolve(out.trim().split('\n')));
        }),
    );
    await Promise.all(
      children.map((child) => new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))),
    );
    const started = performance.now();
    for (const child of children) child.stdin.end('go\n');
    await Promise.all(lines);
    const seconds = (performance.now() - started) / 1000;
    const perSecond = Math.round((8 * perWriter) / seconds);
    const throughput: Row = {
      name: 'fleet-log-throughput',
      value: perSecond,
      unit: 'records/s',
      baseline: Number.NaN,
      ratio: Number.NaN,
      spread: [perSecond, perSecond],
      pairs: 1,
      note: `8 writer processes × ${perWriter} records, 16 calls in flight each, signed every 100, committed per second all together (report only)`,
    };
    return throughput;
  } finally {
    bench.done();
  }
}
