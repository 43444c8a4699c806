/**
 * `fleet-log-throughput` and `fleet-log-vs-file`: the PostgreSQL decision sink with group commit, both with
 * the same signing setting (a checkpoint every 100 records), on a throwaway local cluster (unix socket,
 * fsync off: gate-audit and the round trips, not the disk).
 *
 * - `fleet-log-throughput`: 8 writer processes, each with 16 calls in flight, records committed per second
 *   all together (report only).
 * - `fleet-log-vs-file`: one process, 16 calls in flight, µs per call until its record is durable, with the
 *   PostgreSQL sink against the signed file log (target: ratio ≤ 1.25, i.e. ≥ 0.8× the file log's calls/s).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDecisionLog } from '../dist/index.js';
import { generateApproverKey } from '../dist/policy/approval-keys.js';
import { postgresStore } from '../dist/stores/postgres.js';
import { startCluster } from '../test/helpers/postgres.js';
import { alternate, type Row, row } from './stats.js';

const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'noop', toolUseId: `u${i}`, path: ['bench'], input: { i } }) as const;

/** Runs `count` appends with `inFlight` of them waiting at once; resolves with the elapsed ms. */
async function drive(append: (i: number) => unknown, count: number, inFlight: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await append(next++);
    }),
  );
  return performance.now() - started;
}

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

/**
 * Runs the two rows.
 *
 * @param root - the project root (where dist/ is)
 * @param pairs - measured pairs of `fleet-log-vs-file`
 */
export async function fleetLogRows(root: string, pairs: number): Promise<Row[]> {
  const cluster = startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'fleet-log-bench-'));
  const key = generateApproverKey('bench');
  const keyFile = join(dir, 'writer.pem');
  writeFileSync(keyFile, key.privateKeyPem, { mode: 0o600 });
  const store = postgresStore({ connectionString: cluster.url, signing: { keyFile, every: 100 } });
  try {
    await store.migrate();
    const calls = 2000;
    let files = 0;
    const viaStore = async (): Promise<number> =>
      ((await drive((i) => store.append(record(i), 'bench'), calls, 16)) * 1000) / calls;
    const viaFile = async (): Promise<number> => {
      const log = openDecisionLog({ destination: join(dir, `log-${files++}.jsonl`), signing: { keyFile, every: 100 } });
      const ms = await drive((i) => log.append(record(i), 'bench'), calls, 16);
      log.close();
      return (ms * 1000) / calls;
    };
    const samples = await alternate(pairs, 2, viaStore, viaFile);
    const vsFile = row(
      'fleet-log-vs-file',
      'µs/call',
      samples,
      "one process, 16 calls in flight, each waiting until its record is durable: PostgreSQL sink (group commit, signed every 100) vs the signed file log; ratio ≤ 1.25 is ≥ 0.8× the file log's calls/s",
      { max: 1.25, text: "ratio ≤ 1.25 (≥ 0.8× the file log's calls/s)" },
    );

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
    return [throughput, vsFile];
  } finally {
    await store.close().catch(() => undefined);
    cluster.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
