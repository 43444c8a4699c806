import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { install, type PolicyInput, policyGate } from '../../src/index.js';
import { type PostgresStore, postgresStore, verifyStoreLog } from '../../src/stores/postgres.js';
import { answer, pausedOf, secret } from '../helpers/approvals.js';
import { root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

let cluster: TestCluster;
let store: PostgresStore;
beforeAll(async () => {
  cluster = startCluster();
  store = postgresStore({ connectionString: cluster.url });
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
  cluster?.destroy();
});
isolateEachTest();

async function run(
  argv: string[],
  env: Record<string, string | undefined> = { GATE_AUDIT_APPROVAL_SECRET: secret },
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { cwd: root, env },
  );
  return { code, out, err };
}

const policy: PolicyInput = {
  version: 1,
  rules: [{ id: 'rm-asks', tools: ['rm'], verdict: 'ask', reason: 'deleting needs a human' }],
};

describe('gate-audit approvals --store', () => {
  it('lists a pending approval neutralised with its input digest, approves it, and the restarted run resumes', async () => {
    const hostile = { path: '/tmp/\u001b[2Jx\u202e', note: 'ok\nFAKE-ROW  approved' };
    const agent = scriptedAgent('a', [call('rm', hostile), say('done')], { tools: [recordingTool('rm')] });
    install(agent, { gate: policyGate(policy, { approvals: { secret, store } }) });
    const paused = pausedOf(await agent.invoke('go'));
    const snapshot = agent.takeSnapshot({ preset: 'session' });

    const listed = await run(['approvals', 'list', '--store', cluster.url]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`${paused.approvalId}  pending`);
    expect(listed.out).toContain('reason: deleting needs a human');
    expect(listed.out).toMatch(/input sha256: [0-9a-f]{64} \(the approval token signs this\)/);
    // Nothing from the input reaches the terminal raw: no escape, no bidi override, no forged line.
    expect(listed.out.includes('\u001b') || listed.out.includes('\u202e')).toBe(false);
    expect(listed.out).toContain('\\u001b[2J');
    expect(listed.out).toContain('\\u202e');
    expect(listed.out.split('\n').some((l) => l.startsWith('FAKE-ROW'))).toBe(false);

    const approved = await run(['approvals', 'approve', paused.approvalId, '--store', cluster.url, '--by', 'alice']);
    expect(approved).toMatchObject({ code: 0, out: `gate-audit approvals: ${paused.approvalId} approved by alice\n` });
    const again = await run(['approvals', 'deny', paused.approvalId, '--store', cluster.url]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/answered already \(the first answer wins\)/);

    const resumed = scriptedAgent('a', [say('done')], { tools: [recordingTool('rm')] });
    install(resumed, { gate: policyGate(policy, { approvals: { secret, store } }) });
    resumed.loadSnapshot(snapshot);
    await resumed.invoke(answer(paused.id, paused.approvalId));
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/^rm\(/);
  });

  it('never takes the secret from the arguments, and says where it comes from when missing', async () => {
    const inArgs = await run(['approvals', 'list', '--store', cluster.url, '--secret', secret]);
    expect(inArgs.code).toBe(2);
    expect(inArgs.err).toMatch(
      /never read from the arguments .* export GATE_AUDIT_APPROVAL_SECRET or pass --secret-file/,
    );
    const missing = await run(['approvals', 'list', '--store', cluster.url], {});
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/env=<GATE_AUDIT_APPROVAL_SECRET> \| the approval secret is not set/);
  });

  it('exits 2 with one readable line when the store cannot be reached', async () => {
    const down = await run(['approvals', 'list', '--store', 'postgresql://postgres@/postgres?host=/nonexistent-dir']);
    expect(down.code).toBe(2);
    expect(down.err.trim().split('\n')).toHaveLength(1);
    expect(down.err).toMatch(/store=<postgres> \| .* \| check the --store connection string/);
  });
});

describe('gate-audit verify-log --store', () => {
  it('reports OK per writer, then the first break, and checks --expect-last-hash', async () => {
    const agent = scriptedAgent('w', [call('rm', { path: '/a' }), say('done')], { tools: [recordingTool('rm')] });
    install(agent, { gate: policyGate(policy, { log: store }) });
    await agent.invoke('go');
    const ok = await run(['verify-log', '--store', cluster.url]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`${store.writerId}: OK, 1 record intact, last hash`);
    const { writers } = await verifyStoreLog(store);
    const last = writers.find((w) => w.writer === store.writerId)!.lastHash!;
    const expected = await run([
      'verify-log',
      '--store',
      cluster.url,
      '--expect-last-hash',
      `${store.writerId}=${last}`,
    ]);
    expect(expected.code).toBe(0);
    const wrong = await run([
      'verify-log',
      '--store',
      cluster.url,
      '--expect-last-hash',
      `${store.writerId}=${'0'.repeat(64)}`,
    ]);
    expect(wrong.code, wrong.out + wrong.err).toBe(1);
    expect(wrong.out).toMatch(/BROKEN: the last hash is [0-9a-f]{64}, expected 0{64}/);
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query("update gate_audit_decisions set body = replace(body, 'rm-asks', 'rm-ok')");
    await admin.end();
    const broken = await run(['verify-log', '--store', cluster.url]);
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/BROKEN: record 0 was changed/);
    const bad = await run(['verify-log', '--store', cluster.url, '--expect-last-hash', 'nohash']);
    expect(bad.code).toBe(2);
  });
});
