import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { install, type PolicyInput, policyGate } from '../../../src/index.js';
import { publicKeyOf, readPrivateKey } from '../../../src/policy/approval-keys.js';
import { type PostgresStore, postgresStore, verifyStoreLog } from '../../../src/stores/postgres.js';
import { alice, answer, approvers, pausedOf } from '../../helpers/approvals.js';
import { startCluster, type TestCluster } from '../../helpers/postgres.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent } from '../../helpers/sdk.js';

let cluster: TestCluster;
let store: PostgresStore;
let dir: string;
let aliceKey: string;
let keyring: string;
beforeAll(async () => {
  cluster = startCluster();
  store = postgresStore({ connectionString: cluster.url });
  await store.migrate();
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-cli-approvals-'));
  aliceKey = join(dir, 'alice.pem');
  writeFileSync(aliceKey, alice.privateKeyPem, { mode: 0o600 });
  keyring = join(dir, 'keyring.json');
  writeFileSync(keyring, JSON.stringify({ approvers }));
});
afterAll(async () => {
  await store?.close();
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});
isolateEachTest();

async function run(argv: string[], signal?: AbortSignal): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { cwd: dir, env: {}, ...(signal === undefined ? {} : { signal }) },
  );
  return { code, out, err };
}

const policy: PolicyInput = {
  version: 1,
  rules: [{ id: 'rm-asks', tools: ['rm'], verdict: 'ask', reason: 'deleting needs a human' }],
};

function gated(turns = [call('rm', { path: '/tmp/x' }), say('done')]): ReturnType<typeof scriptedAgent> {
  const agent = scriptedAgent('a', turns, { tools: [recordingTool('rm')] });
  install(agent, { gate: policyGate(policy, { approvals: { store, approvers } }) });
  return agent;
}

/** A database of the cluster as a connection string (`postgres` role, no password). */
const database = (name: string): string => cluster.url.replace('@/postgres', `@/${name}`);

