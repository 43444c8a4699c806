/**
 * A signed writer of the fleet log run as its own process, to be killed with SIGKILL mid-run: prints
 * `writer <id>` before its first append, then appends records with 16 calls in flight until killed (or
 * until `count` records, then closes and prints `done`).
 * Usage: jiti crash-writer.ts <connection string> <key file> <count>
 */
import { postgresStore } from '../../src/stores/postgres.js';

const [url, keyFile, countText] = process.argv.slice(2);
const store = postgresStore({ connectionString: url!, signing: { keyFile: keyFile!, every: 10 } });
const count = Number(countText);
const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: ['fleet'], input: { i } }) as const;
process.stdout.write(`writer ${store.writerId}\n`);
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < count) await store.append(record(next++), 'fleet');
  }),
);
await store.close();
process.stdout.write('done\n');
