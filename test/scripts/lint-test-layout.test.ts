/**
 * `scripts/lint-test-layout.mjs` (run by `npm run lint`): test files mirror src/ and read
 * `describe(unit) > describe('when …') > it`. Each case lays out a small tree (src/, test/) and runs the script on it
 * with `--root`, as `npm run lint` runs it on the repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/lint-test-layout.mjs');

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A scratch tree holding `files` (path → text); src/a/b.ts and its well-shaped test unless overridden. */
function tree(files: Record<string, string>): string {
  const base = join(root, 'test/.generated');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'layout-'));
  made.push(dir);
  const all: Record<string, string> = {
    'src/a/b.ts': 'export const b = 1;\n',
    'test/a/b.test.ts': "describe('b', () => { describe('when read', () => { it('is one', () => {}); }); });\n",
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function lint(dir: string, ...files: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [script, '--root', dir, ...files], { cwd: root, encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

const shaped = (body: string): string => `describe('unit', () => { describe('when x', () => { ${body} }); });\n`;

describe('lint-test-layout', () => {
  describe('when run on the repository', () => {
    it('passes on test/ and src/ as they are', () => {
      const run = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });
      expect(`${run.stdout}${run.stderr}`).toContain("reads describe(unit) > describe('when …')");
      expect(run.status).toBe(0);
    });
  });

  describe('when a tree is laid out as it asks', () => {
    it('passes, counting the tests it declares (loops and .each count once)', () => {
      const dir = tree({
        'src/c/index.ts': 'export {};\n',
        'src/d.tsx': 'export {};\n',
        'test/c.test.ts': shaped(
          "it('one', () => {}); it.each([1, 2])('two %s', () => {}); for (const n of [1]) it(`n${n}`, () => {});",
        ),
        'test/d.rendering.test.tsx': shaped("test.skipIf(false)('one', () => {});"),
      });
      const { status, out } = lint(dir);
      expect(out).toContain('3 test files, 5 tests declared');
      expect(status).toBe(0);
    });

    it('skips tests declared in a shared suite (a function its callers run under their describes)', () => {
      const dir = tree({
        'test/a/b.shared.test.ts': `function suite(): void { it('shared', () => {}); }\n${shaped('suite();')}`,
      });
      expect(lint(dir).status).toBe(0);
    });

    it('accepts the folders whose subject is not a module: reliability, fixtures, scripts, helpers, documents', () => {
      const dir = tree({
        'fixtures/graphs/g.ts': '',
        'scripts/tally.mjs': '',
        'test/helpers/runs.ts': '',
        'README.md': '',
        'test/reliability/anything.test.ts': shaped("it('x', () => {});"),
        'test/fixtures/graphs.langgraph.test.ts': shaped("it('x', () => {});"),
        'test/scripts/tally.test.ts': shaped("it('x', () => {});"),
        'test/helpers/runs.test.ts': shaped("it('x', () => {});"),
        'test/readme.test.ts': shaped("it('x', () => {});"),
      });
      const { status, out } = lint(dir);
      expect(out).not.toContain('does not exist');
      expect(status).toBe(0);
    });
  });

  describe('when a test file names no module', () => {
    it('fails on a file under a src folder that has no such module, and on a missing fixture or script', () => {
      const dir = tree({
        'test/a/oracle.test.ts': shaped("it('x', () => {});"),
        'test/fixtures/nothing.test.ts': shaped("it('x', () => {});"),
        'test/scripts/gone.test.ts': shaped("it('x', () => {});"),
      });
      const { status, out } = lint(dir);
      expect(out).toContain('test/a/oracle.test.ts: names no module of src/');
      expect(out).toContain('test/fixtures/nothing.test.ts: names fixtures/nothing, which does not exist');
      expect(out).toContain('test/scripts/gone.test.ts: names scripts/gone.mjs or scripts/gone.sh');
      expect(status).toBe(1);
    });

    it('takes the longest dotted prefix that is a module, so an aspect may follow the name', () => {
      const dir = tree({ 'src/a/b.c.ts': '', 'test/a/b.c.d.test.ts': shaped("it('x', () => {});") });
      const { status, out } = lint(dir);
      expect(out).not.toContain('names no module');
      expect(status).toBe(0);
    });
  });

  describe('when a test is not under describe(unit) > describe(when …)', () => {
    it.each([
      ['at the top level', "it('bare', () => {});"],
      ['under one describe', "describe('unit', () => { it('bare', () => {}); });"],
      [
        'under two describes, none a when',
        "describe('unit', () => { describe('reading', () => { it('bare', () => {}); }); });",
      ],
      ['with the when outermost', "describe('when x', () => { describe('unit', () => { it('bare', () => {}); }); });"],
    ])('fails %s, naming the line and the test', (_, text) => {
      const { status, out } = lint(tree({ 'test/a/b.test.ts': text }));
      expect(out).toMatch(/test\/a\/b\.test\.ts:\d+: 'bare' is not under describe\(<unit>\) > describe\('when …'\)/);
      expect(status).toBe(1);
    });

    it('fails a describe titled as an attack id, asking for a tag', () => {
      const text =
        "describe('unit', () => { describe('A1: swap', () => { describe('when x', () => { it('y', () => {}); }); }); });";
      const { status, out } = lint(tree({ 'test/a/b.test.ts': text }));
      expect(out).toContain("describe 'A1: swap' is an attack id; put it in a title as [id]");
      expect(status).toBe(1);
    });
  });

  describe('when a module of src/ has no test file of its name', () => {
    it('fails, saying where its test goes and where to name the one that covers it', () => {
      const { status, out } = lint(tree({ 'src/a/e.ts': '' }));
      expect(out).toContain('src/a/e: no test file of its name (test/a/e.test.ts)');
      expect(status).toBe(1);
    });

    it('passes when test/tested-by.json names an existing test file and why', () => {
      const listed = { 'a/e': { test: 'test/a/b.test.ts', why: 'b re-exports e' } };
      const dir = tree({ 'src/a/e.ts': '', 'test/tested-by.json': JSON.stringify(listed) });
      expect(lint(dir).status).toBe(0);
    });

    it.each([
      ['a test file that does not exist', { 'a/e': { test: 'test/a/gone.test.ts', why: 'w' } }, 'which does not exist'],
      ['no reason', { 'a/e': { test: 'test/a/b.test.ts' } }, 'names no reason'],
      [
        'a module with a test file of its own',
        { 'a/e': { test: 'test/a/b.test.ts', why: 'w' }, 'a/b': { test: 'test/a/b.test.ts', why: 'w' } },
        'a/b has a test file of its own',
      ],
      [
        'a module src/ does not have',
        { 'a/e': { test: 'test/a/b.test.ts', why: 'w' }, 'a/gone': { test: 'test/a/b.test.ts', why: 'w' } },
        'a/gone is no module of src/',
      ],
    ])('fails when test/tested-by.json names %s', (_, listed, message) => {
      const dir = tree({ 'src/a/e.ts': '', 'test/tested-by.json': JSON.stringify(listed) });
      const { status, out } = lint(dir);
      expect(out).toContain(message);
      expect(status).toBe(1);
    });
  });
});
