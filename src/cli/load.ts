/**
 * Loading a user's module and finding what to audit, without surprises:
 *
 * - exported Graph/Swarm instances, and exported Agents no exported orchestrator contains, are audited;
 * - no exported function is called unless asked: by `--export`, by `factories` (with argument lists), by
 *   `--call-factories` (every zero-argument export), or because `gatedFactory` wrapped it (the user declared
 *   it a factory). Every exported function left uncalled is reported as not audited, with the fix;
 * - an `UngateableError` thrown while the module loads (its own `installMultiagent` refused the tree) or by
 *   a called factory is a finding, not a load error;
 * - the whole import is bounded by the timeout, not only factories.
 *
 * Recognition is by shape, not `instanceof`, because the module may load its own copy of the SDK (the walker
 * then reports the mismatch). The SDK is loaded by Node itself, never transpiled by jiti: it ships no
 * CommonJS build, so a `require` of it from a `.cts`/`.cjs` module used to make jiti transpile it into a
 * second set of its classes, reported as "a different copy of @strands-agents/sdk". (A gate-audit the module
 * imports may be jiti's own copy: its marks are `Symbol.for` keys and errors are recognised by shape.)
 */
import { graphOf } from '../frameworks/langgraph/adapter.js';
import { isGraphBuilder, isToolNode } from '../frameworks/langgraph/shape.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect, types } from 'node:util';
import { createJiti } from 'jiti';
import { type Finding, GateAuditError, messageOf } from '../errors.js';
import { AUDIT_STOP_MARK, GATED_FACTORY_MARK } from '../walker/marks.js';
import { strandsSdkInstalled } from '../frameworks/strands/sdk-package.js';
import { readExports, valuesUnder } from './exports.js';
import { selectModules } from './select.js';

/** One orchestrator (or lone agent) found in a module. */
export interface FoundOrchestrator {
  /** The module path as shown, relative to the working directory. */
  readonly module: string;
  /** The export name (`default` for a default export). */
  readonly exportName: string;
  /** True when the export is a factory that was called. */
  readonly factory: boolean;
  /** The Graph, Swarm or Agent. */
  readonly orchestrator: unknown;
  /** The module's absolute path. */
  readonly absolute?: string;
  /** The export and the arguments it was called with, when `factories` gave argument lists. */
  readonly label?: string;
}

/** An exported function that was not called, so whatever it builds was not audited. */
export interface Unaudited {
  readonly module: string;
  readonly exportName: string;
  /** Why it was not called, and the fix. */
  readonly reason: string;
  readonly fix: string;
}

/** A tree the module's own `installMultiagent` (or a called factory) refused, with every finding. */
export interface Refusal {
  readonly module: string;
  /** The factory that threw, or undefined when the module refused at import. */
  readonly exportName?: string;
  readonly findings: readonly Finding[];
  readonly message: string;
}

/** What one module gave. */
export interface ModuleResult {
  readonly module: string;
  readonly absolute: string;
  readonly found: FoundOrchestrator[];
  /** Every export name of the module. */
  readonly exports: string[];
  readonly unaudited: Unaudited[];
  readonly refusals: Refusal[];
  /** Why the module was skipped (reached through a folder, glob or `include`, and nothing to audit). */
  readonly skipped?: string;
  /** The module invoked an agent or orchestrator while it loaded, and did not catch the audit's stop. */
  readonly stopped?: boolean;
}

/** Which exported functions to call. */
export interface CallPolicy {
  /**
   * The argument lists to call an export with, by module (absolute path) and export name; `undefined`
   * when the configuration says nothing about it. An empty list declares "not a factory".
   */
  readonly argumentsFor?: (absolute: string, exportName: string) => readonly (readonly unknown[])[] | undefined;
  /** Call every zero-argument exported function (`--call-factories`). */
  readonly callAll?: boolean;
  /** How the fix names a module in `factories` (relative to the config file). */
  readonly factoryKey?: (absolute: string) => string;
}

