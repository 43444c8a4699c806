import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateRecord } from '../../src/enforce/gate.js';
import { openDecisionLog } from '../../src/index.js';
import { generateApproverKey } from '../../src/policy/approval-keys.js';
import { verifyLogFile } from '../../src/policy/verify-log.js';
import { cli } from '../helpers/cli.js';

const scratch = join(dirname(fileURLToPath(import.meta.url)), '../.generated/decision-log-signing');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const writer = generateApproverKey('app');
const other = generateApproverKey('app');
let counter = 0;

function record(i: number): GateRecord {
  return { event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: ['a'], input: { i } };
}

/** Writes `count` records to a new signed log; closes it unless told not to. */
function writeSigned(
  count: number,
  options: { close?: boolean; every?: number } = {},
): {
  file: string;
  close: () => void;
} {
  const file = join(scratch, `log-${counter++}.jsonl`);
  const log = openDecisionLog({
    destination: file,
    signing: { key: writer.privateKeyPem, ...(options.every === undefined ? {} : { every: options.every }) },
  });
  for (let i = 0; i < count; i += 1) log.append(record(i), 'g');
  if (options.close !== false) log.close();
  return { file, close: () => log.close() };
}

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Rewrites the log with `edit` applied to one line and every hash after it recomputed (no key needed). */
function rehash(file: string, edit: (line: Record<string, unknown>, index: number) => void): void {
  let prev: string | null = null;
  const out = lines(file).map((line, index) => {
    edit(line, index);
    const rest: Record<string, unknown> = { ...line };
    delete rest.hash;
    const body = JSON.stringify({ ...rest, prev });
    const hash = createHash('sha256').update(body).digest('hex');
    prev = hash;
    return `${body.slice(0, -1)},"hash":"${hash}"}`;
  });
  writeFileSync(file, `${out.join('\n')}\n`);
}

const key = `app=${writer.publicKey}`;

describe('openDecisionLog with a signing key (a signed file decision log)', () => {
  describe('when it signs checkpoints', () => {
    it('writes a checkpoint every N records and one at close, and verify-log checks each signature', async () => {
      const { file } = writeSigned(250);
      const written = lines(file);
      expect(written).toHaveLength(253);
      expect(written.filter((l) => l.checkpoint !== undefined).map((l) => l.seq)).toEqual([100, 201, 252]);
      expect(await verifyLogFile(file, { keys: { app: writer.publicKey } })).toMatchObject({
        ok: true,
        records: 253,
        signatures: 'checked',
        lastCheckpoint: 252,
        lastCheckpointKey: 'app',
        unsigned: 0,
      });
      const run = await cli('verify-log', file, '--key', key, '--require-signed');
      expect(run.code, run.err).toBe(0);
      expect(run.out).toContain('signed through seq 251 by key "app"');
    });

    it('checkpoints at the interval asked for (at most 100)', () => {
      const { file } = writeSigned(7, { every: 3 });
      expect(
        lines(file)
          .filter((l) => l.checkpoint !== undefined)
          .map((l) => l.seq),
      ).toEqual([3, 7, 9]);
      expect(() =>
        openDecisionLog({ destination: join(scratch, 'x.jsonl'), signing: { key: writer.privateKeyPem, every: 101 } }),
      ).toThrow(/every=<101> is not 1 to 100/);
    });

    it('reports records after the last checkpoint as unsigned: exit 0 with a warning, 1 with --require-signed', async () => {
      const { file, close } = writeSigned(130, { close: false });
      try {
        expect(await verifyLogFile(file, { keys: { app: writer.publicKey } })).toMatchObject({
          ok: true,
          lastCheckpoint: 100,
          unsigned: 30,
        });
        const warned = await cli('verify-log', file, '--key', key);
        expect(warned.code).toBe(0);
        expect(warned.err).toMatch(/warning: .* 30 records after the last signed checkpoint are unsigned/);
        const strict = await cli('verify-log', file, '--key', key, '--require-signed');
        expect(strict.code).toBe(1);
        expect(strict.err).toMatch(/refused: --require-signed/);
        const noKey = await cli('verify-log', file, '--require-signed');
        expect(noKey.code).toBe(2);
      } finally {
        close();
      }
    });
  });

  describe('when the signed file is tampered with or signed by another key', () => {
    it('catches a record changed with every hash recomputed: the next checkpoint no longer verifies', async () => {
      const { file } = writeSigned(150);
      rehash(file, (line, index) => {
        if (index === 42) line.toolName = 'rm';
      });
      // The chain alone is intact again: only the signature tells.
      expect((await verifyLogFile(file)).ok).toBe(true);
      const result = await verifyLogFile(file, { keys: { app: writer.publicKey } });
      expect(result).toMatchObject({ ok: false, line: 101 });
      expect(result.ok === false && result.problem).toMatch(
        /the checkpoint does not verify: its signature is not by the key "app"/,
      );
      const run = await cli('verify-log', file, '--key', key);
      expect(run.code).toBe(1);
    });

    it('catches checkpoints stripped and the chain rehashed: every record is unsigned', async () => {
      const { file } = writeSigned(20);
      const kept = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => !l.includes('"checkpoint"'));
      writeFileSync(file, `${kept.join('\n')}\n`);
      rehash(file, () => undefined);
      const run = await cli('verify-log', file, '--key', key, '--require-signed');
      expect(run.code).toBe(1);
      expect(run.out).toContain('no signed checkpoint');
    });

    it('refuses a checkpoint by a key not listed, or by another key under the listed name', async () => {
      const { file } = writeSigned(5);
      const wrong = await verifyLogFile(file, { keys: { app: other.publicKey } });
      expect(wrong.ok === false && wrong.problem).toMatch(/its signature is not by the key "app"/);
      const unlisted = await verifyLogFile(file, { keys: { someone: writer.publicKey } });
      expect(unlisted.ok === false && unlisted.problem).toMatch(/its key "app" is not listed in "keys"/);
      const ringFile = join(scratch, 'ring.json');
      writeFileSync(ringFile, JSON.stringify({ writers: { app: writer.publicKey } }));
      expect((await cli('verify-log', file, '--keyring', ringFile)).code).toBe(0);
    });
  });

  describe('when the file is reopened', () => {
    it('continues a signed chain after a reopen, and signs what an earlier writer left unsigned', async () => {
      const { file, close } = writeSigned(3, { close: false });
      close();
      const again = openDecisionLog({ destination: file, signing: { key: writer.privateKeyPem } });
      again.append(record(9), 'g');
      again.close();
      expect(await verifyLogFile(file, { keys: { app: writer.publicKey } })).toMatchObject({
        ok: true,
        records: 6,
        unsigned: 0,
      });
    });
  });
});
