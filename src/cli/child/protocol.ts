/**
 * What the CLI and its audit child say to each other: a job file in, one JSON line per event out. The child
 * writes each line synchronously to a results file the CLI reads (a `process.send` followed by
 * `process.exit` loses messages of a few hundred KB), so everything written before the child died is there.
 * Every value is plain data.
 */
import type { ProcessGuardMark } from '../../enforce/process-guard.js';
import type { CoverageNote, CoverageReport } from '../../report/schema.js';

/** An accept entry of the configuration, as the child applies it. */
export interface AcceptRule {
  readonly index: number;
  /** The module's real path, when the entry names one. */
  readonly module?: string;
  readonly export?: string;
  readonly path: string;
  readonly reason: string;
}

/** The configuration file the child reads again (for factories' argument lists, which may be any value). */
export interface ConfigRef {
  readonly file: string;
  readonly cwd: string;
}

/** What every job shares. */
interface JobBase {
  /** The results file (the child appends to it). */
  readonly results: string;
  readonly cwd: string;
}

/** Read a configuration module. */
export interface ConfigJob extends JobBase {
  readonly kind: 'config';
  readonly file: string;
}

/** Load modules and audit what they export. */
export interface ModulesJob extends JobBase {
  readonly kind: 'modules';
  readonly config?: ConfigRef;
  readonly modules: readonly { readonly absolute: string; readonly explicit: boolean }[];
  readonly exportName?: string;
  readonly callFactories: boolean;
  readonly plan: boolean;
  readonly accept: readonly AcceptRule[];
  /** The configuration's folder (factories keys are relative to it). */
  readonly configDir: string;
  /** The configuration as shown, for messages. */
  readonly configShown?: string;
  /** The project root (project-relative module paths). */
  readonly root: string;
  readonly timeoutMs: number;
  /** Whether a value not audited fails the run. */
  readonly failOnUnaudited: boolean;
}

/** Run an entry point and audit what it invokes. */
export interface EntryJob extends JobBase {
  readonly kind: 'entry';
  readonly entry: string;
  /** The entry as shown (relative to `cwd`). */
  readonly shown: string;
  readonly args: readonly string[];
  readonly plan: boolean;
  readonly accept: readonly AcceptRule[];
  readonly root: string;
  /** The configuration has `processGuard`: start it before the entry, as `--import gate-audit/register` would. */
  readonly processGuard?: boolean;
  /** The configuration file that has it. */
  readonly configFile?: string;
}

/** Run a whole subcommand (`check-policy`) in the child. */
export interface CommandJob extends JobBase {
  readonly kind: 'command';
  readonly argv: readonly string[];
}

/** Any job. */
export type Job = ConfigJob | ModulesJob | EntryJob | CommandJob;

/** An error, as plain data (its cause chain, innermost last). */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
  /** InvalidConfigError's reporters and folder, for the error SARIF file. */
  readonly reporters?: unknown;
  readonly dir?: string;
  readonly cause?: WireError;
}

/** What one loaded module gave, audited. */
export interface ModuleOutcome {
  readonly module: string;
  readonly absolute: string;
  readonly exports: string[];
  /** One report per tree found (refused trees included), each with its source. */
  readonly reports: CoverageReport[];
  /** Whether the module's own installMultiagent refused a tree. */
  readonly refused: boolean;
  readonly notes: CoverageNote[];
  readonly skipped?: string;
  /** Every node path of its trees, for "did you mean" on a stale accept. */
  readonly pathsSeen: string[];
  /** The accept entries a tree of it used. */
  readonly usedAccept: number[];
  /** The project files it imports, itself first. */
  readonly closure: string[];
}

/** One line of the results file. */
export type ChildLine =
  | { readonly t: 'ready'; readonly pid: number }
  | { readonly t: 'config'; readonly raw: unknown; readonly hasDefault: boolean }
  | { readonly t: 'start'; readonly index: number; readonly module: string }
  | { readonly t: 'step'; readonly index: number; readonly what: string }
  | { readonly t: 'done'; readonly index: number; readonly outcome: ModuleOutcome }
  | { readonly t: 'error'; readonly index?: number; readonly error: WireError }
  | {
      readonly t: 'invocation';
      readonly kind: string;
      readonly method: string;
      readonly id: string;
      /** The report of the tree it invoked, when this object was not audited before. */
      readonly report?: CoverageReport;
      readonly usedAccept?: number[];
      readonly problem?: string;
      /** The process guard standing when it was invoked (absent: none). */
      readonly guard?: ProcessGuardMark;
    }
  | { readonly t: 'entry-loaded'; readonly error?: WireError }
  | { readonly t: 'guard'; readonly guard?: ProcessGuardMark }
  | { readonly t: 'keyrings'; readonly files: string[] }
  | { readonly t: 'listening' }
  | { readonly t: 'closure'; readonly files: string[] }
  | { readonly t: 'command'; readonly out: string; readonly err: string; readonly code: number }
  | { readonly t: 'process-exit'; readonly code: unknown; readonly at?: string }
  | { readonly t: 'fatal'; readonly origin: string; readonly error: WireError }
  | { readonly t: 'exit'; readonly code: number | undefined }
  | { readonly t: 'end' };

export { AUDITING_ENV } from '../../auditing.js';

/** The exit code of an audit child whose results descriptor was replaced under it (it writes nothing more). */
export const TAMPERED_EXIT = 86;

/**
 * An error as plain data.
 *
 * @param error - anything thrown
 */
export function toWire(error: unknown, depth = 0): WireError {
  if (!(error instanceof Error)) {
    let message: string;
    try {
      message = String(error);
    } catch {
      message = '(a value that cannot be shown)';
    }
    return { name: 'Error', message };
  }
  const own = error as Error & { code?: unknown; reporters?: unknown; dir?: unknown };
  const cause: unknown = own.cause;
  return {
    name: typeof own.name === 'string' ? own.name : 'Error',
    message: typeof own.message === 'string' ? own.message : '',
    ...(typeof own.code === 'string' ? { code: own.code } : {}),
    ...(typeof own.stack === 'string' ? { stack: own.stack } : {}),
    ...(own.reporters !== undefined ? { reporters: own.reporters } : {}),
    ...(typeof own.dir === 'string' ? { dir: own.dir } : {}),
    ...(cause !== undefined && depth < 8 ? { cause: toWire(cause, depth + 1) } : {}),
  };
}

/**
 * The note of a gate built with `allowWritableKeyring: true` (reported, never failing the run).
 *
 * @param module - the module or entry that built it
 * @param file - the keyring file the gate accepts writable
 */
export function writableKeyringNote(module: string, file: string): CoverageNote {
  return {
    kind: 'writable-keyring',
    module,
    message: `builds a gate with allowWritableKeyring: true for the keyring ${file}: a keyring the agent's user may rewrite is accepted, so an agent that adds its own key to it can approve its own calls after a restart`,
    fix: 'make the keyring and its folders writable only by another user (chown root, chmod 644), then drop allowWritableKeyring',
  };
}