/** How to load modules. */
export interface LoadOptions {
  /** Only this export. */
  readonly exportName?: string;
  /** How long importing a module, or a factory call, may take, in milliseconds. */
  readonly timeoutMs: number;
  /** The working directory paths are relative to. */
  readonly cwd: string;
  /** Where the module's own stdout output goes while it loads (never the report's stdout). */
  readonly noise: (chunk: string) => void;
  /** Which functions to call (default: only `gatedFactory` ones and the `exportName`). */
  readonly calls?: CallPolicy;
  /** Told before each step that may take up to the timeout (the import, each factory call). */
  readonly progress?: (what: string) => void;
}

/** The mark `gatedFactory` puts on the functions it returns. */
export { GATED_FACTORY_MARK };

// Node loads the SDK itself (shared with gate-audit's own import of it), so its classes are the ones
// gate-audit checks against, whether the user's module imports or requires it.
const NATIVE_MODULES = ['@strands-agents/sdk'];

const nodeRequire = createRequire(import.meta.url);

// Taken when gate-audit loads, before any module it audits runs (the audited code can replace `util.types`).
const isProxy = types.isProxy;
const getPrototypeOf = Object.getPrototypeOf;
const ownDescriptor = Object.getOwnPropertyDescriptor;

/**
 * The constructor names on a value's prototype chain (own data `constructor` properties only), or `proxy`
 * when the value or any prototype in its chain is a Proxy (whose traps would be code gate-audit runs).
 */
function constructorNames(value: object): string[] | 'proxy' {
  const names: string[] = [];
  if (isProxy(value)) return 'proxy';
  let proto: unknown = getPrototypeOf(value);
  for (let depth = 0; depth < 32 && typeof proto === 'object' && proto !== null; depth += 1) {
    if (isProxy(proto)) return 'proxy';
    const ctor: unknown = ownDescriptor(proto, 'constructor')?.value;
    if (typeof ctor === 'function' && !isProxy(ctor)) {
      const name: unknown = ownDescriptor(ctor, 'name')?.value;
      if (typeof name === 'string') names.push(name);
    }
    proto = getPrototypeOf(proto);
  }
  return names;
}

/** What an exported value is, read without running any of its code (no getters, no Proxy traps). */
export type ExportKind = 'orchestrator' | 'agent' | 'function' | 'class' | 'proxy' | 'other';

/**
 * Classifies an exported value by shape, so values from any copy of the SDK are recognised.
 *
 * @param value - the exported value
 */
export function exportKindOf(value: unknown): ExportKind {
  if ((typeof value === 'object' || typeof value === 'function') && value !== null && isProxy(value)) {
    return 'proxy';
  }
  if (typeof value === 'function') {
    if (constructorNames(value) === 'proxy') return 'proxy';
    return /^class[\s{]/.test(Function.prototype.toString.call(value)) ? 'class' : 'function';
  }
  if (typeof value !== 'object' || value === null) return 'other';
  const names = constructorNames(value);
  if (names === 'proxy') return 'proxy';
  // A LangGraph compiled graph or `createAgent` agent is a root like a Graph (recognised by shape).
  if (graphOf(value) !== undefined) return 'orchestrator';
  if (names.includes('Graph') || names.includes('Swarm')) {
    const nodes = ownDescriptor(value, 'nodes');
    if (nodes !== undefined && (nodes.get !== undefined || nodes.value instanceof Map)) return 'orchestrator';
  }
  if (names.includes('Agent')) return 'agent';
  return 'other';
}

/** Whether a value is shaped like a Strands Graph or Swarm (from any copy of the SDK). */
export function isOrchestratorLike(value: unknown): boolean {
  return exportKindOf(value) === 'orchestrator';
}

/**
 * How many parameters a function declares, read without calling a getter (an accessor `length` reads as
 * unknown: such a function is never called as a zero-argument factory).
 */
function arityOf(fn: (...args: unknown[]) => unknown): number {
  const length: unknown = Object.getOwnPropertyDescriptor(fn, 'length')?.value;
  return typeof length === 'number' ? length : Number.NaN;
}

/** Whether a function carries `gatedFactory`'s mark. */
export function isGatedFactory(value: unknown): boolean {
  if (typeof value !== 'function' || isProxy(value)) return false;
  return Object.getOwnPropertyDescriptor(value, GATED_FACTORY_MARK)?.value !== undefined;
}

/** Whether an error is an `UngateableError` from any copy of gate-audit: its code and its findings. */
function ungateableOf(error: unknown): { findings: Finding[]; message: string } | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    const findings = (e as { findings?: unknown }).findings;
    if ((code === 'UNGATEABLE' || code === 'SDK_MISMATCH') && Array.isArray(findings)) {
      const valid = findings.filter(
        (f): f is Finding =>
          typeof f === 'object' &&
          f !== null &&
          Array.isArray((f as Finding).path) &&
          typeof (f as Finding).reason === 'string' &&
          typeof (f as Finding).fix === 'string',
      );
      return { findings: valid.map((f) => ({ ...f, path: f.path.map(String) })), message: messageOf(e) };
    }
  }
  return undefined;
}

