/**
 * The line the process guard's loader hooks append to a framework module: it hands the module's namespace (or a
 * CommonJS module's exports) to the guard, and throws, naming the module, where no guard takes it (a copy is never
 * loaded unguarded). Nothing a hook writes into a source makes it skip the line.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardLine, withGuardLine } from '../../src/enforce/guard-hooks.js';
import { GUARD_MODULE_KEY } from '../../src/walker/marks.js';
import { root } from '../helpers/cli.js';

const scratch = join(root, 'test/.generated/guard-line');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const pregel = pathToFileURL(join(root, 'node_modules/@langchain/langgraph/dist/pregel/index.js')).href;

/** Writes a module into the scratch folder; returns its file and URL. */
function moduleFile(name: string, text: string): { file: string; url: string } {
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, name);
  writeFileSync(file, text);
  return { file, url: pathToFileURL(file).href };
}

describe('guardLine', () => {
  describe('when no guard is loaded', () => {
    it("throws at the module's evaluation, naming the module and the fix", async () => {
      const { file, url } = moduleFile("it's-a-module.mjs", '');
      writeFileSync(file, `export const value = 1;${guardLine(url)}`);
      await expect(import(url)).rejects.toThrow(
        `gate-audit: the process guard is not loaded, so ${url} cannot be guarded | import gate-audit before the framework`,
      );
    });
  });

  describe('when a guard takes what the line hands over', () => {
    const taken: [unknown, string][] = [];
    const key = Symbol.for(GUARD_MODULE_KEY);
    beforeAll(() => {
      Object.defineProperty(globalThis, key, {
        value: (namespace: unknown, url: string) => void taken.push([namespace, url]),
        configurable: true,
      });
    });
    afterAll(() => {
      Reflect.deleteProperty(globalThis, key);
    });

    it('an ES module with the line appended twice (hooks registered twice) evaluates, and is handed over twice', async () => {
      const { file, url } = moduleFile('twice.mjs', '');
      const once = withGuardLine(url.replace('twice.mjs', 'x'), { format: 'module', source: 'export const v = 1;' });
      expect(once.source).toBe('export const v = 1;'); // not a framework module: unchanged
      let source = 'export const v = 1;';
      source = `${source}${guardLine(url, source)}`;
      source = `${source}${guardLine(url, source)}`;
      writeFileSync(file, source);
      const namespace: unknown = await import(url);
      expect(taken.filter(([, at]) => at === url).map(([ns]) => ns)).toEqual([namespace, namespace]);
    });

    it('a CommonJS module compiled from a source a hook gave hands its exports over', () => {
      const cjs = pregel.replace(/\.js$/, '.cjs');
      const result = withGuardLine(cjs, { format: 'commonjs', source: 'module.exports = { Pregel: 1 };' });
      const { file } = moduleFile('hooked.cjs', String(result.source));
      const exports: unknown = createRequire(file)(file);
      expect(taken).toContainEqual([exports, cjs]);
    });
  });
});

describe('withGuardLine', () => {
  describe('when a loader hook hands it a module and its source', () => {
    it("appends the line to a framework module's source, whatever the source says, and to nothing else", () => {
      const once = withGuardLine(pregel, { format: 'module', source: 'export {};' });
      expect(once.source).toBe(`export {};${guardLine(pregel, 'export {};')}`);
      // A source that claims to carry the line (a comment a hook can write) gets it all the same.
      const claimed = 'export {};\n/* gate-audit: process guard */';
      expect(withGuardLine(pregel, { format: 'module', source: claimed }).source).toContain(`take(`);
      const again = String(withGuardLine(pregel, once).source);
      const bindings = again.match(/import \* as __gateAuditGuardNamespace\d+/g) ?? [];
      expect(bindings).toHaveLength(2);
      expect(new Set(bindings).size).toBe(2);
      const other = pathToFileURL(join(root, 'node_modules/zod/index.js')).href;
      expect(withGuardLine(other, { format: 'module', source: 'export {};' }).source).toBe('export {};');
      expect(withGuardLine(pregel, { format: 'json', source: '{}' }).source).toBe('{}');
      expect(withGuardLine(pregel, { format: 'commonjs', source: null }).source).toBeNull();
    });
  });
});
