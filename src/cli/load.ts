/**
 * Loading a user's module and finding its orchestrators: exported Graph/Swarm instances, and exported
 * zero-argument functions (sync or async) that return one. Recognition is by shape, not `instanceof`,
 * because the module may load its own copy of the SDK (the walker then reports the mismatch).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { createJiti } from 'jiti';
import { glob, isDynamicPattern } from 'tinyglobby';
import { GateAuditError } from '../errors.js';

/** One orchestrator found in a module. */
export interface FoundOrchestrator {
  /** The module path as given, relative to the working directory. */
  readonly module: string;
  /** The export name (`default` for a default export). */
  readonly exportName: string;
  /** True when the export is a factory that was called. */
  readonly factory: boolean;
  /** The Graph or Swarm. */
  readonly orchestrator: unknown;
}

/** How to load modules. */
export interface LoadOptions {
  /** Only this export. */
  readonly exportName?: string;
  /** How long a factory may take, in milliseconds. */
  readonly timeoutMs: number;
  /** The working directory paths are relative to. */
  readonly cwd: string;
  /** Where the module's own stdout output goes while it loads (never the report's stdout). */
  readonly noise: (chunk: string) => void;
}

/** Whether a value is shaped like a Strands Graph or Swarm (from any copy of the SDK). */
export function isOrchestratorLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return (name === 'Graph' || name === 'Swarm') && (value as { nodes?: unknown }).nodes instanceof Map;
}

