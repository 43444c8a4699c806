/**
 * The line the process guard's loader hooks append to a framework module: it hands the module's namespace to the
 * guard, and throws, naming the module, where no guard takes it (a copy is never loaded unguarded).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { guardLine, withGuardLine } from '../../src/enforce/guard-hooks.js';
import { root } from '../helpers/cli.js';

const scratch = join(root, 'test/.generated/guard-line');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('guardLine', () => {
  describe('when no guard is loaded', () => {
    it("throws at the module's evaluation, naming the module and the fix", async () => {
      mkdirSync(scratch, { recursive: true });
      const file = join(scratch, "it's-a-module.mjs");
      const url = pathToFileURL(file).href;
      writeFileSync(file, `export const value = 1;${guardLine(url)}`);
      await expect(import(url)).rejects.toThrow(
        `gate-audit: the process guard is not loaded, so ${url} cannot be guarded | import gate-audit before the framework`,
      );
    });
  });
});

describe('withGuardLine', () => {
  const pregel = pathToFileURL(join(root, 'node_modules/@langchain/langgraph/dist/pregel/index.js')).href;

  it("appends the line once to a framework module's source, and to nothing else", () => {
    const once = withGuardLine(pregel, { format: 'module', source: 'export {};' });
    expect(once.source).toContain(guardLine(pregel));
    expect(withGuardLine(pregel, once).source).toBe(once.source);
    const other = pathToFileURL(join(root, 'node_modules/zod/index.js')).href;
    expect(withGuardLine(other, { format: 'module', source: 'export {};' }).source).toBe('export {};');
    expect(withGuardLine(pregel, { format: 'commonjs', source: 'x' }).source).toBe('x');
  });
});
