/**
 * Version ranges a framework adapter was tested on (semver order of release versions, both ends included), and the
 * version of a package as gate-audit resolves it. Node builtins only (it is read where no framework has loaded yet).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A package as gate-audit resolves it: its version and the `package.json` it was read from, or why it was not. */
export type PackageRead = { readonly version: string; readonly file: string } | { readonly error: string };

/**
 * Reads the version of the copy of a package gate-audit's own imports resolve: the nearest `package.json` named
 * `name` above its entry (`unknown` when that file holds no string version).
 *
 * @param name - the package
 */
export function readPackageVersion(name: string): PackageRead {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(name);
  } catch (error) {
    return { error: `${name} not resolvable (${String(error).split('\n')[0]})` };
  }
  for (let dir = dirname(entry), up = ''; dir !== up; up = dir, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === name) return { version: typeof pkg.version === 'string' ? pkg.version : 'unknown', file };
    } catch {
      // no package.json here (or not readable): keep walking up
    }
  }
  return { error: entry };
}

interface Parsed {
  readonly core: readonly [number, number, number];
  readonly pre: string | undefined;
}

function parse(version: string): Parsed | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (match === null) return undefined;
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] };
}

/** Semver order of two parsed versions (a prerelease sorts before its release). */
function compare(a: Parsed, b: Parsed): number {
  for (let i = 0; i < 3; i++) {
    const d = (a.core[i] ?? 0) - (b.core[i] ?? 0);
    if (d !== 0) return d;
  }
  if (a.pre === b.pre) return 0;
  if (a.pre === undefined) return 1;
  if (b.pre === undefined) return -1;
  return a.pre < b.pre ? -1 : 1;
}

/**
 * Whether a version lies in a tested range, both ends included. Unreadable versions and prereleases are not tested.
 *
 * @param version - a version string
 * @param range - the lowest and highest tested version
 */
export function inTestedRange(version: string, range: { readonly min: string; readonly max: string }): boolean {
  const v = parse(version);
  const min = parse(range.min);
  const max = parse(range.max);
  if (v === undefined || min === undefined || max === undefined || v.pre !== undefined) return false;
  return compare(v, min) >= 0 && compare(v, max) <= 0;
}
