/**
 * Which modules a run audits: files named explicitly, folders (every module inside, skipping
 * `node_modules`, `dist`, `coverage` and tests), globs, negated globs (`!pattern`) and ignore patterns
 * (`--ignore`, the config's `exclude`). The same file reached twice (through a symlink, a glob and a name)
 * is loaded once, by real path.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { escapePath, glob, isDynamicPattern } from 'tinyglobby';
import { GateAuditError } from '../errors.js';

/** The extensions of modules a folder or glob yields. */
export const MODULE_EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'mjs', 'cjs'] as const;

/** What a folder never yields (relative to the folder). */
export const FOLDER_IGNORES = [
  '**/node_modules/**',
  '**/dist/**',
  '**/coverage/**',
  '**/*.test.*',
  '**/*.spec.*',
  '**/__tests__/**',
  '**/test/**',
  '**/tests/**',
  '**/gate-audit.config.*',
] as const;

/** What a glob never yields (relative to the glob's base). */
const GLOB_IGNORES = ['**/node_modules/**'] as const;

const DECLARATION = /\.d\.[cm]?ts$/;
const MODULE = new RegExp(`\\.(${MODULE_EXTENSIONS.join('|')})$`);

/** A pattern with the folder it is relative to (the working directory for arguments, the config's folder). */
export interface Pattern {
  readonly pattern: string;
  readonly base: string;
}

/** One module to load. */
export interface SelectedModule {
  readonly absolute: string;
  /** Named explicitly (not reached through a folder, a glob or `include`). */
  readonly explicit: boolean;
}

/** The modules of a run, and the patterns that matched nothing (when that is not an error). */
export interface Selection {
  readonly modules: SelectedModule[];
  readonly unmatched: string[];
  /** Every file a pattern reached, before de-duplication (inputs an output must never overwrite). */
  readonly inputs: string[];
}

/** How to select. */
export interface SelectOptions {
  /** The working directory (the base of plain string patterns). */
  readonly cwd: string;
  /** Patterns no folder or glob may yield (`--ignore`, `exclude`), each with its base. */
  readonly ignore?: readonly Pattern[];
  /** Whether a pattern that matches nothing is an error (exit 2). */
  readonly errorOnUnmatched: boolean;
  /** Whether named files are "explicit" (false for the config's `include`). */
  readonly explicitFiles?: boolean;
}

function absolutePattern(pattern: string, base: string): string {
  if (isAbsolute(pattern)) return pattern;
  const prefix = escapePath(base.replace(/\\/g, '/')).replace(/\/$/, '');
  return `${prefix}/${pattern.replace(/^\.\//, '')}`;
}

function realOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

function unmatchedError(pattern: string): GateAuditError {
  return new GateAuditError(
    'USAGE',
    `no module matches "${pattern}" | check the path or glob (quote globs so the shell leaves them), or pass --no-error-on-unmatched-pattern`,
  );
}

/**
 * Expands patterns into the modules to load, in pattern order (each glob's matches sorted).
 *
 * @param patterns - files, folders, globs and negated globs; strings are relative to `options.cwd`
 * @param options - working directory, ignores, what to do with an unmatched pattern
 * @throws GateAuditError `USAGE` for a pattern that matches nothing (unless told otherwise)
 */
export async function selectModules(
  patterns: readonly (string | Pattern)[],
  options: SelectOptions,
): Promise<Selection> {
  const all = patterns.map((p) => (typeof p === 'string' ? { pattern: p, base: options.cwd } : p));
  const negated = all.filter((p) => p.pattern.startsWith('!')).map((p) => absolutePattern(p.pattern.slice(1), p.base));
  const ignored = [...negated, ...(options.ignore ?? []).map((p) => absolutePattern(p.pattern, p.base))];
  const modules: SelectedModule[] = [];
  const byReal = new Map<string, number>();
  const unmatched: string[] = [];
  const inputs: string[] = [];
  const add = (absolute: string, explicit: boolean): void => {
    inputs.push(absolute);
    const real = realOf(absolute);
    const at = byReal.get(real);
    if (at === undefined) {
      byReal.set(real, modules.length);
      modules.push({ absolute, explicit });
    } else if (explicit && modules[at]?.explicit === false) {
      modules[at] = { absolute: modules[at].absolute, explicit: true };
    }
  };
  const miss = (pattern: string): void => {
    if (options.errorOnUnmatched) throw unmatchedError(pattern);
    unmatched.push(pattern);
  };
  for (const { pattern, base } of all) {
    if (pattern.startsWith('!')) continue;
    const absolute = isAbsolute(pattern) ? pattern : resolve(base, pattern);
    const dynamic = isDynamicPattern(pattern);
    if (!dynamic && existsSync(absolute) && !statSync(absolute).isDirectory()) {
      add(absolute, options.explicitFiles ?? true);
      continue;
    }
    if (!dynamic && !existsSync(absolute)) {
      if (options.errorOnUnmatched) {
        const shown = relative(options.cwd, absolute) || pattern;
        throw new GateAuditError('LOAD_FAILED', `cannot load "${shown}": no such file | check the path`);
      }
      unmatched.push(pattern);
      continue;
    }
    const folder = !dynamic;
    const source = folder
      ? `${absolutePattern(pattern.replace(/\/+$/, ''), base)}/**/*.{${MODULE_EXTENSIONS.join(',')}}`
      : absolutePattern(pattern, base);
    const root = folder ? absolute : base;
    const defaults = (folder ? FOLDER_IGNORES : GLOB_IGNORES).map((p) => absolutePattern(p, root));
    const matched = (await glob([source], { absolute: true, ignore: [...defaults, ...ignored], dot: false }))
      .filter((file) => MODULE.test(file) && !DECLARATION.test(file))
      .sort();
    if (matched.length === 0) {
      miss(pattern);
      continue;
    }
    for (const file of matched) add(file, false);
  }
  return { modules, unmatched, inputs };
}
