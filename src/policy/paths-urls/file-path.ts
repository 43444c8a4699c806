/**
 * File path conditions: `path: { under, notUnder, cwd, realpath, caseInsensitive }` on a string argument, a
 * shell operand or a redirection target. Paths are normalised (`.`, `..`, repeated and trailing slashes);
 * `..` is judged where it lands; `under` compares whole segments (`/workspace2` is not under `/workspace`).
 * `~` and relative paths without `cwd` are unknown. Symlinks are not resolved unless `realpath: true`,
 * which resolves the longest existing prefix at decision time.
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { and, MAYBE, NO, not, or, type Truth, YES } from '../truth.js';

/** A path condition as written in a policy. */
export interface PathSpec {
  /** The path must be one of these directories or inside one. */
  readonly under?: readonly string[];
  /** The path must be none of these directories nor inside one. */
  readonly notUnder?: readonly string[];
  /** Where relative paths are resolved; without it a relative path is unknown. */
  readonly cwd?: string;
  /** Resolve symlinks in the longest existing prefix at decision time. */
  readonly realpath?: boolean;
  /** Compare case-folded; by default detected per `under`/`notUnder` directory that exists. */
  readonly caseInsensitive?: boolean;
}

/**
 * The normal form of an absolute path: no `.` or `..` segments, no repeated or trailing slash.
 *
 * @param path - a path
 * @param cwd - where a relative path is resolved (absolute), if known
 * @returns the normal form, or `undefined` when it cannot be known (`~`, relative without `cwd`)
 */
export function normalizePath(path: string, cwd?: string): string | undefined {
  if (path === '' || path.startsWith('~')) return undefined;
  let full = path;
  if (!path.startsWith('/')) {
    if (cwd === undefined || !cwd.startsWith('/')) return undefined;
    full = `${cwd}/${path}`;
  }
  // Already normal: no empty, `.` or `..` segment (every segment that starts with a dot takes the long way).
  if (full.length > 1 && !full.endsWith('/') && !full.includes('//') && !full.includes('/.')) return full;
  const out: string[] = [];
  for (const segment of full.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

function isUnder(path: string, base: string): boolean {
  return base === '/' || path === base || path.startsWith(`${base}/`);
}

function fold(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

function toggledCase(path: string): string | undefined {
  for (let i = path.length - 1; i >= 0; i -= 1) {
    const c = path[i] ?? '';
    const other = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    if (other !== c) return path.slice(0, i) + other + path.slice(i + 1);
  }
  return undefined;
}

/** Whether the volume holding `path` (or its nearest existing parent) compares names without case. */
export function caseInsensitiveAt(path: string): boolean {
  let existing = path;
  while (!existsSync(existing) && existing !== '/') existing = dirname(existing);
  const toggled = toggledCase(existing);
  if (toggled === undefined) return false;
  try {
    const a = statSync(existing);
    const b = statSync(toggled);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

/** Resolves symlinks in the longest existing prefix of an absolute normal path. */
function resolveExisting(path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  for (let n = segments.length; n >= 0; n -= 1) {
    const prefix = `/${segments.slice(0, n).join('/')}`;
    try {
      lstatSync(prefix);
    } catch {
      continue; // try a shorter prefix
    }
    try {
      const real = realpathSync(prefix);
      const rest = segments.slice(n);
      return normalizePath(rest.length === 0 ? real : `${real}/${rest.join('/')}`);
    } catch {
      return undefined; // a dangling symlink: writing through it lands anywhere
    }
  }
  return undefined;
}

/** A compiled path condition. */
export interface PathTest {
  /**
   * The truth of the condition for a path.
   *
   * @param path - the path as written, `undefined` when not known
   * @param cwdUnknown - the command changed directory, so a relative path is unknown
   */
  test(path: string | undefined, cwdUnknown?: boolean): Truth;
}

/**
 * Compiles a path condition.
 *
 * @param spec - the condition as written (validated by the schema: absolute `under`, `notUnder` and `cwd`)
 */
export function compilePath(spec: PathSpec): PathTest {
  const under = (spec.under ?? []).map((p) => normalizePath(p) ?? p);
  const notUnder = (spec.notUnder ?? []).map((p) => normalizePath(p) ?? p);
  const insensitive = spec.caseInsensitive ?? [...under, ...notUnder].some((p) => caseInsensitiveAt(p));
  const key = insensitive ? fold : (p: string): string => p;
  const underKeys = under.map(key);
  const notUnderKeys = notUnder.map(key);
  return {
    test(path, cwdUnknown = false) {
      if (path === undefined) return MAYBE;
      if (cwdUnknown && !path.startsWith('/')) return MAYBE;
      let normal = normalizePath(path, spec.cwd);
      if (normal === undefined) return MAYBE;
      if (spec.realpath === true) {
        normal = resolveExisting(normal);
        if (normal === undefined) return MAYBE;
      }
      const p = key(normal);
      let result: Truth = YES;
      if (underKeys.length > 0) result = and(result, underKeys.some((b) => isUnder(p, b)) ? YES : NO);
      if (notUnderKeys.length > 0) {
        result = and(result, not(notUnderKeys.reduce<Truth>((t, b) => or(t, isUnder(p, b) ? YES : NO), NO)));
      }
      return result;
    },
  };
}
