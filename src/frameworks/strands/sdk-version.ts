/**
 * Which `@strands-agents/sdk` this process runs, and whether gate-audit was tested on it.
 *
 * The peer range (`package.json`) lets an app install any 1.x from the oldest version the suite passes on;
 * the tested range below is narrower: the versions the CI matrix ran the whole suite on. Outside it
 * gate-audit still runs, after one warning line and a behavioural self-test (`sdk-check.ts`).
 */
import { inTestedRange, readPackageVersion } from '../versions.js';

/** The SDK versions the whole suite ran on, both ends included (`npm run sdk-matrix` runs every minor). */
export const SDK_TESTED: { readonly min: string; readonly max: string } = Object.freeze({
  min: '1.11.2',
  max: '1.19.0',
});

/** The tested range as text, e.g. `>=1.11.2 <=1.19.0`. */
export function testedRange(): string {
  return `>=${SDK_TESTED.min} <=${SDK_TESTED.max}`;
}

/** The SDK copy gate-audit loaded: its version and the `package.json` it was read from. */
export interface SdkVersion {
  /** The version string, or `unknown` when it could not be read. */
  readonly version: string;
  /** Where it was found (the SDK's `package.json`), or why it was not. */
  readonly where: string;
}

/** Reads the version of the SDK copy this module resolves (the copy gate-audit's own imports load). */
function readInstalledSdk(): SdkVersion {
  // The SDK's exports carry a `default` condition, so this resolves the same folder as gate-audit's imports.
  const read = readPackageVersion('@strands-agents/sdk');
  if ('error' in read) {
    return { version: 'unknown', where: read.error };
  }
  return { version: read.version, where: read.file };
}

let reader: () => SdkVersion = readInstalledSdk;
let cached: SdkVersion | undefined;

/** The SDK version this process runs (read once). */
export function sdkVersion(): SdkVersion {
  cached ??= reader();
  return cached;
}

/**
 * Replaces the version read, for tests only: the one injection point for simulating another SDK version
 * (the real package is never changed). Pass nothing to restore the real read.
 *
 * @param replacement - returns the version to pretend
 */
export function setSdkVersionReader(replacement?: () => SdkVersion): void {
  reader = replacement ?? readInstalledSdk;
  cached = undefined;
}

/**
 * Whether `version` lies in the tested range. Unreadable versions and prereleases are not tested.
 *
 * @param version - an SDK version string
 */
export function isTestedSdk(version: string): boolean {
  return inTestedRange(version, SDK_TESTED);
}
