/**
 * Version ranges a framework adapter was tested on: semver order of release versions, both ends included.
 * Node builtins only (it is read where no framework has loaded yet).
 */

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
