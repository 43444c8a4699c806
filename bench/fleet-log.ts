/**
 * `fleet-log-append`: median µs per record a PostgreSQL decision sink acknowledges, 4 writers appending at
 * once vs one alone, on a throwaway local cluster (unix socket, fsync off: it measures gate-audit and the
 * round trip, not the disk). Each writer has its own chain, so 4 writers should not serialise on one row.
 */
import { postgresStore } from '../dist/stores/postgres.js';
import { startCluster } from '../test/helpers/postgres.js';
import { alternate, type Row, row } from './stats.js';

const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'noop', toolUseId: `u${i}`, path: ['bench'], input: { i } }) as const;

/**
 * Runs the row.
 *
 * @param pairs - how many measured pairs
 */
export async function fleetLogAppend(pairs: number): Promise<Row> {
  const cluster = startCluster();
  const stores = Array.from({ length: 5 }, () => postgresStore({ connectionString: cluster.url }));
  try {
    await stores[0]!.migrate();
    const perRecord = 200;
    const appendMany = async (store: (typeof stores)[number]): Promise<void> => {
      for (let i = 0; i < perRecord; i++) await store.append(record(i), 'bench');
    };
    const one = async (): Promise<number> => {
      const started = performance.now();
      await appendMany(stores[4]!);
      return ((performance.now() - started) * 1000) / perRecord;
    };
    const four = async (): Promise<number> => {
      const started = performance.now();
      await Promise.all(stores.slice(0, 4).map(appendMany));
      return ((performance.now() - started) * 1000) / perRecord;
    };
    const samples = await alternate(pairs, 2, four, one);
    return row(
      'fleet-log-append',
      'µs/record',
      samples,
      'PostgreSQL sink, per record per writer until committed: 4 writers at once vs 1 writer alone (no target)',
    );
  } finally {
    for (const store of stores) await store.close().catch(() => undefined);
    cluster.destroy();
  }
}
