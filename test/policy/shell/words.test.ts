/**
 * How a shell word decodes, with bash itself as the oracle: each raw text is given to `bash -c 'printf %s …'`
 * in the quoting under test, and the decoder must give exactly what bash printed (or `undefined`, "not decoded
 * exactly", where it says it does not know). A word that decodes wrong is a program name or argument a policy
 * judges wrong (`$'\162m'` is `rm`). Skipped where bash is not installed.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { decodeAnsiC, unescapeDouble, unescapeUnquoted } from '../../../src/policy/shell/words.js';

const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

/** What bash prints for `printf %s <word>` (the word as written in a line). */
function bashPrints(word: string): string {
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', `printf %s ${word}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' },
  });
  if (run.status !== 0) throw new Error(`bash failed on ${word}: ${run.stderr}`);
  return run.stdout;
}

const ANSI_C = [
  'plain',
  ...['a', 'b', 'e', 'E', 'f', 'n', 'r', 't', 'v', '\\', "'", '"', '?'].map((e) => `x\\${e}y`),
  'r\\155',
  '\\162m',
  '\\1',
  '\\12',
  '\\123',
  '\\1234',
  '\\0101',
  '\\501',
  '\\08',
  '\\8',
  '\\x4',
  '\\x41',
  '\\x414',
  '\\x0414',
  '\\x7f',
  '\\xg',
  '\\u263a',
  '\\u41',
  '\\u0041B',
  '\\U0001F600',
  '\\U41',
  '\\cA',
  '\\ca',
  '\\c[',
  '\\c?',
  '\\c1',
  '\\c@',
  '\\cz',
  '\\c_',
  '\\c^',
  '\\c]x',
  '\\z',
  '\\q!',
  'a\\\\b',
  '\\x72\\x6d',
];

/** Left undecoded: a NUL (bash cuts the word there) and `\\x` without a digit (bash keeps it as written). */
const UNDECODED = ['\\08', '\\xg', '\\c@'];

const DOUBLE = ['plain', 'a\\$b', 'a\\`b', 'a\\"b', 'a\\\\b', 'a\\nb', 'a\\xb', 'a\\\nb', 'r\\m', '\\\\\\"'];

const UNQUOTED = ['plain', 'r\\m', 'a\\\\b', 'a\\$b', 'a\\"b', "a\\'b", 'a\\\nb', '\\-rf', 'x\\ y'];

describe('shell words', () => {
  describe.skipIf(!hasBash)('when decoded, they read as bash decodes them', () => {
    it("$'…' strings (ANSI-C), every escape bash knows and some it does not", () => {
      const unknown: string[] = [];
      for (const raw of ANSI_C) {
        const ours = decodeAnsiC(raw);
        if (ours === undefined) unknown.push(raw);
        else expect({ raw, value: ours }).toEqual({ raw, value: bashPrints(`$'${raw}'`) });
      }
      expect(unknown).toEqual(UNDECODED);
    });

    it('"…" strings', () => {
      for (const raw of DOUBLE) {
        expect({ raw, value: unescapeDouble(raw) }).toEqual({ raw, value: bashPrints(`"${raw}"`) });
      }
    });

    it('unquoted words', () => {
      for (const raw of UNQUOTED) {
        expect({ raw, value: unescapeUnquoted(raw) }).toEqual({ raw, value: bashPrints(raw) });
      }
    });
  });

  describe.skipIf(!hasBash)('when the decoder meets what it does not know', () => {
    it('says so for a NUL, a byte above 0x7f, a trailing backslash', () => {
      expect(decodeAnsiC('a\\0b')).toBeUndefined();
      expect(decodeAnsiC('\\x80')).toBeUndefined();
      expect(decodeAnsiC('\\377')).toBeUndefined();
      expect(decodeAnsiC('a\\')).toBeUndefined();
      expect(decodeAnsiC('\\c')).toBeUndefined();
    });
  });
});
