/**
 * Finding and reading the configuration: `gate-audit.config.{ts,mjs,js}` (default export),
 * `gate-audit.config.json`, or the `"gate-audit"` key of `package.json`, from the working directory upwards
 * (the first folder holding one wins; two in one folder is an error), or the file `--config` names.
 * Every problem is one line naming the file and the field; an unknown key gets a "did you mean".
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { AcceptEntrySchema, ConfigSchema, ProcessGuardConfigSchema, ReporterSchema } from '../config.js';
import { GateAuditError, messageOf } from '../errors.js';
import { didYouMean } from './did-you-mean.js';
import { readExports } from './exports.js';

/** The configuration after validation. */
export type Config = z.output<typeof ConfigSchema>;

/** The configuration of a run, and where it came from. */
export interface LoadedConfig {
  readonly config: Config;
  /** The file it was read from (absolute), or undefined when there is none. */
  readonly file?: string;
  /** The file as shown in messages (`package.json#gate-audit` for the key). */
  readonly shown?: string;
  /** The folder paths in it are relative to: the file's folder, or the working directory. */
  readonly dir: string;
  /** Things that are allowed but probably not meant (bare factory names). */
  readonly warnings: string[];
}

/** An invalid configuration, with the reporters it names when those are valid. */
export class InvalidConfigError extends GateAuditError {
  /** The configuration's reporters, when they could be read. */
  reporters?: z.output<typeof ReporterSchema>[];
  /** The folder their files are relative to. */
  dir?: string;

  /** @param message - one line per problem */
  constructor(message: string) {
    super('USAGE', message);
    this.name = 'InvalidConfigError';
  }
}

/** The config file names, in the order they are looked for in one folder. */
export const CONFIG_FILES = [
  'gate-audit.config.ts',
  'gate-audit.config.mjs',
  'gate-audit.config.js',
  'gate-audit.config.json',
] as const;

const PACKAGE_KEY = 'gate-audit';

interface Candidate {
  readonly file: string;
  readonly packageKey: boolean;
}

function packageHasKey(file: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof pkg === 'object' && pkg !== null && Object.hasOwn(pkg, PACKAGE_KEY);
  } catch {
    return false;
  }
}

function candidatesIn(dir: string): Candidate[] {
  const found: Candidate[] = CONFIG_FILES.map((name) => join(dir, name))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, packageKey: false }));
  const pkg = join(dir, 'package.json');
  if (existsSync(pkg) && packageHasKey(pkg)) found.push({ file: pkg, packageKey: true });
  return found;
}

/**
 * Finds the configuration from `cwd` upwards.
 *
 * @param cwd - where to start
 * @returns the file and whether it is `package.json`'s key, or undefined when no folder up to the root has one
 * @throws GateAuditError `USAGE` when one folder holds two configurations
 */
export function findConfig(cwd: string): Candidate | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const found = candidatesIn(dir);
    if (found.length > 1) {
      const names = found.map((c) => (c.packageKey ? `package.json#${PACKAGE_KEY}` : basename(c.file)));
      throw new GateAuditError(
        'USAGE',
        `config=<${relative(cwd, dir) || '.'}> | two configurations in one folder: ${names.join(' and ')} | keep one`,
      );
    }
    if (found[0] !== undefined) return found[0];
    if (dirname(dir) === dir) return undefined;
  }
}

function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

function knownKeysAt(path: readonly PropertyKey[]): string[] {
  if (path.length === 0) return Object.keys(ConfigSchema.shape);
  if (path[0] === 'reporters' && path.length === 2) return Object.keys(ReporterSchema.shape);
  if (path[0] === 'accept' && path.length === 2) return Object.keys(AcceptEntrySchema.shape);
  if (path[0] === 'processGuard' && path.length === 1) return Object.keys(ProcessGuardConfigSchema.shape);
  return [];
}

function issueLines(shown: string, issues: readonly z.core.$ZodIssue[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(issue.path);
      for (const key of issue.keys) {
        const hint = didYouMean(key, known);
        lines.push(
          `config=<${shown}>, field=<${fieldOf([...issue.path, key])}> | unknown key${hint === '' ? ` | known keys: ${known.join(', ')}` : hint}`,
        );
      }
      continue;
    }
    let message = issue.message;
    if (issue.path[0] === 'factories' && issue.code === 'invalid_union') {
      message =
        'expected a list of "module#export" names, or a record from such names to lists of argument lists ({ "src/app.ts#build": [["tenant-a"]] })';
    } else if (issue.code === 'invalid_type' && issue.path.length === 0) {
      message = `expected an object of settings, got ${typeof issue.input === 'object' ? 'null or an array' : typeof issue.input}`;
    }
    lines.push(`config=<${shown}>, field=<${fieldOf(issue.path)}> | ${message}`);
  }
  return lines;
}

