/**
 * `verify-log` on a log file reports every break, not only the first (each with its line and seq), in
 * bounded memory however many there are; a writer killed (SIGKILL) before it closed its log leaves an
 * unsigned tail, not a break.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApproverKey } from '../../src/policy/approval-keys.js';
import { type LogLineBreak, verifyLog, verifyLogFile } from '../../src/policy/verify-log.js';
import { cli, root } from '../helpers/cli.js';

const scratch = join(root, 'test/.generated/verify-log-breaks');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Chained record lines made here, independently of the writer. */
function chained(count: number): string[] {
  let prev: string | null = null;
  const lines: string[] = [];
  for (let seq = 0; seq < count; seq += 1) {
    const body: string = `{"level":"info","seq":${seq},"prev":${prev === null ? 'null' : `"${prev}"`},"gate":"g","event":"allow","verdict":"allow","toolName":"ls","path":""}`;
    const hash: string = createHash('sha256').update(body).digest('hex');
    lines.push(`${body.slice(0, -1)},"hash":"${hash}"}`);
    prev = hash;
  }
  return lines;
}

describe('gate-audit verify-log', () => {
  describe('when a log file has several breaks (it reports every one)', () => {
    it('a changed record, a removed one, a repeated one and a line that is no record: four breaks, each with its line and seq', async () => {
      const lines = chained(40);
      const broken = [...lines];
      broken[4] = broken[4]!.replace('"ls"', '"rm"'); // seq 4 changed (line 5)
      broken.splice(12, 1); // seq 12 removed: seq 13 is at line 13
      broken.splice(20, 0, lines[19]!); // seq 19 repeated at line 21
      broken.splice(30, 0, 'not a record'); // line 31
      const file = join(scratch, 'four.log');
      writeFileSync(file, `${broken.join('\n')}\n`);
      const expected: LogLineBreak[] = [
        { line: 5, seq: 4, problem: 'the record was changed: its hash does not match its content' },
        { line: 13, seq: 13, problem: 'the record has seq 13, expected 12: 1 record(s) missing' },
        { line: 21, seq: 19, problem: 'the record has seq 19, expected 21: a record was inserted or repeated' },
        { line: 31, seq: null, problem: 'the record is not a JSON record' },
      ];
      const seen: LogLineBreak[] = [];
      const result = await verifyLogFile(file, { onBreak: (found) => seen.push(found) });
      expect(result).toMatchObject({ ok: false, records: 4, line: 5, breaks: expected, breakCount: 4 });
      expect(seen).toEqual(expected);
      expect(verifyLog(readFileSync(file, 'utf8'))).toEqual(result);

      const text = await cli('verify-log', file);
      expect(text.code).toBe(1);
      expect(text.out).toBe(
        `gate-audit verify-log: ${file} BROKEN at line 5: the record was changed: its hash does not match its content (4 records before it intact)\n` +
          '  break: line=<13>, seq=<13> | the record has seq 13, expected 12: 1 record(s) missing\n' +
          '  break: line=<21>, seq=<19> | the record has seq 19, expected 21: a record was inserted or repeated\n' +
          '  break: line=<31>, seq=<-> | the record is not a JSON record\n' +
          '  4 breaks in all\n',
      );
      const json = JSON.parse((await cli('verify-log', file, '--format', 'json')).out) as {
        breaks: unknown;
        breakCount: number;
      };
      expect(json).toMatchObject({ ok: false, breaks: expected, breakCount: 4 });
    });

    it('a break on every one of 200,000 records is reported under a 64 MB heap: text names each, JSON lists 1,000 and counts all', async () => {
      const file = join(scratch, 'all-broken.log');
      const fd = openSync(file, 'w');
      try {
        let batch: string[] = [];
        for (const line of chained(200_000)) {
          // Every record changed: each one is a break of its own.
          batch.push(`${line.replace('"ls"', '"rm"')}\n`);
          if (batch.length === 5000) {
            writeSync(fd, batch.join(''));
            batch = [];
          }
        }
        writeSync(fd, batch.join(''));
      } finally {
        closeSync(fd);
      }
      const run = (...args: string[]) =>
        spawnSync(
          process.execPath,
          ['--max-old-space-size=64', join(root, 'bin/gate-audit.js'), 'verify-log', file, ...args],
          { encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * 1024 * 1024 },
        );
      const text = run();
      expect(text.stderr).toBe('');
      expect(text.status).toBe(1);
      const out = text.stdout.split('\n');
      expect(out).toHaveLength(200_002);
      expect(out[199_999]).toBe(
        '  break: line=<200000>, seq=<199999> | the record was changed: its hash does not match its content',
      );
      expect(out[200_000]).toBe('  200000 breaks in all');
      const json = run('--format', 'json');
      expect(json.stderr).toBe('');
      expect(json.status).toBe(1);
      const parsed = JSON.parse(json.stdout) as { breaks: LogLineBreak[]; breakCount: number };
      expect(parsed.breakCount).toBe(200_000);
      expect(parsed.breaks).toHaveLength(1000);
      expect(parsed.breaks[999]).toEqual({
        line: 1000,
        seq: 999,
        problem: 'the record was changed: its hash does not match its content',
      });
      // Read by a pipe much slower than the check: it holds the reading until the pipe drains, so the breaks
      // waiting to be written stay bounded too (the 64 MB heap ran out when they queued up in the process).
      const slow = spawn(
        process.execPath,
        ['--max-old-space-size=64', join(root, 'bin/gate-audit.js'), 'verify-log', file],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      slow.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      let lines = 0;
      slow.stdout.on('data', (chunk: Buffer) => {
        lines += chunk.toString().split('\n').length - 1;
        slow.stdout.pause();
        setTimeout(() => slow.stdout.resume(), 2);
      });
      const code = await new Promise<number | null>((resolve) => slow.on('close', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(1);
      expect(lines).toBe(200_001);
    }, 180_000);
  });

  describe('when the file writer was killed with SIGKILL', () => {
    const key = generateApproverKey('writer');
    const keyArg = `writer=${key.publicKey}`;
    let keyFile: string;
    beforeAll(() => {
      keyFile = join(scratch, 'writer.pem');
      writeFileSync(keyFile, key.privateKeyPem, { mode: 0o600 });
    });

    function killed(name: string, count: number, still: boolean): Promise<string> {
      const file = join(scratch, name);
      const child = spawn(
        process.execPath,
        [
          join(root, 'node_modules/jiti/lib/jiti-cli.mjs'),
          join(root, 'test/policy/verify-log-writer.ts'),
          file,
          keyFile,
          String(count),
          ...(still ? ['still'] : []),
        ],
        { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      return new Promise((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (!chunk.toString().includes('ready')) return;
          // Mid-run: let it append for a while first.
          setTimeout(() => child.kill('SIGKILL'), still ? 0 : 200);
        });
        child.on('exit', (code, signal) =>
          signal === 'SIGKILL' ? resolve(file) : reject(new Error(`writer exited ${code}`)),
        );
      });
    }

    it('before it closed: its records after the last checkpoint are unsigned (exit 0, a warning), --require-signed exits 1', async () => {
      const file = await killed('still.log', 15, true);
      const result = await verifyLogFile(file, { keys: { writer: key.publicKey } });
      expect(result).toMatchObject({ ok: true, records: 16, lastCheckpoint: 10, unsigned: 5 });
      const warned = await cli('verify-log', file, '--key', keyArg);
      expect(warned.code).toBe(0);
      expect(warned.err).toMatch(/warning: .*5 records after the last signed checkpoint are unsigned/);
      expect((await cli('verify-log', file, '--key', keyArg, '--require-signed')).code).toBe(1);
    }, 60_000);

    it('mid-run, appending: no break, whatever it was doing', async () => {
      const file = await killed('mid-run.log', 5, false);
      const result = await verifyLogFile(file, { keys: { writer: key.publicKey } });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(result.records).toBeGreaterThan(5);
      const verified = await cli('verify-log', file, '--key', keyArg);
      expect(verified.code, verified.out).toBe(0);
    }, 60_000);
  });
});
