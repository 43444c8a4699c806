/**
 * The few error classes of gate-audit. Each carries a stable `code`; messages follow the SDK's
 * `field=<value> | lowercase message` shape and say what is wrong and how to fix it.
 *
 * A message is printed as it is, so every part that comes from data (paths, ids, reasons, file names, policy
 * keys) is neutralised where the message is built (`visible`, `visibleField`, `visiblePath` from
 * `escape.ts`); the only raw newlines are the ones between listed findings. The data fields of an error
 * (`findings`, `issues`, `nodes`) keep the raw values.
 */
import { quoted, visible, visibleField, visiblePath } from './escape.js';

/** Every code a gate-audit error can carry. */
export type GateAuditErrorCode =
  | 'UNGATEABLE'
  | 'NO_GATE'
  | 'SDK_MISMATCH'
  | 'INVALID_ARGUMENT'
  | 'INSTALL_FAILED'
  | 'LOAD_FAILED'
  | 'NO_ORCHESTRATOR'
  | 'USAGE'
  | 'NOT_FULLY_GATED'
  | 'INVALID_POLICY'
  | 'GATE_CONFLICT'
  | 'GATE_FAILED'
  | 'INVALID_ACCEPT'
  | 'TOO_DEEP'
  | 'SDK_SHAPE'
  | 'SDK_UNTESTED'
  | 'SDK_BEHAVIOUR'
  | 'LOG_LOCKED'
  | 'GUARD_CONFLICT'
  | 'KEYRING'
  | 'STORE_SCHEMA';

/** Why a node, agent or orchestrator cannot be gated in this process. */
export type FindingKind =
  | 'remote'
  | 'custom-node'
  | 'custom-orchestrator'
  | 'foreign-executor'
  | 'agent-override'
  | 'tool-executor'
  | 'sdk-mismatch'
  | 'topology'
  | 'proxy'
  | 'cycle';

/** One thing that cannot be gated, with where it is and what to do about it. */
export interface Finding {
  /** Chain of orchestrator ids, node ids and agent-as-tool names from the root. */
  readonly path: readonly string[];
  /** The category of the problem. */
  readonly kind: FindingKind;
  /** What is wrong, in one sentence. */
  readonly reason: string;
  /** How to fix it, in one sentence. */
  readonly fix: string;
}

/** Base class of every error gate-audit throws on purpose. */
export class GateAuditError extends Error {
  /** Stable machine-readable code. */
  readonly code: GateAuditErrorCode;

  /**
   * @param code - stable code of the error
   * @param message - readable message naming the subject, the problem and the fix
   * @param options - the underlying cause, if any
   */
  constructor(code: GateAuditErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GateAuditError';
    this.code = code;
  }
}

/**
 * The message of anything thrown, never throwing itself: an `Error`'s message, a string as it is, else a
 * best-effort description (a value whose `toString` throws, or a revoked Proxy, still gets a message).
 *
 * @param error - whatever was thrown
 */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message: unknown = error.message;
      return typeof message === 'string' ? message : describeThrown(message);
    }
    return typeof error === 'string' ? error : describeThrown(error);
  } catch {
    return 'a value that cannot be described';
  }
}

/**
 * The package an import could not find, when `error` is Node's "Cannot find package 'x'" (the interactive view
 * and the pictures load packages a runtime install leaves out); undefined for any other error.
 *
 * @param error - what the dynamic import threw
 * @param names - the packages that may be missing; another missing package is not one of them
 */
export function missingPackageOf(error: unknown, names: readonly string[]): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const found = /Cannot find package '([^']+)'/.exec(error.message)?.[1];
  return found !== undefined && names.includes(found) ? found : undefined;
}

function describeThrown(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return `a ${typeof value} that cannot be turned into text`;
    } catch {
      return 'a value that cannot be described';
    }
  }
}

/** Formats one finding as `"a › b" is … | fix`, on one line whatever its data holds. */
export function formatFinding(finding: Finding): string {
  return `${quoted(visiblePath(finding.path))} ${visible(finding.reason)} | ${visible(finding.fix)}`;
}

/** Thrown before any mutation when one or more parts of a tree cannot be gated in-process. */
export class UngateableError extends GateAuditError {
  /** Every offending node, with its path and reason. */
  readonly findings: readonly Finding[];

  /**
   * @param findings - every problem found by the preflight
   * @param code - `UNGATEABLE`, or `SDK_MISMATCH` for the subclass
   */
  constructor(findings: readonly Finding[], code: 'UNGATEABLE' | 'SDK_MISMATCH' = 'UNGATEABLE') {
    const lines = findings.map((f) => `  - ${formatFinding(f)}`);
    super(
      code,
      `findings=<${findings.length}> | cannot gate every agent in-process, nothing was changed\n${lines.join('\n')}`,
    );
    this.name = 'UngateableError';
    this.findings = findings;
  }
}