/**
 * Validates a configuration object.
 *
 * @param raw - what the file holds
 * @param shown - the file as shown in messages
 * @throws GateAuditError `USAGE` with one line per problem
 */
export function parseConfig(raw: unknown, shown: string): { config: Config; warnings: string[] } {
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const error = new InvalidConfigError(issueLines(shown, parsed.error.issues).join('\n'));
    // The reporters it names, when they are valid themselves: a failed run still writes its SARIF file there.
    const reporters = z
      .array(ReporterSchema)
      .safeParse(typeof raw === 'object' && raw !== null ? (raw as { reporters?: unknown }).reporters : undefined);
    if (reporters.success) error.reporters = reporters.data;
    throw error;
  }
  const config = parsed.data;
  const warnings: string[] = [];
  const names = Array.isArray(config.factories) ? config.factories : Object.keys(config.factories ?? {});
  names.forEach((name, i) => {
    if (!name.includes('#')) {
      const field = Array.isArray(config.factories) ? `factories[${i}]` : `factories.${name}`;
      warnings.push(
        `config=<${shown}>, field=<${field}> | "${name}" names no module, so it is called in every module that exports it | write "path/to/module.ts#${name}"`,
      );
    }
  });
  return { config, warnings };
}

/**
 * Reads the configuration of a run.
 *
 * @param options - the working directory, the file `--config` names, the import timeout, the noise sink
 * @returns the configuration (empty when there is no file)
 * @throws GateAuditError `USAGE` for a configuration that cannot be read or is invalid
 */
export async function loadConfig(options: {
  readonly cwd: string;
  readonly file?: string;
  readonly timeoutMs: number;
  readonly noise: (chunk: string) => void;
  /**
   * Reads a configuration module's default export elsewhere (the CLI: in an audit child); by default the
   * module is imported in this process.
   */
  readonly readModule?: (file: string) => Promise<{ raw: unknown; hasDefault: boolean }>;
}): Promise<LoadedConfig> {
  let candidate: Candidate | undefined;
  if (options.file !== undefined) {
    const file = isAbsolute(options.file) ? options.file : resolve(options.cwd, options.file);
    if (!existsSync(file)) {
      throw new GateAuditError('USAGE', `config=<${options.file}> | no such file | check the --config path`);
    }
    candidate = { file, packageKey: basename(file) === 'package.json' };
  } else {
    candidate = findConfig(options.cwd);
  }
  if (candidate === undefined) return { config: {}, dir: options.cwd, warnings: [] };
  const { file } = candidate;
  const shown = `${relative(options.cwd, file) || basename(file)}${candidate.packageKey ? `#${PACKAGE_KEY}` : ''}`;
  let raw: unknown;
  if (file.endsWith('.json')) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new GateAuditError('USAGE', `config=<${shown}> | invalid JSON: ${messageOf(error)} | fix the JSON`);
    }
    if (candidate.packageKey) {
      if (typeof json !== 'object' || json === null || !Object.hasOwn(json, PACKAGE_KEY)) {
        throw new GateAuditError('USAGE', `config=<${shown}> | package.json has no "${PACKAGE_KEY}" key | add it`);
      }
      raw = (json as Record<string, unknown>)[PACKAGE_KEY];
    } else {
      raw = json;
    }
  } else {
    try {
      if (options.readModule !== undefined) {
        raw = (await options.readModule(file)).raw ?? undefined;
      } else {
        // Loaded here: it loads the SDK, which commands that only report a bad config (failure.ts) never need.
        const { importModule } = await import('./load.js');
        const namespace = (await importModule(file, shown, options)).exports;
        raw = readExports(namespace).find((e) => e.name === 'default')?.value;
      }
    } catch (error) {
      throw new GateAuditError(
        'USAGE',
        `config=<${shown}> | ${messageOf(error).replace(/^cannot load "[^"]*": /, 'cannot load: ')}`,
        {
          cause: error,
        },
      );
    }
    if (raw === undefined) {
      throw new GateAuditError(
        'USAGE',
        `config=<${shown}> | it has no default export | export default { include: […] }`,
      );
    }
  }
  let parsed: { config: Config; warnings: string[] };
  try {
    parsed = parseConfig(raw, shown);
  } catch (error) {
    if (error instanceof InvalidConfigError) error.dir = dirname(file);
    throw error;
  }
  const { config, warnings } = parsed;
  return { config, file, shown, dir: dirname(file), warnings };
}
