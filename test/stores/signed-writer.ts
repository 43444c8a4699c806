/**
 * One signed writer of the fleet log, run as its own process: appends `count` records to the PostgreSQL
 * sink, prints `writer <id>` after its first record committed and `ready` after the last, then waits for a
 * line on stdin before it closes (writing its closing checkpoint) and prints `done`.
 * Usage: jiti signed-writer.ts <connection string> <key file> <count>
 */
import { createInterface } from 'node:readline';
import { postgresStore } from '../../src/stores/postgres.js';

const [url, keyFile, countText] = process.argv.slice(2);
const store = postgresStore({ connectionString: url!, signing: { keyFile: keyFile!, every: 10 } });
const count = Number(countText);
const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: ['fleet'], input: { i } }) as const;
await store.append(record(0), 'fleet');
process.stdout.write(`writer ${store.writerId}\n`);
for (let i = 1; i < count; i += 1) await store.append(record(i), 'fleet');
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => {
  lines.once('line', () => resolve());
  lines.once('close', () => resolve());
});
lines.close();
await store.close();
process.stdout.write('done\n');