/** The mark of the error the audit child throws into an app that invokes something (see `child/preload.ts`). */
const AUDIT_STOP = AUDIT_STOP_MARK;

/** Whether an error, or one of its causes, is the audit's stop error. */
export function isAuditStopError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; depth += 1) {
    if (Object.getOwnPropertyDescriptor(e, AUDIT_STOP) !== undefined) return true;
    e = Object.getOwnPropertyDescriptor(e, 'cause')?.value;
  }
  return false;
}

/** A module whose import (or a factory) did not finish within the timeout: a load finding, not a crash. */
export class LoadTimeoutError extends GateAuditError {
  /**
   * @param message - what did not finish, and the fix
   */
  constructor(message: string) {
    super('LOAD_FAILED', message);
    this.name = 'LoadTimeoutError';
  }
}

function loadError(module: string, what: string, fix: string, cause?: unknown): GateAuditError {
  return new GateAuditError('LOAD_FAILED', `cannot load "${module}": ${what} | ${fix}`, { cause });
}

/** Describes a load error in one line: `SyntaxError at graph.ts:3:7: …` for a parse error, else `Name: message`. */
function describeLoadError(error: unknown, cwd: string): string {
  if (!(error instanceof Error)) return messageOf(error);
  const first = (messageOf(error).split('\n')[0] ?? '').trim();
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

/** The fix for an error thrown while a module loads: what the module itself needs, never `--export`. */
function importFix(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = messageOf(error);
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (module|package)/.test(message)) {
    const missing = /Cannot find (?:module|package) ['"]([^'"]+)['"]/.exec(message)?.[1];
    if (missing !== undefined && !missing.startsWith('.') && !isAbsolute(missing)) {
      const pkg = missing.startsWith('@') ? missing.split('/').slice(0, 2).join('/') : missing.split('/')[0];
      return `install the missing dependency (npm i ${pkg}) or fix the import`;
    }
    return 'fix the import path';
  }
  if (code === 'ERR_REQUIRE_ASYNC_MODULE') {
    return 'a require() reached a module with top-level await: import it instead, or load the module as ESM';
  }
  return 'fix the module so it loads (gate-audit imports it as your app does)';
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

interface CachedModule {
  exports: unknown;
  loaded: boolean;
}

/** What the import of a module is resolved with instead of its exports: a box, which has no `then`. */
const BOX = Symbol('gate-audit.exports-box');

/**
 * Runs `load` while the module cache entry jiti creates for `absolute` is watched: when jiti marks the
 * module loaded (its body has run) and is about to resolve its import with the exports, the exports are put
 * in a box, so a `then` export is never called as a promise's `then`. They are put back right after, and
 * returned from the module's own record.
 */
async function withExportsBoxed(absolute: string, load: () => Promise<unknown>): Promise<{ exports?: object }> {
  const cache = nodeRequire.cache as Record<string, CachedModule | undefined>;
  const cached = cache[absolute];
  // Loaded already (another module imported it): its record is all there is to read.
  if (cached?.loaded === true) return boxOf(cached.exports);
  let record: CachedModule | undefined;
  let real: unknown;
  let boxed = false;
  const watchLoaded = (entry: CachedModule): void => {
    let loaded = entry.loaded;
    Object.defineProperty(entry, 'loaded', {
      configurable: true,
      enumerable: true,
      get: () => loaded,
      set: (value: boolean) => {
        loaded = value;
        if (value === true && !boxed) {
          boxed = true;
          real = entry.exports;
          entry.exports = { [BOX]: real };
        }
      },
    });
  };
  if (cache[absolute] === undefined) {
    Object.defineProperty(cache, absolute, {
      configurable: true,
      enumerable: true,
      get: () => record,
      set: (entry: CachedModule) => {
        record = entry;
        if (typeof entry === 'object' && entry !== null) watchLoaded(entry);
      },
    });
  }
  const unwatch = (): void => {
    if (record !== undefined) {
      if (boxed) record.exports = real;
      const loaded = record.loaded;
      Object.defineProperty(record, 'loaded', { value: loaded, writable: true, configurable: true, enumerable: true });
    }
    const descriptor = Object.getOwnPropertyDescriptor(cache, absolute);
    if (descriptor?.get !== undefined) {
      delete cache[absolute];
      if (record !== undefined) cache[absolute] = record;
    }
  };
  try {
    await load();
  } finally {
    unwatch();
  }
  return boxOf(boxed ? real : cache[absolute]?.exports);
}

/** Exports in a box: an async function returning them would resolve its promise with them, calling `then`. */
function boxOf(exports: unknown): { exports?: object } {
  return (typeof exports === 'object' || typeof exports === 'function') && exports !== null ? { exports } : {};
}

/** Whether a JavaScript file is ESM (`.mjs`, or `.js` under a `package.json` with `"type": "module"`). */
function isEsmJavaScript(absolute: string): boolean {
  if (absolute.endsWith('.mjs')) return true;
  if (!absolute.endsWith('.js')) return false;
  for (let dir = dirname(absolute); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Imports a JavaScript module natively through a box module (`export * as ns from …`): the import resolves
 * with the box's namespace, never the module's, so a `then` export is never called. A CommonJS module's
 * exports are read from its record (`module.exports`).
 */
async function importNativeBoxed(absolute: string): Promise<{ exports?: object }> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-audit-box-'));
  const box = join(dir, 'box.mjs');
  writeFileSync(box, `export * as ns from ${JSON.stringify(pathToFileURL(absolute).href)};\n`);
  try {
    const { ns } = (await import(pathToFileURL(box).href)) as { ns: object };
    if (isEsmJavaScript(absolute)) return { exports: ns };
    return boxOf((nodeRequire.cache as Record<string, CachedModule | undefined>)[absolute]?.exports);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Imports a module the way gate-audit loads users' code: jiti (TypeScript, the `paths` of the nearest
 * tsconfig), the SDK loaded natively, stdout diverted, the whole import bounded. What it gives back is the
 * module's exports object in a box (`{ exports }`), read from its record: no promise is ever resolved with
 * them, so a module exporting `then` keeps `then` as a plain export and nothing of it is called.
 *
 * @param absolute - the module's absolute path
 * @param shown - its name in messages
 * @param options - timeout, working directory, noise sink
 */
export async function importModule(
  absolute: string,
  shown: string,
  options: Pick<LoadOptions, 'timeoutMs' | 'cwd' | 'noise'>,
): Promise<{ readonly exports: object }> {
  const jiti = createJiti(pathToFileURL(absolute).href, {
    tsconfigPaths: true,
    moduleCache: true,
    nativeModules: NATIVE_MODULES,
  });
  return withStdoutDiverted(options.noise, async () => {
    try {
      const javascript = /\.[cm]?js$/.test(absolute);
      const { exports } = await withTimeout(
        javascript
          ? importNativeBoxed(absolute).catch((error: unknown) => {
              // ESM syntax in a CommonJS package (Node does not detect it everywhere), or a JavaScript module that
              // imports TypeScript: jiti transpiles it (both fail before any of the module runs).
              const unknownExtension = (error as { code?: unknown } | null)?.code === 'ERR_UNKNOWN_FILE_EXTENSION';
              const esmSyntax = error instanceof SyntaxError && /\b(import|export)\b/.test(error.message);
              if (!unknownExtension && !esmSyntax) throw error;
              return withExportsBoxed(absolute, () => jiti.import(absolute));
            })
          : withExportsBoxed(absolute, () => jiti.import(absolute)),
        options.timeoutMs,
        () =>
          new LoadTimeoutError(
            `cannot load "${shown}": importing it did not finish within ${options.timeoutMs} ms (a top-level await that never settles?) | make the module load without waiting on something that never comes, or raise --timeout`,
          ),
      );
      if (exports === undefined) {
        throw loadError(shown, 'its exports could not be read', 'export values with ESM `export` or `module.exports`');
      }
      return { exports };
    } catch (error) {
      if (error instanceof GateAuditError && error.code === 'LOAD_FAILED') throw error;
      if (ungateableOf(error) !== undefined) throw error;
      throw loadError(shown, describeLoadError(error, options.cwd), importFix(error), error);
    }
  });
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const names = constructorNames(value);
  if (names === 'proxy') return 'a Proxy';
  const [name] = names;
  return name === undefined ? 'an object' : `a ${name}`;
}

function argsLabel(args: readonly unknown[]): string {
  return args.map((a) => inspect(a, { depth: 2, breakLength: Number.POSITIVE_INFINITY })).join(', ');
}

/** Why a function may be called, or undefined when it must not be. */
interface CallDecision {
  readonly calls: readonly (readonly unknown[])[];
  /** Named by --export or factories: it must build something to audit. */
  readonly requested: boolean;
  /** Why it is called. */
  readonly by: 'export' | 'factories' | 'gated' | 'call-factories';
}

function decideCalls(
  fn: (...args: unknown[]) => unknown,
  exportName: string,
  absolute: string,
  options: LoadOptions,
): CallDecision | 'declared-not-factory' | undefined {
  const configured = options.calls?.argumentsFor?.(absolute, exportName);
  if (configured !== undefined) {
    return configured.length === 0 ? 'declared-not-factory' : { calls: configured, requested: true, by: 'factories' };
  }
  if (options.exportName === exportName) return { calls: [[]], requested: true, by: 'export' };
  if (isGatedFactory(fn) && arityOf(fn) === 0) return { calls: [[]], requested: false, by: 'gated' };
  if (options.calls?.callAll === true && arityOf(fn) === 0)
    return { calls: [[]], requested: false, by: 'call-factories' };
  return undefined;
}

function unauditedFix(fn: (...args: unknown[]) => unknown, key: string, exportName: string): string {
  const entry = `${key}#${exportName}`;
  const none = `{ "${entry}": [] } declares it builds none`;
  if (arityOf(fn) !== 0)
    return `to audit what it builds, give its arguments: factories: { "${entry}": [[…]] }; ${none}`;
  return `to audit what it builds: --export ${exportName}, --call-factories, or factories: ["${entry}"] in the config; ${none}`;
}

/**
 * Loads one module and returns what it exports to audit, the functions left uncalled, and refusals.
 *
 * @param file - the module path, relative to `options.cwd` or absolute
 * @param options - export filter, calls, timeout, working directory, noise sink
 * @param explicit - whether the module was named explicitly (else it is skipped when it has nothing to audit)
 * @throws GateAuditError `LOAD_FAILED` when the module is missing, fails to load, or a factory throws or hangs;
 *   `NO_ORCHESTRATOR` when a module named explicitly has nothing to audit
 */
export async function loadModule(file: string, options: LoadOptions, explicit = true): Promise<ModuleResult> {
  const absolute = isAbsolute(file) ? file : resolve(options.cwd, file);
  const shown = relative(options.cwd, absolute) || file;
  if (!existsSync(absolute)) throw loadError(shown, 'no such file', 'check the path');
  if (statSync(absolute).isDirectory()) {
    throw loadError(shown, 'is a folder, not a module', 'name the modules in it, or pass the folder to gate-audit');
  }
  const result: ModuleResult = { module: shown, absolute, found: [], exports: [], unaudited: [], refusals: [] };
  let namespace: object;
  try {
    namespace = (await importModule(absolute, shown, options)).exports;
  } catch (error) {
    // An invocation while it loaded was stopped (the audit child stops every one): its trees are audited
    // where they were invoked; the module's exports were never handed out.
    if (isAuditStopError(error)) return { ...result, stopped: true };
    const refused = ungateableOf(error);
    if (refused === undefined) throw error;
    result.refusals.push({ module: shown, ...refused });
    return result;
  }
  if (isProxy(namespace)) {
    result.unaudited.push({
      module: shown,
      exportName: '(module.exports)',
      reason: 'is a Proxy: gate-audit does not look through it (its traps are code it would run)',
      fix: 'export the Graph, Swarm or Agent itself',
    });
    return explicit || result.unaudited.length > 0
      ? result
      : { ...result, skipped: 'exports no Graph, Swarm or Agent' };
  }
  const read = readExports(namespace);
  const allNames = read.map((r) => r.name);
  result.exports.push(...allNames);
  const names = allNames.filter((name) => options.exportName === undefined || name === options.exportName);
  if (options.exportName !== undefined && names.length === 0) {
    const what = `has no export "${options.exportName}"`;
    if (!explicit) return { ...result, skipped: what };
    throw new GateAuditError(
      'NO_ORCHESTRATOR',
      `cannot audit "${shown}": it ${what} | exports are: ${allNames.join(', ') || '(none)'}`,
    );
  }
  const key = options.calls?.factoryKey?.(absolute) ?? shown;
  const seen = new Set<unknown>();
  const agents: { name: string; label?: string; value: unknown }[] = [];
  const functions: { name: string; fn: (...args: unknown[]) => unknown }[] = [];
  const isSdkObject = (value: unknown): boolean => {
    const kind = exportKindOf(value);
    return kind === 'orchestrator' || kind === 'agent';
  };
  for (const { name, value, error } of read) {
    if (!names.includes(name)) continue;
    if (error !== undefined) {
      result.unaudited.push({
        module: shown,
        exportName: name,
        reason: `reading it threw ${describeLoadError(error, options.cwd)}`,
        fix: 'make the export readable (a re-export of a module that loads)',
      });
      continue;
    }
    if (seen.has(value)) continue;
    const kind = exportKindOf(value);
    if (kind === 'orchestrator') {
      seen.add(value);
      result.found.push({ module: shown, absolute, exportName: name, factory: false, orchestrator: value });
    } else if (kind === 'agent') {
      seen.add(value);
      agents.push({ name, value });
    } else if (kind === 'function') {
      seen.add(value);
      functions.push({ name, fn: value as (...args: unknown[]) => unknown });
    } else if (kind === 'proxy') {
      seen.add(value);
      result.unaudited.push({
        module: shown,
        exportName: name,
        reason: 'is a Proxy: gate-audit does not look through it (its traps are code it would run)',
        fix: 'export the Graph, Swarm or Agent itself',
      });
    } else if (name === options.exportName && (typeof value !== 'object' || value === null)) {
      throw new GateAuditError(
        'NO_ORCHESTRATOR',
        `cannot audit "${shown}#${name}": it is ${describeValue(value)}, not a Graph, Swarm, Agent or a function building one | name another export`,
      );
    } else if (isToolNode(value) || isGraphBuilder(value)) {
      // A LangGraph part that is not what runs: said, not skipped in silence.
      seen.add(value);
      result.unaudited.push({
        module: shown,
        exportName: name,
        reason: isToolNode(value)
          ? 'is a LangGraph tool node on its own: the audit judges the graph that runs it'
          : 'is a LangGraph graph builder (a StateGraph not compiled): what runs is the graph compile() returns',
        fix: 'export the compiled graph (or the createAgent agent) instead, or as well',
      });
    } else {
      // Plain data holding orchestrators (a config object, an array, a Map): each is audited under its path.
      const under = valuesUnder(name, value, isSdkObject);
      for (const item of under.found) {
        if (item.depth === 0 || seen.has(item.value)) continue;
        seen.add(item.value);
        if (exportKindOf(item.value) === 'orchestrator') {
          result.found.push({
            module: shown,
            absolute,
            exportName: item.path,
            factory: false,
            orchestrator: item.value,
          });
        } else agents.push({ name: item.path, value: item.value });
      }
      for (const item of under.unreachable) {
        result.unaudited.push({
          module: shown,
          exportName: item.path,
          reason: `holds a Graph, Swarm or Agent the audit does not reach: it ${item.reason}`,
          fix: 'export it directly, or hold it in plain data (objects, arrays, Maps, Sets) at most 4 steps deep',
        });
      }
      if (name === options.exportName && under.found.length <= 1) {
        throw new GateAuditError(
          'NO_ORCHESTRATOR',
          `cannot audit "${shown}#${name}": it is ${describeValue(value)}, not a Graph, Swarm, Agent or a function building one | name another export`,
        );
      }
    }
  }
  for (const { name, fn } of functions) {
    const decision = decideCalls(fn, name, absolute, options);
    if (decision === 'declared-not-factory') continue;
    if (decision === undefined) {
      const arity = arityOf(fn);
      const takes = arity > 0 ? `takes ${arity} argument${arity === 1 ? '' : 's'}, ` : '';
      result.unaudited.push({
        module: shown,
        exportName: name,
        reason: `${isGatedFactory(fn) ? 'is a gatedFactory that ' : ''}${takes}was not called, so what it builds was not audited`,
        fix: unauditedFix(fn, key, name),
      });
      continue;
    }
    for (const args of decision.calls) {
      options.progress?.(`factory ${name}`);
      const label = decision.calls.length > 1 || args.length > 0 ? `${name}(${argsLabel(args)})` : name;
      const built = await callFactory(fn, args, label, shown, options, decision.by);
      if (built.refusal !== undefined) {
        result.refusals.push({ module: shown, exportName: label, ...built.refusal });
        continue;
      }
      const kind = exportKindOf(built.value);
      if (kind === 'orchestrator' || kind === 'agent') {
        if (seen.has(built.value)) continue;
        seen.add(built.value);
        const entry = { module: shown, absolute, exportName: name, factory: true, orchestrator: built.value };
        if (kind === 'orchestrator') result.found.push(label === name ? entry : { ...entry, label });
        else agents.push({ name, label, value: built.value });
      } else if (decision.requested) {
        throw new GateAuditError(
          'NO_ORCHESTRATOR',
          `cannot audit "${shown}#${label}": it returned ${describeValue(built.value)}, not a Graph, Swarm or Agent | name the function that builds the orchestrator`,
        );
      }
    }
  }
  // Agents are audited on their own only when no exported orchestrator of the module contains them.
  if (agents.length > 0) {
    const contained = new Set<unknown>();
    const strands = result.found.filter((found) => graphOf(found.orchestrator) === undefined);
    // Walked with the Strands walker, loaded only here: without the SDK (a LangGraph.js-only app), each agent is
    // audited on its own, and the audit says what it needs.
    if (strands.length > 0 && strandsSdkInstalled()) {
      const { walk } = await import('../walker/walk.js');
      for (const found of strands) for (const entry of walk(found.orchestrator).entries) contained.add(entry.target);
    }
    for (const { name, label, value } of agents) {
      if (contained.has(value)) continue;
      const factory = label !== undefined;
      const entry = { module: shown, absolute, exportName: name, factory, orchestrator: value };
      result.found.push(label === undefined || label === name ? entry : { ...entry, label });
    }
  }
  const uncalledOnly = result.unaudited.every((u) => functions.some((f) => f.name === u.exportName));
  if (result.found.length === 0 && result.refusals.length === 0 && uncalledOnly) {
    const uncalled = result.unaudited.map((u) => u.exportName);
    if (!explicit) return { ...result, skipped: 'exports no Graph, Swarm or Agent' };
    const what =
      uncalled.length === 0
        ? 'it exports no Graph, Swarm or Agent'
        : `it exports no Graph, Swarm or Agent, and its function${uncalled.length === 1 ? '' : 's'} ${uncalled.join(', ')} ${uncalled.length === 1 ? 'was' : 'were'} not called`;
    const fix =
      uncalled.length === 0
        ? 'export the orchestrator, or its factory'
        : `name its factory: --export ${uncalled[0]}, or factories: ["${key}#${uncalled[0]}"] in the config`;
    throw new GateAuditError('NO_ORCHESTRATOR', `cannot audit "${shown}": ${what} | ${fix}`);
  }
  return result;
}

async function callFactory(
  fn: (...args: unknown[]) => unknown,
  args: readonly unknown[],
  label: string,
  shown: string,
  options: LoadOptions,
  by: CallDecision['by'],
): Promise<{ value?: unknown; refusal?: { findings: Finding[]; message: string } }> {
  return withStdoutDiverted(options.noise, async () => {
    try {
      const value = await withTimeout(
        Promise.resolve().then(() => fn(...args)),
        options.timeoutMs,
        () =>
          new LoadTimeoutError(
            `cannot load "${shown}": factory "${label}" did not return within ${options.timeoutMs} ms | make it return, or raise --timeout`,
          ),
      );
      return { value };
    } catch (error) {
      if (error instanceof GateAuditError && error.code === 'LOAD_FAILED') throw error;
      const refusal = ungateableOf(error);
      if (refusal !== undefined) return { refusal };
      throw loadError(
        shown,
        `factory "${label}" threw ${describeLoadError(error, options.cwd)}`,
        by === 'export'
          ? 'fix the factory'
          : by === 'factories'
            ? 'fix the factory, or the arguments factories gives it'
            : `fix the factory, or pass --export <name> to audit only another export`,
        error,
      );
    }
  });
}

/**
 * Loads every module (files, folders, globs) and returns their orchestrators, in argument order: what
 * `check-policy` reads.
 *
 * @param patterns - module paths or globs, relative to `options.cwd`
 * @param options - export filter, calls, timeout, working directory, noise sink
 */
export async function loadModules(patterns: readonly string[], options: LoadOptions): Promise<FoundOrchestrator[]> {
  const selection = await selectModules(patterns, { cwd: options.cwd, errorOnUnmatched: true });
  const found: FoundOrchestrator[] = [];
  for (const target of selection.modules) {
    const result = await loadModule(target.absolute, options, target.explicit);
    const [refusal] = result.refusals;
    // A tree the module refused at import cannot be checked: say so rather than leave it out.
    if (refusal !== undefined) {
      throw new GateAuditError(
        'UNGATEABLE',
        `cannot check "${result.module}${refusal.exportName === undefined ? '' : `#${refusal.exportName}`}": ${refusal.message.split('\n')[0] ?? ''} | fix what installMultiagent refuses (gate-audit ${result.module} lists it)`,
      );
    }
    found.push(...result.found);
  }
  return found;
}
