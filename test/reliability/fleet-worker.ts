/**
 * One worker of the fleet test, run as its own process: appends `count` gate records to the PostgreSQL
 * sink one after another and prints `ack <n>` after each one PostgreSQL committed.
 * Usage: jiti fleet-worker.ts <connection string> <count>
 */
import { postgresStore } from '../../src/stores/postgres.js';

const [url, countText] = process.argv.slice(2);
const store = postgresStore({ connectionString: url! });
process.stdout.write(`writer ${store.writerId}\n`);
const count = Number(countText);
for (let i = 0; i < count; i += 1) {
  await store.append(
    {
      event: i % 3 === 0 ? 'deny' : 'allow',
      verdict: i % 3 === 0 ? 'deny' : 'allow',
      ...(i % 3 === 0 ? { reason: 'no' } : {}),
      toolName: 'ls',
      toolUseId: `t${i}`,
      agentId: `worker-${process.pid}`,
      path: ['fleet', String(process.pid)],
      input: { i },
    },
    'fleet',
  );
  process.stdout.write(`ack ${i}\n`);
}
await store.close();
process.stdout.write('done\n');
