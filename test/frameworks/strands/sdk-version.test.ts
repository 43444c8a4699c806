/**
 * Which `@strands-agents/sdk` this process runs and the range gate-audit was tested on
 * (`src/frameworks/strands/sdk-version.ts`): one `{ min, max }` in the source, matched by `package.json` and
 * `docs/compatibility.md`, and a version read that tests replace at one point only.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  isTestedSdk,
  SDK_TESTED,
  sdkVersion,
  setSdkVersionReader,
  testedRange,
} from '../../../src/frameworks/strands/sdk-version.js';
import { root } from '../../helpers/cli.js';

const RANGE = `>=${SDK_TESTED.min} <=${SDK_TESTED.max}`;
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
  version: string;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('SDK_TESTED (the tested range)', () => {
  describe('when compared with package.json and the docs', () => {
    it('is one { min, max } in the source; the peer range starts at its min and stays below 2.0.0', () => {
      expect(pkg.peerDependencies['@strands-agents/sdk']).toBe(`>=${SDK_TESTED.min} <2.0.0`);
      expect(isTestedSdk(SDK_TESTED.min)).toBe(true);
      expect(isTestedSdk(SDK_TESTED.max)).toBe(true);
    });

    it("ends at the lock's dev version of the SDK (the newest the suite runs on), and docs/compatibility.md states both ranges", () => {
      expect(pkg.devDependencies['@strands-agents/sdk']).toBe(SDK_TESTED.max);
      const readme = readFileSync(`${root}/docs/compatibility.md`, 'utf8');
      expect(readme).toContain(`\`@strands-agents/sdk ${pkg.peerDependencies['@strands-agents/sdk']}\``);
      expect(readme).toContain(`tested range** is \`${RANGE}\``);
    });

    it('is written as testedRange() says it, both ends included', () => {
      expect(testedRange()).toBe(RANGE);
    });
  });

  describe('when a version is outside it', () => {
    it('leaves out older, newer, prerelease and unreadable versions', () => {
      for (const version of ['1.10.0', '1.11.1', '1.19.1', '1.20.0', '2.0.0', '1.19.0-rc.1', 'unknown', '']) {
        expect(isTestedSdk(version), version).toBe(false);
      }
    });
  });
});

describe('sdkVersion', () => {
  describe('when the version read is replaced, then restored', () => {
    it('answers the replacement, then the installed copy again, read from its package.json', () => {
      const installed = sdkVersion();
      expect(installed.version).toMatch(/^1\.\d+\.\d+$/);
      expect(installed.where).toMatch(/node_modules[\\/]@strands-agents[\\/]sdk[\\/]package\.json$/);
      try {
        setSdkVersionReader(() => ({ version: '1.25.0', where: '(simulated by the test)' }));
        expect(sdkVersion()).toEqual({ version: '1.25.0', where: '(simulated by the test)' });
      } finally {
        setSdkVersionReader();
      }
      expect(sdkVersion()).toEqual(installed);
    });
  });
});