/** Thrown when parts of the tree were built from a different copy of `@strands-agents/sdk` than gate-audit's. */
export class SdkMismatchError extends UngateableError {
  /** @param findings - every problem found, at least one of kind `sdk-mismatch` */
  constructor(findings: readonly Finding[]) {
    super(findings, 'SDK_MISMATCH');
    this.name = 'SdkMismatchError';
    this.message +=
      '\n  two copies of @strands-agents/sdk are loaded: hooks never fire across copies | ' +
      'dedupe the SDK (npm dedupe; gate-audit takes it as a peer dependency)';
  }
}

/**
 * Ends the invocation of every gated agent of a run that a gate failure stopped (a gate error, timeout,
 * garbage answer or tampering anywhere in the tree), so the node running it fails and the orchestrator
 * reports `FAILED`. A plain deny is not a failure.
 */
export class GateFailedError extends GateAuditError {
  /** What failed first in the run. */
  readonly failure: string;

  /** @param failure - what failed first in the run */
  constructor(failure: string) {
    super(
      'GATE_FAILED',
      `[gate] ERROR: ${visible(failure)}; the run was stopped | fix the gate or what tampered with the call`,
    );
    this.name = 'GateFailedError';
    this.failure = failure;
  }
}

/** One agent already gated with another gate than the one being installed. */
export interface GateConflict {
  /** Where the agent sits. */
  readonly path: readonly string[];
  /** The name of the gate it carries (`configured` for the process-wide gate). */
  readonly existing: string;
  /** The name of the gate being installed. */
  readonly requested: string;
}

/** Thrown before any change when an install would leave an agent under another gate than the one asked for. */
export class GateConflictError extends GateAuditError {
  /** Every agent that carries another gate, with both gate names. */
  readonly conflicts: readonly GateConflict[];

  /** @param conflicts - every conflict found */
  constructor(conflicts: readonly GateConflict[]) {
    const lines = conflicts.map((c) =>
      c.existing === c.requested
        ? `  - ${quoted(visiblePath(c.path))} carries another gate also named ${quoted(c.existing)} (a different gate object)`
        : `  - ${quoted(visiblePath(c.path))} carries gate ${quoted(c.existing)}, not ${quoted(c.requested)}`,
    );
    super(
      'GATE_CONFLICT',
      `conflicts=<${conflicts.length}> | agents already carry another gate, nothing was changed | ` +
        `install every agent with one gate (pass the same gate object), or remove the other gate first\n${lines.join('\n')}`,
    );
    this.name = 'GateConflictError';
    this.conflicts = conflicts;
  }
}

/** Thrown when a gate is needed and none was given or configured. */
export class NoGateError extends GateAuditError {
  /** @param subject - what needed the gate, e.g. `install(agent "writer")` */
  constructor(subject: string) {
    super(
      'NO_GATE',
      `subject=<${visibleField(subject)}> | no gate given and none configured | ` +
        'pass { gate } or call configureGate(gate) before installing',
    );
    this.name = 'NoGateError';
  }
}

/** Thrown by `assertFullyGated` when any node of the tree is not gated. */
export class CoverageError extends GateAuditError {
  /** One line per node that is not gated: its path, status, reason and fix. */
  readonly nodes: readonly string[];

  /** @param nodes - one line per node that is not gated (each printed on one line, neutralised) */
  constructor(nodes: readonly string[]) {
    super(
      'NOT_FULLY_GATED',
      `nodes=<${nodes.length}> | not every node is gated\n${nodes.map((n) => `  - ${visible(n)}`).join('\n')}`,
    );
    this.name = 'CoverageError';
    this.nodes = nodes;
  }
}

/** One problem in a policy document: where it is and what is wrong. */
export interface PolicyIssue {
  /** The rule's `id` (or `#n`, its 1-based position, when it has no usable id); absent above the rules. */
  readonly rule?: string;
  /** Path of the offending field, e.g. `rules[1].when[0].matches`; `(document)` for a parse error. */
  readonly field: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
}

/** Thrown when a policy document is not valid: names the file, the rule and the field of every problem. */
export class PolicyError extends GateAuditError {
  /** Where the policy came from (a path, or `(inline)` for an object given to `policyGate`). */
  readonly file: string;
  /** Every problem found. */
  readonly issues: readonly PolicyIssue[];

  /**
   * @param file - the policy's path, or `(inline)`
   * @param issues - at least one problem
   * @param options - the underlying cause, if any
   */
  constructor(file: string, issues: readonly PolicyIssue[], options?: { cause?: unknown }) {
    const where = visibleField(file);
    const line = (i: PolicyIssue): string =>
      `file=<${where}>${i.rule === undefined ? '' : `, rule=<${visibleField(i.rule)}>`}, field=<${visibleField(i.field)}> | ${visible(i.message)}`;
    const message =
      issues.length === 1 && issues[0] !== undefined
        ? `${line(issues[0])}`
        : `file=<${where}> | invalid policy (${issues.length} problems)\n${issues.map((i) => `  - ${line(i)}`).join('\n')}`;
    super('INVALID_POLICY', message, options);
    this.name = 'PolicyError';
    this.file = file;
    this.issues = issues;
  }
}
