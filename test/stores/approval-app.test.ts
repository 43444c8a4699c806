/**
 * The README's cross-process approval, as separate processes: the app pauses and exits, `gate-audit
 * approvals` answers from another process, a new process resumes and runs the call once.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secret } from '../helpers/approvals.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';

let cluster: TestCluster;
let dir: string;
beforeAll(() => {
  cluster = startCluster();
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-approval-app-'));
  // The fixture imports the package by name, as users do: that is the built dist/.
  expect(spawnSync('npm', ['run', 'build', '--silent'], { cwd: root }).status).toBe(0);
}, 120_000);
afterAll(() => {
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = {
    ...process.env,
    DATABASE_URL: cluster.url,
    GATE_AUDIT_APPROVAL_SECRET: secret,
    SNAPSHOT_FILE: join(dir, 'snapshot.json'),
  };
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const app = (mode: string) =>
  run(process.execPath, ['node_modules/jiti/lib/jiti-cli.mjs', 'fixtures/approvals/approval-app.ts', mode]);
const gateAudit = (...args: string[]) => run(process.execPath, ['bin/gate-audit.js', ...args]);

describe('fixtures/approvals/approval-app.ts with gate-audit approvals', () => {
  it('pauses in one process, is approved from another, runs once in a third', () => {
    const paused = app('run');
    expect(paused.status, paused.stderr).toBe(0);
    const id = /approval (\S+) is pending/.exec(paused.stdout)?.[1];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(paused.stdout).not.toMatch(/rm ran/);

    const listed = gateAudit('approvals', 'list', '--store', cluster.url);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${id!}  pending`);
    expect(listed.stdout).toContain('input: {"path":"/tmp/report.txt"}');
    const approved = gateAudit('approvals', 'approve', id!, '--store', cluster.url, '--by', 'alice');
    expect(approved.status, approved.stderr).toBe(0);

    const resumed = app('resume');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('rm ran on /tmp/report.txt\nendTurn\n');
    // A second resume from the same snapshot is refused: the approval was used.
    const again = app('resume');
    expect(again.status).not.toBe(0);
    expect(again.stdout).not.toMatch(/rm ran/);
    expect(again.stderr).toMatch(/unknown or was already used/);

    const verified = gateAudit('verify-log', '--store', cluster.url);
    expect(verified.status, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/store OK, [23] writers/);
  }, 120_000);
});
