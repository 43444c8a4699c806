/**
 * How the process guard tells LangGraph's `Pregel` module among a copy's files (`src/frameworks/langgraph/package.ts`):
 * by its package and its place in the package, in its ESM and CommonJS builds, under any URL that names its file.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isPregelModuleUrl } from '../../../src/frameworks/langgraph/package.js';

const require = createRequire(import.meta.url);

describe('isPregelModuleUrl', () => {
  describe('when given the modules of the installed packages', () => {
    it("tells the module that defines Pregel, in its ESM and CommonJS builds, from the package's others", () => {
      const cjs = require.resolve('@langchain/langgraph/pregel');
      expect(cjs).toMatch(/pregel[\\/]index\.cjs$/);
      expect(isPregelModuleUrl(pathToFileURL(cjs).href)).toBe(true);
      expect(isPregelModuleUrl(pathToFileURL(cjs.replace(/\.cjs$/, '.js')).href)).toBe(true);
      expect(isPregelModuleUrl(pathToFileURL(require.resolve('@langchain/langgraph')).href)).toBe(false);
      expect(isPregelModuleUrl(pathToFileURL(require.resolve('langchain')).href)).toBe(false);
      expect(isPregelModuleUrl('node:fs')).toBe(false);
    });
  });

  describe('when the URL spells the Pregel file another way', () => {
    it('tells it under any URL that names its file: an empty or dot segment, a query, another scheme', () => {
      const esm = pathToFileURL(require.resolve('@langchain/langgraph/pregel').replace(/\.cjs$/, '.js')).href;
      for (const url of [
        esm.replace('/dist/pregel/', '/dist//pregel/'),
        esm.replace('/dist/pregel/', '/dist/./pregel/'),
        `${esm}?copy=2`,
        `${esm}#x`,
        esm.replace('/pregel/', '/%70regel/'),
        esm.replace('file:', 'x-copy:'),
      ]) {
        expect(isPregelModuleUrl(url), url).toBe(true);
      }
      expect(isPregelModuleUrl('data:text/javascript,export const Pregel = 1;')).toBe(false);
    });
  });
});
