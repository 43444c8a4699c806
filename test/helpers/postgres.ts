/**
 * A throwaway PostgreSQL 15 cluster for the tests that need one (no Docker, no TCP port): a temp folder
 * owned by `postgres`, `initdb --no-sync`, `pg_ctl -w start` with a unix socket in that folder, and
 * `pg_ctl -m fast stop` at the end. `initdb` and `pg_ctl` refuse to run as root, so as root (CI) they run
 * through `runuser -u postgres --`. The binaries are called by path; `.ci/run` installs them when missing.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's PostgreSQL 15 puts its server binaries. */
export const PG_BIN = process.env.GATE_AUDIT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A running throwaway cluster. */
export interface TestCluster {
  /** The folder holding the data and the socket. */
  readonly dir: string;
  /** A connection string through the unix socket (database `postgres`, user `postgres`, no password). */
  readonly url: string;
  /** Stops the server (fast), keeping the data, e.g. to test a server that goes away mid-run. */
  stop(): void;
  /** Starts it again after `stop()`. */
  start(): void;
  /** Stops the server and removes the folder. */
  destroy(): void;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(binary: string, args: string[]): void {
  const file = join(PG_BIN, binary);
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Starts a fresh cluster (about a second). Throws with the fix when the binaries are missing.
 */
export function startCluster(): TestCluster {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(
      `path=<${PG_BIN}> | PostgreSQL 15 server binaries are missing | apt-get install -y postgresql-15 (.ci/run does it)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'gate-audit-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const start = (): void =>
    run('pg_ctl', [
      '-D',
      data,
      '-w',
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-c listen_addresses='' -k ${dir} -c fsync=off -c max_connections=60`,
      'start',
    ]);
  const stop = (): void => run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
  start();
  let running = true;
  return {
    dir,
    url: `postgresql://postgres@/postgres?host=${encodeURIComponent(dir)}`,
    stop: () => {
      if (running) stop();
      running = false;
    },
    start: () => {
      if (!running) start();
      running = true;
    },
    destroy: () => {
      try {
        if (running) stop();
      } finally {
        running = false;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
