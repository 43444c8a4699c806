/**
 * The roles a team runs the store with, made in a throwaway cluster: `ga_runtime` (gates), `ga_approver`
 * (approvers), each granted exactly what `gate-audit store grants` prints, after the schema is migrated by
 * the admin (`postgres`). `privilegesOf` reads back what a role may do on the store's tables, so a test can
 * pin the privileges themselves, not only what the code happens to use.
 */
import pg from 'pg';
import { grantStatements } from '../../src/stores/postgres.js';
import type { TestCluster } from '../helpers/postgres.js';

/** The gates' role and the approvers' role. */
export const RUNTIME = 'ga_runtime';
export const APPROVER = 'ga_approver';

/**
 * A connection string to the cluster as a role (unix socket, trust authentication: no password).
 *
 * @param cluster - the cluster
 * @param role - the role
 * @param database - the database (default `postgres`)
 */
export function urlAs(cluster: TestCluster, role: string, database = 'postgres'): string {
  return cluster.url.replace('postgresql://postgres@/postgres', `postgresql://${role}@/${database}`);
}

/**
 * Runs SQL as the admin.
 *
 * @param cluster - the cluster
 * @param sql - the statements
 * @param database - the database
 */
export async function asAdmin(
  cluster: TestCluster,
  sql: string,
  database = 'postgres',
): Promise<pg.QueryResult<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: urlAs(cluster, 'postgres', database) });
  await client.connect();
  try {
    return await client.query<Record<string, unknown>>(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates the two login roles (once per cluster) and grants them what `grantStatements` gives, on a
 * migrated database.
 *
 * @param cluster - the cluster
 * @param database - a database `store migrate` ran on
 */
export async function createRoles(cluster: TestCluster, database = 'postgres'): Promise<void> {
  const existing = await asAdmin(
    cluster,
    `select rolname from pg_roles where rolname in ('${RUNTIME}', '${APPROVER}')`,
  );
  if (existing.rowCount === 0) await asAdmin(cluster, `create role ${RUNTIME} login; create role ${APPROVER} login;`);
  await asAdmin(cluster, grantStatements({ runtime: RUNTIME, approver: APPROVER }).join('\n'), database);
}

/**
 * What a role may do on the store's tables and schema, as `table:PRIVILEGE` lines, sorted.
 *
 * @param cluster - the cluster
 * @param role - the role
 * @param database - the database
 */
export async function privilegesOf(cluster: TestCluster, role: string, database = 'postgres'): Promise<string[]> {
  const { rows } = await asAdmin(
    cluster,
    `select c.relname as name, p.privilege
       from pg_class c
       cross join (values ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'), ('REFERENCES'), ('TRIGGER')) as p (privilege)
       where c.relnamespace = 'public'::regnamespace and c.relname like 'gate_audit_%' and c.relkind = 'r'
         and case when c.relkind = 'r' then has_table_privilege('${role}', c.oid, p.privilege) else false end
     union all
     select c.relname, 'USAGE' from pg_class c
       where c.relnamespace = 'public'::regnamespace and c.relname like 'gate_audit_%' and c.relkind = 'S'
         and case when c.relkind = 'S' then has_sequence_privilege('${role}', c.oid, 'USAGE') else false end
     union all
     select 'schema public', 'CREATE' where has_schema_privilege('${role}', 'public', 'CREATE')
     order by 1, 2`,
    database,
  );
  return rows.map((row) => `${String(row.name)}:${String(row.privilege)}`);
}
