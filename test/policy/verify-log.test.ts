import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLogFile } from '../../src/index.js';
import { verifyLog } from '../../src/policy/verify-log.js';
import { cli, root } from '../helpers/cli.js';

const scratch = join(root, 'test/.generated/verify-log');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Chained record lines made here, independently of the writer: `{…,"hash":sha256(line without it)}`.
 * `pad` makes each line about that many characters longer.
 */
function* chainedLines(count: number, pad = 0): Generator<{ line: string; hash: string }> {
  let prev: string | null = null;
  const reason = 'x'.repeat(pad);
  for (let seq = 0; seq < count; seq += 1) {
    const body: string = `{"level":"warn","seq":${seq},"prev":${prev === null ? 'null' : `"${prev}"`},"gate":"g","event":"deny","verdict":"deny","reason":"${reason}","path":""}`;
    const hash: string = createHash('sha256').update(body).digest('hex');
    yield { line: `${body.slice(0, -1)},"hash":"${hash}"}`, hash };
    prev = hash;
  }
}

function writeLog(name: string, count: number): { file: string; lines: string[]; hashes: string[] } {
  const file = join(scratch, name);
  const made = [...chainedLines(count)];
  writeFileSync(file, made.map((m) => `${m.line}\n`).join(''));
  return { file, lines: made.map((m) => m.line), hashes: made.map((m) => m.hash) };
}

