/** The throwaway PostgreSQL cluster the store tests start (`test/helpers/postgres.ts`): it answers, stops and starts. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from './postgres.js';

let cluster: TestCluster;
beforeAll(() => {
  cluster = startCluster();
});
afterAll(() => cluster?.destroy());

describe('the throwaway PostgreSQL cluster of the tests', () => {
  describe('when it is queried, stopped and started', () => {
    it('answers through its unix socket, stops and starts again', async () => {
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const { rows } = await client.query<{ v: string }>("select current_setting('server_version') as v");
      expect(rows[0]?.v).toMatch(/^15\./);
      await client.end();
      cluster.stop();
      const down = new pg.Client({ connectionString: cluster.url });
      await expect(down.connect()).rejects.toThrow();
      cluster.start();
      const again = new pg.Client({ connectionString: cluster.url });
      await again.connect();
      await again.end();
    });
  });
});