function isFactoryCandidate(value: unknown): value is () => unknown {
  if (typeof value !== 'function' || value.length !== 0) return false;
  return !/^class[\s{]/.test(Function.prototype.toString.call(value));
}

function loadError(module: string, what: string, fix: string, cause?: unknown): GateAuditError {
  return new GateAuditError('LOAD_FAILED', `cannot load "${module}": ${what} | ${fix}`, { cause });
}

/** Describes a load error in one line: `SyntaxError at graph.ts:3:7: …` for a parse error, else `Name: message`. */
function describeLoadError(error: unknown, cwd: string): string {
  if (!(error instanceof Error)) return String(error);
  const first = (error.message.split('\n')[0] ?? '').trim();
  const parse = /^(ParseError|SyntaxError):\s*/.exec(first) ?? (error.name === 'SyntaxError' ? [''] : null);
  if (parse === null) return `${error.name}: ${first}`;
  const at = /(\S+\.[cm]?[jt]sx?):(\d+):(\d+)/.exec(error.message);
  const detail = first
    .slice(parse[0].length)
    .replace(at?.[0] ?? '\0', '')
    .trim();
  const where = at === null ? '' : ` at ${relative(cwd, at[1]!.replace(/^file:\/\//, ''))}:${at[2]}:${at[3]}`;
  return `SyntaxError${where}${detail === '' ? '' : `: ${detail}`}`;
}

/** Runs `work` with the process's stdout diverted to `noise`, so module output cannot corrupt a report. */
async function withStdoutDiverted<T>(noise: (chunk: string) => void, work: () => Promise<T>): Promise<T> {
  const stdout = process.stdout;
  const own = Object.getOwnPropertyDescriptor(stdout, 'write');
  const divert = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    noise(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = rest.find((r): r is () => void => typeof r === 'function');
    callback?.();
    return true;
  };
  const logs = { log: console.log, info: console.info, debug: console.debug };
  const toNoise = (...args: unknown[]): void =>
    noise(`${args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ')}\n`);
  Object.defineProperty(stdout, 'write', { value: divert, configurable: true, writable: true });
  Object.assign(console, { log: toNoise, info: toNoise, debug: toNoise });
  try {
    return await work();
  } finally {
    Object.assign(console, logs);
    if (own === undefined) delete (stdout as { write?: unknown }).write;
    else Object.defineProperty(stdout, 'write', own);
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Loads one module and returns its orchestrators.
 *
 * @param file - the module path, relative to `options.cwd` or absolute
 * @param options - export filter, factory timeout, working directory, noise sink
 * @throws GateAuditError `LOAD_FAILED` when the module is missing, fails to load, or a factory throws or hangs;
 *   `NO_ORCHESTRATOR` when it exports none
 */
export async function loadOrchestrators(file: string, options: LoadOptions): Promise<FoundOrchestrator[]> {
  const absolute = isAbsolute(file) ? file : resolve(options.cwd, file);
  const shown = relative(options.cwd, absolute) || file;
  if (!existsSync(absolute)) throw loadError(shown, 'no such file', 'check the path');
  const jiti = createJiti(pathToFileURL(absolute).href, { tsconfigPaths: true, moduleCache: true });
  const namespace = await withStdoutDiverted(options.noise, async () => {
    try {
      return await jiti.import<Record<string, unknown>>(absolute);
    } catch (error) {
      throw loadError(shown, describeLoadError(error, options.cwd), 'fix the module or pass --export', error);
    }
  });
  const names = Object.keys(namespace).filter(
    (name) => options.exportName === undefined || name === options.exportName,
  );
  if (options.exportName !== undefined && names.length === 0) {
    throw new GateAuditError(
      'NO_ORCHESTRATOR',
      `cannot audit "${shown}": it has no export "${options.exportName}" | exports are: ${Object.keys(namespace).join(', ') || '(none)'}`,
    );
  }
  const found: FoundOrchestrator[] = [];
  const seen = new Set<unknown>();
  for (const name of names) {
    const value = namespace[name];
    if (isOrchestratorLike(value) && !seen.has(value)) {
      seen.add(value);
      found.push({ module: shown, exportName: name, factory: false, orchestrator: value });
    }
  }
  // Factories run user code: call them only when the module exports no instance, or when --export names one.
  const factories = found.length === 0 ? names.filter((name) => isFactoryCandidate(namespace[name])) : [];
  for (const name of factories) {
    const value = namespace[name] as () => unknown;
    const built = await withStdoutDiverted(options.noise, async () => {
      try {
        return await withTimeout(Promise.resolve().then(value), options.timeoutMs, () =>
          loadError(
            shown,
            `factory "${name}" did not return within ${options.timeoutMs} ms`,
            'make it return, or raise --timeout',
          ),
        );
      } catch (error) {
        if (error instanceof GateAuditError) throw error;
        throw loadError(
          shown,
          `factory "${name}" threw ${describeLoadError(error, options.cwd)}`,
          'fix the factory or pass --export',
          error,
        );
      }
    });
    if (isOrchestratorLike(built) && !seen.has(built)) {
      seen.add(built);
      found.push({ module: shown, exportName: name, factory: true, orchestrator: built });
    }
  }
  if (found.length === 0) {
    throw new GateAuditError(
      'NO_ORCHESTRATOR',
      `cannot audit "${shown}": it exports no Graph or Swarm, nor a zero-argument function returning one | ` +
        'export the orchestrator (or a factory), or pass --export <name>',
    );
  }
  return found;
}

/** Expands globs (quoted, so the shell leaves them) into module paths, sorted; plain paths pass through. */
async function expand(patterns: readonly string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (!isDynamicPattern(pattern)) {
      files.push(pattern);
      continue;
    }
    const matched = (await glob(pattern, { cwd, ignore: ['**/node_modules/**'] })).sort();
    if (matched.length === 0)
      throw new GateAuditError('USAGE', `no module matches "${pattern}" | check the glob and quote it`);
    files.push(...matched);
  }
  return files;
}

/**
 * Loads every module (globs expanded) and returns all their orchestrators, in argument order.
 *
 * @param patterns - module paths or globs, relative to `options.cwd`
 * @param options - export filter, factory timeout, working directory, noise sink
 */
export async function loadModules(patterns: readonly string[], options: LoadOptions): Promise<FoundOrchestrator[]> {
  const found: FoundOrchestrator[] = [];
  for (const file of await expand(patterns, options.cwd)) found.push(...(await loadOrchestrators(file, options)));
  return found;
}
