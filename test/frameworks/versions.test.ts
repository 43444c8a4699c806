/**
 * The version ranges the framework adapters were tested on (`src/frameworks/versions.ts`): semver order of release
 * versions, both ends included, prereleases and unreadable versions never tested; and the version of a package as
 * gate-audit's own imports resolve it, read from that copy's `package.json`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTestedRange, readPackageVersion } from '../../src/frameworks/versions.js';
import { root } from '../helpers/cli.js';

const range = { min: '1.4.2', max: '1.10.0' };

describe('inTestedRange', () => {
  describe('when the version is a release', () => {
    it('holds both ends and what lies between, in numeric (not text) order', () => {
      for (const version of ['1.4.2', '1.4.10', '1.9.9', '1.10.0', 'v1.5.0', ' 1.5.0 ', '1.5.0+build.7']) {
        expect(inTestedRange(version, range), version).toBe(true);
      }
    });

    it('leaves out what lies below or above, by major, minor or patch', () => {
      for (const version of ['0.9.9', '1.3.99', '1.4.1', '1.10.1', '1.11.0', '2.0.0']) {
        expect(inTestedRange(version, range), version).toBe(false);
      }
    });
  });

  describe('when the version is a prerelease or unreadable', () => {
    it('is never tested, even inside the range', () => {
      for (const version of ['1.5.0-rc.1', '1.10.0-beta', 'unknown', '', '1.5', '1.5.0.1', 'latest']) {
        expect(inTestedRange(version, range), version).toBe(false);
      }
    });
  });

  describe('when an end of the range is a prerelease or unreadable', () => {
    it('orders a prerelease end before its release, and an unreadable end tests nothing', () => {
      expect(inTestedRange('1.4.2', { min: '1.4.2-rc.1', max: '1.4.2' })).toBe(true);
      expect(inTestedRange('1.4.2', { min: '1.4.2', max: '1.4.3-rc.1' })).toBe(true);
      expect(inTestedRange('1.4.3', { min: '1.4.2', max: '1.4.3-rc.1' })).toBe(false);
      expect(inTestedRange('1.4.2', { min: 'oldest', max: '1.4.3' })).toBe(false);
      expect(inTestedRange('1.4.2', { min: '1.4.0', max: '' })).toBe(false);
    });
  });
});

describe('readPackageVersion', () => {
  describe('when the package resolves', () => {
    it("reads the version from that copy's package.json, and names the file", () => {
      for (const name of ['@langchain/langgraph', '@strands-agents/sdk']) {
        const file = join(root, 'node_modules', name, 'package.json');
        const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
        expect(readPackageVersion(name), name).toEqual({ version, file });
      }
    });
  });

  describe('when the package does not resolve', () => {
    it('says so, naming the package', () => {
      const read = readPackageVersion('gate-audit-no-such-package');
      expect(Object.keys(read)).toEqual(['error']);
      expect('error' in read ? read.error : read.version).toMatch(
        /^gate-audit-no-such-package not resolvable \(Error: /,
      );
    });
  });
});
