/**
 * `path` conditions (`src/policy/paths-urls/file-path.ts`): normalisation and the three-valued answer (a path that
 * cannot be known holds for deny and never for allow), each case written with the answer a careful reader expects.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caseInsensitiveAt, compilePath, normalizePath } from '../../../src/policy/paths-urls/file-path.js';
import { MAYBE, NO, YES } from '../../../src/policy/truth.js';
import { gate, verdictOf } from '../../helpers/conditions.js';

describe('path conditions (compilePath)', () => {
  const under = compilePath({ under: ['/workspace'], caseInsensitive: false });
  const withCwd = compilePath({ under: ['/workspace'], cwd: '/workspace/app', caseInsensitive: false });
  const notUnder = compilePath({ notUnder: ['/workspace/.git', '/etc'], caseInsensitive: false });
  // [path, under /workspace, under /workspace with cwd /workspace/app, notUnder /workspace/.git and /etc]
  const cases: [string, number, number, number][] = [
    ['/workspace', YES, YES, YES],
    ['/workspace/', YES, YES, YES],
    ['/workspace/a.txt', YES, YES, YES],
    ['/workspace//a.txt', YES, YES, YES],
    ['/workspace/./a.txt', YES, YES, YES],
    ['/workspace/src/../a.txt', YES, YES, YES],
    ['/workspace/../etc/passwd', NO, NO, NO],
    ['/workspace/../../../../etc/passwd', NO, NO, NO],
    ['/workspace/..', NO, NO, YES],
    ['/workspace2', NO, NO, YES],
    ['/workspace2/a', NO, NO, YES],
    ['/work', NO, NO, YES],
    ['/workspacex/../workspace/a', YES, YES, YES],
    ['//workspace/a', YES, YES, YES],
    ['/./workspace/a', YES, YES, YES],
    ['/../workspace/a', YES, YES, YES],
    ['/', NO, NO, YES],
    ['/etc', NO, NO, NO],
    ['/etc/', NO, NO, NO],
    ['/etc/passwd', NO, NO, NO],
    ['/etcetera', NO, NO, YES],
    ['/workspace/.git', YES, YES, NO],
    ['/workspace/.git/config', YES, YES, NO],
    ['/workspace/.github/x', YES, YES, YES],
    ['/workspace/.git/../src', YES, YES, YES],
    ['a.txt', MAYBE, YES, MAYBE],
    ['./a.txt', MAYBE, YES, MAYBE],
    ['../a.txt', MAYBE, YES, MAYBE],
    ['../../etc/passwd', MAYBE, NO, MAYBE],
    ['../../../etc', MAYBE, NO, MAYBE],
    ['src/../../x', MAYBE, YES, MAYBE],
    ['~', MAYBE, MAYBE, MAYBE],
    ['~/x', MAYBE, MAYBE, MAYBE],
    ['~root/x', MAYBE, MAYBE, MAYBE],
    ['', MAYBE, MAYBE, MAYBE],
    ['/workspace/a b', YES, YES, YES],
    ['/workspace/\n', YES, YES, YES],
    ['/workspace/ü', YES, YES, YES],
    ['/Workspace/a', NO, NO, YES],
    ['/WORKSPACE', NO, NO, YES],
    ['/workspace/a/../../workspace/b', YES, YES, YES],
    ['/workspace/a/../../etc', NO, NO, NO],
    ['/etc/../workspace', YES, YES, YES],
    ['/tmp/../etc/../workspace/./x', YES, YES, YES],
    ['/proc/self/root/etc/passwd', NO, NO, YES],
    ['/workspace/.git.bak', YES, YES, YES],
    ['/workspace/x/.git', YES, YES, YES],
    ['.', MAYBE, YES, MAYBE],
    ['..', MAYBE, YES, MAYBE],
    ['.git/config', MAYBE, YES, MAYBE],
  ];

  describe('when a path is judged under a base, with a cwd, or not under one', () => {
    it('has at least 50 cases', () => expect(cases.length).toBeGreaterThanOrEqual(50));

    it.each(cases)('%j: under %d, with cwd %d, notUnder %d', (path, u, c, n) => {
      expect(under.test(path)).toBe(u);
      expect(withCwd.test(path)).toBe(c);
      expect(notUnder.test(path)).toBe(n);
    });

    it('treats a relative path as unknown when the line changed directory, even with cwd', () => {
      expect(withCwd.test('a.txt', true)).toBe(MAYBE);
      expect(withCwd.test('/workspace/a.txt', true)).toBe(YES);
    });
  });

  describe('when a path is normalised', () => {
    it('normalises', () => {
      expect(normalizePath('/a/b/../../../c/./d//')).toBe('/c/d');
      expect(normalizePath('x', '/w')).toBe('/w/x');
      expect(normalizePath('x')).toBeUndefined();
    });
  });

  describe('when realpath: true', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-audit-realpath-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'workspace'));
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'outside'), join(dir, 'workspace', 'escape'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'workspace', 'dangling'));

    it('judges a symlink where it points, and a dangling one as unknown', () => {
      const real = compilePath({ under: [join(dir, 'workspace')], realpath: true, caseInsensitive: false });
      const lexical = compilePath({ under: [join(dir, 'workspace')], caseInsensitive: false });
      expect(lexical.test(join(dir, 'workspace/escape/x'))).toBe(YES);
      expect(real.test(join(dir, 'workspace/escape/x'))).toBe(NO);
      expect(real.test(join(dir, 'workspace/new/file'))).toBe(YES);
      expect(real.test(join(dir, 'workspace/dangling'))).toBe(MAYBE);
    });
  });

  // Needs a case-sensitive temporary directory (it builds both spellings of names there).
  describe.skipIf(caseInsensitiveAt(tmpdir()))('when the case is detected from the volume, unless told', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-audit-case-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // This volume is case-sensitive; `dataX` standing in for its case-toggled twin `datax` makes `datax` look like
    // a directory of a case-insensitive volume (the same file under both spellings).
    mkdirSync(join(dir, 'datax'));
    symlinkSync(join(dir, 'datax'), join(dir, 'dataX'));
    mkdirSync(join(dir, 'plain'));
    mkdirSync(join(dir, 'twin'));
    mkdirSync(join(dir, 'twiN'));

    it('a directory whose case-toggled name is the same file is compared folded', () => {
      expect(caseInsensitiveAt(join(dir, 'datax'))).toBe(true);
      expect(caseInsensitiveAt(join(dir, 'datax', 'not', 'yet'))).toBe(true);
      const detected = compilePath({ under: [join(dir, 'datax')] });
      expect(detected.test(join(dir, 'DATAX', 'secret'))).toBe(YES);
    });

    it('one where it is not, or whose name has no letter to toggle, is compared exactly', () => {
      expect(caseInsensitiveAt(join(dir, 'plain'))).toBe(false);
      // Both spellings exist, as two different directories.
      expect(caseInsensitiveAt(join(dir, 'twin'))).toBe(false);
      expect(caseInsensitiveAt('/')).toBe(false);
      const exact = compilePath({ under: [join(dir, 'plain')] });
      expect(exact.test(join(dir, 'PLAIN', 'secret'))).toBe(NO);
      expect(exact.test(join(dir, 'plain', 'secret'))).toBe(YES);
    });
  });

  describe('when the base is "/", or there are several', () => {
    it('under "/" holds for every absolute path; several bases: any of them', () => {
      const root = compilePath({ under: ['/'], caseInsensitive: false });
      expect(root.test('/etc/passwd')).toBe(YES);
      expect(root.test('/')).toBe(YES);
      const two = compilePath({ under: ['/a', '/b'], caseInsensitive: false });
      expect(two.test('/b/x')).toBe(YES);
      expect(two.test('/a')).toBe(YES);
      expect(two.test('/ab')).toBe(NO);
      const notTwo = compilePath({ notUnder: ['/a', '/b'], caseInsensitive: false });
      expect(notTwo.test('/b/x')).toBe(NO);
      expect(notTwo.test('/c')).toBe(YES);
    });
  });

  describe('when told the volume is case-insensitive', () => {
    it('compares folded on a case-insensitive volume when told to', () => {
      const folded = compilePath({ under: ['/workspace'], caseInsensitive: true });
      expect(folded.test('/WorkSpace/a')).toBe(YES);
    });
  });

  describe('when used in a policy', () => {
    it('in a policy: unknown denies and never allows', () => {
      const deny = gate('deny', { arg: 'path', path: { under: ['/etc'] } });
      const allow = gate('allow', { arg: 'path', path: { under: ['/workspace'] } });
      expect(verdictOf(deny, { path: 'x' })).toBe('deny');
      expect(verdictOf(allow, { path: 'x' })).toBe('deny');
      expect(verdictOf(deny, { path: '/workspace/../etc/shadow' })).toBe('deny');
      expect(verdictOf(allow, { path: '/workspace/../etc/shadow' })).toBe('deny');
      expect(verdictOf(allow, { path: '/workspace/a' })).toBe('allow');
    });
  });
});