describe('gate-audit approvals keygen', () => {
  describe('when it writes a new key', () => {
    it('writes a PKCS#8 PEM readable by its owner only, naming the approver, and prints the public key', async () => {
      const made = await run(['approvals', 'keygen', '--name', 'carol']);
      expect(made.code, made.err).toBe(0);
      const file = join(dir, 'carol.pem');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^# gate-audit approver: carol\n-----BEGIN PRIVATE KEY-----\n/);
      expect(readPrivateKey(text)).toMatchObject({ name: 'carol' });
      const printed = JSON.parse(made.out) as Record<string, string>;
      expect(Object.keys(printed)).toEqual(['carol']);
      expect(printed.carol).toMatch(/^MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=$/);
      expect(publicKeyOf(printed.carol!).asymmetricKeyType).toBe('ed25519');
      expect(made.err).toMatch(/wrote the private key of carol to carol.pem \(PKCS#8 PEM, mode 0600\)/);
    });
  });

  describe('when the key exists or the name is not one', () => {
    it('never overwrites a key (exit 1), and refuses a name that is not one (exit 2)', async () => {
      const before = readFileSync(aliceKey, 'utf8');
      const again = await run(['approvals', 'keygen', '--name', 'alice']);
      expect(again.code).toBe(1);
      expect(again.err).toMatch(
        /file=<alice.pem> \| a file is there already, and a key is never overwritten \| pass --out/,
      );
      expect(readFileSync(aliceKey, 'utf8')).toBe(before);
      const bad = await run(['approvals', 'keygen', '--name', '../x']);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/not an approver name/);
      expect((await run(['approvals', 'keygen'])).code).toBe(2);
    });
  });
});

describe('gate-audit approvals list|show|approve|deny --store', () => {
  describe('when an approval is pending', () => {
    it('lists a pending approval neutralised, shows it with its digest check and who answered, and the run resumes', async () => {
      const hostile = { path: '/tmp/\u001b[2Jx\u202e', note: 'ok\nFAKE-ROW  approved' };
      const agent = gated([call('rm', hostile), say('done')]);
      const paused = pausedOf(await agent.invoke('go'));

      const listed = await run(['approvals', 'list', '--store', cluster.url]);
      expect(listed.code, listed.err).toBe(0);
      expect(listed.out).toContain(`${paused.approvalId}  pending`);
      expect(listed.out).toContain('reason: deleting needs a human');
      expect(listed.out).toMatch(
        /call digest: [0-9a-f]{64} \(recomputed from the call shown: matches; an answer signs it\)/,
      );
      // Nothing from the input reaches the terminal raw: no escape, no bidi override, no forged line.
      expect(listed.out.includes('\u001b') || listed.out.includes('\u202e')).toBe(false);
      expect(listed.out).toContain('\\u001b[2J');
      expect(listed.out).toContain('\\u202e');
      expect(listed.out.split('\n').some((l) => l.startsWith('FAKE-ROW'))).toBe(false);

      const approved = await run([
        'approvals',
        'approve',
        paused.approvalId,
        '--store',
        cluster.url,
        '--key',
        'alice.pem',
      ]);
      expect(approved).toMatchObject({
        code: 0,
        out: `gate-audit approvals: ${paused.approvalId} approved by alice\n`,
      });
      const again = await run(['approvals', 'deny', paused.approvalId, '--store', cluster.url, '--key', 'alice.pem']);
      expect(again.code).toBe(1);
      expect(again.err).toMatch(/answered already \(the first answer wins\)/);

      const shown = await run(['approvals', 'show', paused.approvalId, '--store', cluster.url, '--keyring', keyring]);
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toContain(`${paused.approvalId}  approved by alice`);
      expect(shown.out).toMatch(/answer: approve by alice at \d{4}-.*, valid until \d{4}-/);
      expect(shown.out).toMatch(/signature: verified, alice's key in .*keyring.json/);
      expect(shown.out).toMatch(/nonce [0-9a-f]{32}, raised/);
      expect(shown.out.includes('\u001b')).toBe(false);
      const unchecked = await run(['approvals', 'show', paused.approvalId, '--store', cluster.url]);
      expect(unchecked.out).toMatch(/signature: not checked \(pass --keyring <file>/);
      const otherRing = join(dir, 'bob-only.json');
      writeFileSync(otherRing, JSON.stringify({ approvers: { bob: approvers.bob } }));
      const unverified = await run([
        'approvals',
        'show',
        paused.approvalId,
        '--store',
        cluster.url,
        '--keyring',
        otherRing,
      ]);
      expect(unverified.code).toBe(1);
      expect(unverified.out).toMatch(/signature: NOT VERIFIED: the answer's approver "alice" is not listed/);

      await agent.invoke(answer(paused.id, paused.approvalId));
      expect(ran).toHaveLength(1);
      const used = await run(['approvals', 'show', paused.approvalId, '--store', cluster.url]);
      expect(used.out).toMatch(/ used \(granted\)\n/);
      expect(used.out).toMatch(/used: \d{4}-.* by .*\/\d+ \(granted\)/);
    });
  });

  describe('when a row was edited in the table', () => {
    it('shows a row edited in the table as not trusted (exit 1), and refuses to answer it', async () => {
      const paused = pausedOf(await gated().invoke('go'));
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query("update gate_audit_pending set entry = replace(entry, '/tmp/x', '/etc') where id = $1", [
        paused.approvalId,
      ]);
      await admin.end();
      const shown = await run(['approvals', 'show', paused.approvalId, '--store', cluster.url]);
      expect(shown.code).toBe(1);
      expect(shown.out).toContain(`${paused.approvalId}  NOT TRUSTED`);
      expect(shown.out).toMatch(/NOT TRUSTED: the stored approval's input does not match its digest/);
      const listed = await run(['approvals', 'list', '--store', cluster.url]);
      expect(listed.code).toBe(1);
      const approved = await run([
        'approvals',
        'approve',
        paused.approvalId,
        '--store',
        cluster.url,
        '--key',
        'alice.pem',
      ]);
      expect(approved.code).toBe(1);
      expect(approved.err).toMatch(/it was not written by a gate \| do not answer it/);
      const unknown = await run(['approvals', 'show', '00000000-0000-4000-8000-000000000000', '--store', cluster.url]);
      expect(unknown.code).toBe(1);
    });
  });

  describe('when given a shared secret instead of a key', () => {
    it('says what replaced the shared secret, and needs a key to answer (exit 2)', async () => {
      for (const flag of [['--secret-file', 'secret.txt'], ['--secret', 'x'.repeat(40)], ['--secret-file=s']]) {
        const old = await run(['approvals', 'approve', 'some-id', '--store', cluster.url, ...flag]);
        expect(old.code).toBe(2);
        expect(old.err).toMatch(
          /option=<--secret(-file)?> \| approvals in a store are answered with an approver's private key, never a shared secret \| make one with gate-audit approvals keygen --name <you> and pass --key <file>/,
        );
      }
      const by = await run(['approvals', 'approve', 'some-id', '--store', cluster.url, '--by', 'alice']);
      expect(by.code).toBe(2);
      expect(by.err).toMatch(/option=<--by> \| the approver's name is the one its key is listed under/);
      const paused = pausedOf(await gated().invoke('go'));
      const keyless = await run(['approvals', 'approve', paused.approvalId, '--store', cluster.url]);
      expect(keyless.code).toBe(2);
      expect(keyless.err).toMatch(/the approver's private key is missing \| pass --key <file>/);
      writeFileSync(join(dir, 'not-a-key.pem'), 'hello');
      const notKey = await run([
        'approvals',
        'deny',
        paused.approvalId,
        '--store',
        cluster.url,
        '--key',
        'not-a-key.pem',
      ]);
      expect(notKey.code).toBe(2);
      expect(notKey.err).toMatch(/option=<privateKey> \| it is not a PKCS#8 PEM private key/);
      const missing = await run(['approvals', 'deny', paused.approvalId, '--store', cluster.url, '--key', 'nope.pem']);
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(/file=<nope.pem> \| cannot read the private key/);
    });
  });

  describe('when the store cannot be reached', () => {
    it('exits 2 with one readable line when the store cannot be reached', async () => {
      const down = await run(['approvals', 'list', '--store', 'postgresql://postgres@/postgres?host=/nonexistent-dir']);
      expect(down.code).toBe(2);
      expect(down.err.trim().split('\n')).toHaveLength(1);
      expect(down.err).toMatch(/store=<postgres> \| .* \| check the store's connection string/);
    });
  });
});

describe('--store, in every command that takes it', () => {
  const withPassword = [
    'postgresql://postgres:hunter2@localhost/postgres',
    'postgresql://postgres@localhost/postgres?password=hunter2',
    'host=localhost user=postgres password=hunter2',
  ];
  const commands = (url: string): string[][] => [
    ['approvals', 'list', '--store', url],
    ['approvals', 'show', 'some-id', '--store', url],
    ['approvals', 'approve', 'some-id', '--store', url, '--key', 'alice.pem'],
    ['approvals', 'deny', 'some-id', '--store', url, '--key', 'alice.pem'],
    ['approvals', 'watch', '--store', url],
    ['verify-log', '--store', url],
    ['store', 'migrate', '--store', url],
    ['observed', 'traces.json', '--store', url],
  ];

  describe('when the URL holds a password', () => {
    it('refuses a password in it, in every command, with the fix, before connecting', async () => {
      writeFileSync(join(dir, 'traces.json'), '');
      for (const url of withPassword) {
        for (const argv of commands(url)) {
          const refused = await run(argv);
          expect(refused.code, argv.join(' ')).toBe(2);
          expect(refused.err, argv.join(' ')).toMatch(
            /option=<--store> \| the connection string holds a password, and arguments show in ps and in shell history \| .*PGPASSWORD \(or the other PG\* variables, or ~\/.pgpass\).*--store-file <file>/,
          );
          expect(refused.err).not.toContain('hunter2');
        }
      }
    });
  });

  describe('when the connection string is in --store-file', () => {
    it('takes a password in --store-file, read from the file', async () => {
      const file = join(dir, 'store-url');
      writeFileSync(file, `${cluster.url.replace('postgres@', 'postgres:unused-with-trust@')}\n`, { mode: 0o600 });
      const paused = pausedOf(await gated().invoke('go'));
      const shown = await run(['approvals', 'show', paused.approvalId, '--store-file', 'store-url']);
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toContain(`${paused.approvalId}  pending`);
      const verified = await run(['verify-log', '--store-file', 'store-url']);
      expect(verified.code, verified.err).toBe(0);
      const both = await run(['approvals', 'list', '--store-file', 'store-url', '--store', cluster.url]);
      expect(both.code).toBe(2);
      expect(both.err).toMatch(/name the store once/);
      const neither = await run(['approvals', 'list']);
      expect(neither.code).toBe(2);
    });
  });
});

describe('gate-audit store migrate|grants', () => {
  describe('when the store has no schema, or a newer one', () => {
    it('creates the schema, then has nothing to do; commands on a store without it exit 2 with STORE_SCHEMA', async () => {
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('create database fresh');
      const url = database('fresh');
      const before = await run(['approvals', 'list', '--store', url]);
      expect(before.code).toBe(2);
      expect(before.err).toMatch(
        /the store has no gate-audit schema .* \| run gate-audit store migrate --store <url> once/,
      );
      const verify = await run(['verify-log', '--store', url]);
      expect(verify.code).toBe(2);
      const migrated = await run(['store', 'migrate', '--store', url]);
      expect(migrated.code, migrated.err).toBe(0);
      expect(migrated.out).toMatch(
        /^gate-audit store: schema version 0 → 3\n {2}applied 1 .*\n {2}applied 2 append-only.*\n {2}applied 3 prunes/,
      );
      expect((await run(['store', 'migrate', '--store', url])).out).toBe(
        'gate-audit store: the schema is at version 3 already\n',
      );
      expect((await run(['approvals', 'list', '--store', url])).code).toBe(0);
      const newer = new pg.Client({ connectionString: url });
      await newer.connect();
      await newer.query("insert into gate_audit_schema_version (version, name) values (9, 'later')");
      await newer.end();
      await admin.end();
      for (const argv of [
        ['approvals', 'list', '--store', url],
        ['store', 'migrate', '--store', url],
      ]) {
        const refused = await run(argv);
        expect(refused.code).toBe(2);
        expect(refused.err).toMatch(/schema=<9> \| the schema is newer than this gate-audit knows \(version 3\)/);
      }
    });
  });

  describe('when asked for the grants', () => {
    it('prints the grants of the runtime and approver roles, and needs one', async () => {
      const printed = await run(['store', 'grants', '--runtime-role', 'gates', '--approver-role', 'team "a"']);
      expect(printed.code).toBe(0);
      expect(printed.out).toBe(
        'grant select on gate_audit_schema_version, gate_audit_pending, gate_audit_answers, gate_audit_consumptions, gate_audit_writers, gate_audit_decisions, gate_audit_heads, gate_audit_prunes to "gates";\n' +
          'grant insert on gate_audit_pending, gate_audit_consumptions, gate_audit_writers, gate_audit_decisions, gate_audit_heads to "gates";\n' +
          'grant select on gate_audit_schema_version, gate_audit_pending, gate_audit_answers, gate_audit_consumptions to "team ""a""";\n' +
          'grant insert on gate_audit_answers to "team ""a""";\n',
      );
      expect((await run(['store', 'grants'])).code).toBe(2);
      expect((await run(['store', 'drop'])).code).toBe(2);
    });
  });
});

describe('gate-audit approvals watch --store', () => {
  describe('when approvals are raised while it watches', () => {
    it('prints each new pending approval as it is raised, lists again after a dropped connection, stops on the signal', async () => {
      const stop = new AbortController();
      let out = '';
      let err = '';
      const watching = main(
        ['approvals', 'watch', '--store', cluster.url],
        { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
        { cwd: dir, env: {}, signal: stop.signal },
      );
      const until = async (check: () => boolean): Promise<void> => {
        for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
      };
      await until(() => err.includes('watching'));
      await new Promise((r) => setTimeout(r, 300));
      const first = pausedOf(await gated([call('rm', { path: '/first' }), say('done')]).invoke('go'));
      await until(() => out.includes(first.approvalId));
      expect(out).toContain(`${first.approvalId}  pending`);
      // The listening connection dies; a call pauses while it is down; the watch lists again when back.
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen gate_audit_pending%'",
      );
      const second = pausedOf(await gated([call('rm', { path: '/second' }), say('done')]).invoke('go'));
      await admin.end();
      await until(() => out.includes(second.approvalId));
      expect(out).toContain(`${second.approvalId}  pending`);
      expect(err).toMatch(/gate-audit approvals watch: store=<postgres> \| .* \| reconnecting, then listing again/);
      // Each is printed once.
      expect(out.split(`${first.approvalId}  pending`)).toHaveLength(2);
      stop.abort();
      expect(await watching).toBe(0);
    }, 30_000);
  });
});

describe('gate-audit verify-log --store', () => {
  describe('when the log is intact, then edited', () => {
    it('reports OK per writer, then the first break, and checks --expect-last-hash', async () => {
      const agent = scriptedAgent('w', [call('rm', { path: '/a' }), say('done')], { tools: [recordingTool('rm')] });
      install(agent, { gate: policyGate(policy, { log: store }) });
      await agent.invoke('go');
      const ok = await run(['verify-log', '--store', cluster.url]);
      expect(ok.code, ok.err).toBe(0);
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
});