describe('gate-audit verify-log', () => {
  describe('when given --expect-last-hash', () => {
    it('exits 0 when the chain ends at the expected hash', async () => {
      const { file, hashes } = writeLog('anchored.log', 5);
      const result = await cli('verify-log', file, '--expect-last-hash', hashes[4]!.toUpperCase());
      expect(result.out).toBe(
        `gate-audit verify-log: ${file} OK, 5 records, chain intact, last hash ${hashes[4]} (as expected)\n`,
      );
      expect(result.code).toBe(0);
    });

    it('reports a cut tail, which the chain alone cannot see, at the line after the last one', async () => {
      const { file, lines, hashes } = writeLog('cut.log', 5);
      writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
      expect((await cli('verify-log', file)).code).toBe(0);
      const result = await cli('verify-log', file, '--expect-last-hash', hashes[4]!);
      expect(result.out).toBe(
        `gate-audit verify-log: ${file} BROKEN at line 4: the log ends here, but no record has the expected last hash ${hashes[4]}: ` +
          'records were cut from the end, or the log was rewritten (3 records before it intact)\n',
      );
      expect(result.code).toBe(1);
    });

    it('says where the expected hash is when the log goes on past it', async () => {
      const { file, hashes } = writeLog('longer.log', 5);
      const result = await cli('verify-log', file, '--expect-last-hash', hashes[2]!);
      expect(result.out).toMatch(
        /BROKEN at line 4: the log goes on past the expected last hash \(line 3\), 2 records more: /,
      );
      expect(result.code).toBe(1);
    });

    it('is refused by the library call too when it is not a SHA-256 in hex', async () => {
      const { file } = writeLog('library.log', 1);
      const refused = verifyLogFile(file, { expectLastHash: 'abc' });
      await expect(refused).rejects.toThrow(/option=<expectLastHash> \| abc is not a SHA-256 in hex/);
      await expect(refused).rejects.toHaveProperty('code', 'INVALID_ARGUMENT');
    });

    it('is a usage error (exit 2) when it is not a SHA-256 in hex', async () => {
      const { file } = writeLog('usage.log', 1);
      const result = await cli('verify-log', file, '--expect-last-hash', 'abc');
      expect(result.code).toBe(2);
      expect(result.err).toMatch(
        /gate-audit verify-log: option '--expect-last-hash <hex>' argument 'abc' is invalid\. expected a SHA-256 in hex \(64 digits\)/,
      );
      expect(result.out).toBe('');
    });
  });

  describe('when given --format json', () => {
    it('writes the verdict as data', async () => {
      const { file, lines, hashes } = writeLog('json.log', 4);
      expect(JSON.parse((await cli('verify-log', file, '--format', 'json')).out)).toEqual({
        file,
        ok: true,
        records: 4,
        lastHash: hashes[3],
        signatures: 'not checked',
        lastCheckpoint: null,
        unsigned: 4,
      });
      writeFileSync(file, `${[lines[0], lines[2], lines[3]].join('\n')}\n`);
      const broken = await cli('verify-log', file, '--format', 'json', '--expect-last-hash', hashes[3]!);
      expect(broken.code).toBe(1);
      expect(JSON.parse(broken.out)).toEqual({
        file,
        ok: false,
        records: 1,
        line: 2,
        problem: 'the record has seq 2, expected 1: 1 record(s) missing',
        lastHash: hashes[0],
        signatures: 'not checked',
        lastCheckpoint: null,
        unsigned: 3,
        breaks: [{ line: 2, seq: 2, problem: 'the record has seq 2, expected 1: 1 record(s) missing' }],
        breakCount: 1,
        expectedLastHash: hashes[3],
      });
    });

    it('refuses an unknown format (exit 2)', async () => {
      const { file } = writeLog('format.log', 1);
      const result = await cli('verify-log', file, '--format', 'sarif');
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/expected one of text, json/);
    });
  });

  describe('when the path is a directory', () => {
    it('says a directory is not a log file (exit 2)', async () => {
      const result = await cli('verify-log', scratch);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(
        /cannot read ".*verify-log" \(EISDIR\) \| it is a directory: name the log file in it\n$/,
      );
    });
  });

  describe('when the file is read in pieces, or is larger than the heap', () => {
    it('reads the file in pieces: a record split across read chunks, and a last line without a newline, are checked alike', async () => {
      const made = [...chainedLines(40, 100_000)];
      const text = made.map((m) => m.line).join('\n');
      const file = join(scratch, 'chunks.log');
      writeFileSync(file, text);
      expect(await verifyLogFile(file)).toEqual(verifyLog(text));
      expect(await verifyLogFile(file)).toMatchObject({ ok: true, records: 40, lastHash: made[39]!.hash });
      const changed = text.replace(`"seq":33,`, `"seq":33, `);
      writeFileSync(file, changed);
      expect(await verifyLogFile(file)).toMatchObject({ ok: false, line: 34, records: 33 });
      expect(verifyLog(changed)).toMatchObject({ ok: false, line: 34, records: 33 });
    });

    it('checks a log larger than its whole heap, and finds a break deep in it (constant memory)', async () => {
      // 80 MB of records; the command runs with a 64 MB heap (the CLI's own modules hold about 25 MB of it on
      // Node 22, so 32 MB left too little to be reliable), and reading the file whole (as one string) runs out of
      // memory there. Record 19500 is changed by one byte: 78 MB are read before the break.
      const file = join(scratch, 'large.log');
      const fd = openSync(file, 'w');
      let count = 0;
      let last = '';
      let offset = 0;
      let changedAt = -1;
      let batch: string[] = [];
      try {
        for (const { line, hash } of chainedLines(20_000, 4000)) {
          if (count === 19_499) changedAt = offset + line.indexOf('xxxx');
          batch.push(`${line}\n`);
          offset += line.length + 1;
          count += 1;
          last = hash;
          if (batch.length === 500) {
            writeSync(fd, batch.join(''));
            batch = [];
          }
        }
        writeSync(fd, batch.join(''));
      } finally {
        closeSync(fd);
      }
      expect(await verifyLogFile(file, { expectLastHash: last })).toEqual({
        ok: true,
        records: count,
        lastHash: last,
        signatures: 'not checked',
        lastCheckpoint: null,
        unsigned: count,
      });

      const handle = openSync(file, 'r+');
      try {
        writeSync(handle, 'y', changedAt);
      } finally {
        closeSync(handle);
      }
      const broken = spawnSync(
        process.execPath,
        ['--max-old-space-size=64', join(root, 'bin/gate-audit.js'), 'verify-log', file, '--expect-last-hash', last],
        { encoding: 'utf8', timeout: 30_000 },
      );
      expect(broken.stderr).toBe('');
      expect(broken.stdout).toBe(
        `gate-audit verify-log: ${file} BROKEN at line 19500: the record was changed: its hash does not match its content ` +
          '(19499 records before it intact)\n',
      );
      expect(broken.status).toBe(1);
    });
  });
});
