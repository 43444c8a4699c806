/**
 * Approvals across OS processes and OS users, as a team runs them: the app (the agent) runs as its own user
 * on the gates' database role and holds only the approvers' public keys, in a keyring it cannot write; the
 * approver runs `gate-audit approvals` as another user, on the approvers' role, with a private key the agent
 * cannot read.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantStatements, postgresStore } from '../../src/stores/postgres.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { agentFolder, asAgent, asRoot, NEEDS_ROOT, runAsAgent } from './agent-user.js';
import { APPROVER, asAdmin, createRoles, RUNTIME, urlAs } from './roles.js';

let cluster: TestCluster;
let approverDir: string;
let keyringDir: string;
let keyring: string;
let agentDir: string;
beforeAll(async () => {
  if (!asRoot) return;
  cluster = startCluster();
  // The agent's user reaches the server's socket (the data folder below stays the server's own).
  chmodSync(cluster.dir, 0o711);
  const admin = postgresStore({ connectionString: cluster.url });
  await admin.migrate();
  await admin.close();
  await createRoles(cluster);
  // The fixture imports the package by name, as users do: that is the built dist/, which `npm test` builds
  // first (rebuilding it here would pull it from under the tests running beside this one).
  // The approver's key: a folder only its owner (root) can enter.
  approverDir = mkdtempSync(join(tmpdir(), 'gate-audit-approver-'));
  const made = gateAudit(approverDir, 'approvals', 'keygen', '--name', 'alice');
  expect(made.status, made.stderr).toBe(0);
  // The gate's keyring: owned by root, readable by all, writable by no one else.
  keyringDir = mkdtempSync(join(tmpdir(), 'gate-audit-keyring-'));
  chmodSync(keyringDir, 0o755);
  keyring = join(keyringDir, 'keyring.json');
  writeFileSync(keyring, JSON.stringify({ approvers: JSON.parse(made.stdout) as Record<string, string> }), {
    mode: 0o644,
  });
  agentDir = agentFolder('gate-audit-agent-');
}, 120_000);
afterAll(() => {
  cluster?.destroy();
  for (const dir of [approverDir, keyringDir, agentDir])
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** `gate-audit …` as the approver (this process's user), in a folder. */
function gateAudit(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(root, 'bin/gate-audit.js'), ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fixture app as the agent's user, with only the environment an app would have. */
function app(fixture: string, env: Record<string, string>, ...args: string[]) {
  return runAsAgent(
    process.execPath,
    [join(root, 'node_modules/jiti/lib/jiti-cli.mjs'), join(root, fixture), ...args],
    {
      cwd: root,
      env: { KEYRING_FILE: keyring, HOME: agentDir, ...env },
    },
  );
}

describe('postgresStore approvals across two OS users', () => {
  describe.skipIf(!asRoot)(
    'when approval-app.ts pauses and gate-audit approvals answers as another user (fixtures/approvals/approval-app.ts)',
    () => {
      const approvalApp = (mode: string, snapshot: string) =>
        app(
          'fixtures/approvals/approval-app.ts',
          { DATABASE_URL: urlAs(cluster, RUNTIME), SNAPSHOT_FILE: snapshot },
          mode,
        );
      const approverStore = (): string[] => ['--store', urlAs(cluster, APPROVER)];

      it('pauses in one process, is approved from another with a key, runs once in a third', () => {
        const snapshot = join(agentDir, 'snapshot.json');
        const paused = approvalApp('run', snapshot);
        expect(paused.status, paused.stderr).toBe(0);
        const id = /approval (\S+) is pending/.exec(paused.stdout)?.[1];
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        expect(paused.stdout).not.toMatch(/rm ran/);

        const listed = gateAudit(approverDir, 'approvals', 'list', ...approverStore(), '--keyring', keyring);
        expect(listed.status, listed.stderr).toBe(0);
        expect(listed.stdout).toContain(`${id!}  pending`);
        expect(listed.stdout).toContain('input: {"path":"/tmp/report.txt"}');
        const approved = gateAudit(approverDir, 'approvals', 'approve', id!, ...approverStore(), '--key', 'alice.pem');
        expect(approved.status, approved.stderr).toBe(0);
        expect(approved.stdout).toBe(`gate-audit approvals: ${id!} approved by alice\n`);
        const shown = gateAudit(approverDir, 'approvals', 'show', id!, ...approverStore(), '--keyring', keyring);
        expect(shown.stdout).toMatch(/signature: verified, alice's key in .*keyring.json/);

        const resumed = approvalApp('resume', snapshot);
        expect(resumed.status, resumed.stderr).toBe(0);
        expect(resumed.stdout).toBe('rm ran on /tmp/report.txt\nendTurn\n');
        // A second resume from the same snapshot is refused: the approval was used.
        const again = approvalApp('resume', snapshot);
        expect(again.status).not.toBe(0);
        expect(again.stdout).not.toMatch(/rm ran/);
        expect(again.stderr).toMatch(/was already used/);

        const verified = gateAudit(approverDir, 'verify-log', '--store', urlAs(cluster, RUNTIME));
        expect(verified.status, verified.stdout + verified.stderr).toBe(0);
        expect(verified.stdout).toMatch(/store OK, [23] writers/);
      }, 120_000);

      it('waits for the answer in the paused process (LISTEN/NOTIFY), then resumes', async () => {
        const snapshot = join(agentDir, 'wait-snapshot.json');
        const { program, argv, env } = asAgent(
          process.execPath,
          [join(root, 'node_modules/jiti/lib/jiti-cli.mjs'), join(root, 'fixtures/approvals/approval-app.ts'), 'wait'],
          { DATABASE_URL: urlAs(cluster, RUNTIME), KEYRING_FILE: keyring, SNAPSHOT_FILE: snapshot, HOME: agentDir },
        );
        const waiting = spawn(program, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        waiting.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        let code: number | null | undefined;
        const exited = new Promise<number | null>((resolve) =>
          waiting.on('exit', (c) => {
            code = c;
            resolve(c);
          }),
        );
        while (!/is pending/.test(out) && code === undefined) await new Promise((r) => setTimeout(r, 50));
        expect(out).toMatch(/is pending/);
        const id = /approval (\S+) is pending/.exec(out)![1]!;
        await new Promise((r) => setTimeout(r, 300));
        expect(out).not.toMatch(/answered/);
        const approved = gateAudit(approverDir, 'approvals', 'approve', id, ...approverStore(), '--key', 'alice.pem');
        expect(approved.status, approved.stderr).toBe(0);
        expect(await exited).toBe(0);
        expect(out).toContain(`answered: approve by alice\nrm ran on /tmp/report.txt\nendTurn\n`);
      }, 120_000);

      it('refuses the first ask when the agent can write the keyring', () => {
        const writable = join(agentDir, 'keyring.json');
        writeFileSync(writable, readFileSync(keyring));
        chmodSync(writable, 0o666);
        const paused = app(
          'fixtures/approvals/approval-app.ts',
          {
            DATABASE_URL: urlAs(cluster, RUNTIME),
            SNAPSHOT_FILE: join(agentDir, 'never.json'),
            KEYRING_FILE: writable,
          },
          'run',
        );
        expect(paused.status).not.toBe(0);
        expect(paused.stderr).toMatch(
          /keyring=<.*keyring.json> \| .* is writable by this user: an agent running as this user could add its own key/,
        );
      }, 60_000);
    },
  );

  describe.skipIf(!asRoot)('when an agent approves its own call (fixtures/approvals/self-approval-app.ts)', () => {
    const selfApproval = (databaseUrl: string) =>
      app('fixtures/approvals/self-approval-app.ts', {
        DATABASE_URL: databaseUrl,
        GATE_AUDIT_BIN: join(root, 'bin/gate-audit.js'),
        WORK: agentDir,
      });

    it("fails: an allowed shell tool with the agent's full environment holds no approver key, and its role cannot answer", () => {
      rmSync(join(agentDir, 'alice.pem'), { force: true });
      const run = selfApproval(urlAs(cluster, RUNTIME));
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/pending: [0-9a-f-]{36}/);
      expect(run.stdout).toMatch(
        /the approver's private key is missing \| pass --key <file>.*\nwithout a key: exit 2/s,
      );
      expect(run.stdout).toMatch(/permission denied for table gate_audit_answers.*\nwith its own key: exit 2/s);
      expect(run.stdout).toMatch(/resume refused: .*was not answered before the run resumed/);
      expect(run.stdout).toMatch(/rm ran 0 times/);
    }, 120_000);

    it('fails even on a role that may add answers: its own key is not the listed one', async () => {
      await asAdmin(
        cluster,
        `create role ga_careless login; ${grantStatements({ runtime: 'ga_careless', approver: 'ga_careless' }).join(' ')}`,
      );
      rmSync(join(agentDir, 'alice.pem'), { force: true });
      const run = selfApproval(urlAs(cluster, 'ga_careless'));
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/approved by alice\nwith its own key: exit 0/);
      expect(run.stdout).toMatch(/resume refused: .*the answer's signature is not by "alice"/);
      expect(run.stdout).toMatch(/rm ran 0 times/);
    }, 120_000);
  });

  describe.skipIf(asRoot)('when not run as root (it needs two OS users)', () => {
    it.skip(NEEDS_ROOT, () => undefined);
  });
});
