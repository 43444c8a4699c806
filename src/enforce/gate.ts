/**
 * The gate contract: what a gate is asked, what it may answer, and the process-wide default gate.
 */

/** What a gate may answer for a tool call. */
export type Verdict = 'allow' | 'deny' | 'ask';

/** The tool call a gate is asked about. */
export interface ToolCallRequest {
  /** Id of this tool use, unique within the agent's run. */
  toolUseId: string;
  /** Name of the tool the model called. */
  toolName: string;
  /** A copy of the call's input, without the SDK's background-task marker. */
  input: unknown;
  /** `id` of the agent making the call. */
  agentId: string;
  /** `name` of the agent making the call. */
  agentName: string;
  /** Chain of orchestrator ids, node ids and agent-as-tool names leading to the agent. */
  path: readonly string[];
  /** What kind of tool it is. */
  toolKind: 'function' | 'mcp' | 'agent' | 'structured-output' | 'other';
}

/** A gate's answer; a refusal carries a reason, and any answer may name the rule that decided. */
export type Decision = { verdict: 'allow'; rule?: string } | { verdict: 'deny' | 'ask'; reason: string; rule?: string };

/** A policy gate: decides every tool call before it runs. */
export interface Gate {
  /** Name shown in logs and reports. */
  readonly name: string;
  /** Decides one tool call. Throwing, rejecting or answering garbage refuses the call and stops the run. */
  decide(request: ToolCallRequest): Decision | Promise<Decision>;
}

let configuredGate: Gate | undefined;

/**
 * Sets the process-wide default gate, used by `install` and `installMultiagent` when no `gate` option is
 * given. Those installs resolve it at every call, so unsetting it later refuses every call (fail closed).
 *
 * @param gate - the gate, or `undefined` to unset it
 */
export function configureGate(gate: Gate | undefined): void {
  configuredGate = gate;
}

/** The process-wide default gate, if one is configured. */
export function configuredDefaultGate(): Gate | undefined {
  return configuredGate;
}

/** A gate that allows every call (for tests and examples). */
export function allowAll(): Gate {
  return { name: 'allow-all', decide: () => ({ verdict: 'allow' }) };
}

/**
 * A gate that denies every call (for tests and examples).
 *
 * @param reason - the reason given to the model
 */
export function denyAll(reason = 'every tool call is denied'): Gate {
  return { name: 'deny-all', decide: () => ({ verdict: 'deny', reason }) };
}

/** Whether `value` is a well-formed `Gate`. */
export function isGate(value: unknown): value is Gate {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Gate).name === 'string' &&
    typeof (value as Gate).decide === 'function'
  );
}

/**
 * Checks that a gate's answer is a `Decision`; anything else is a gate error.
 *
 * @returns the decision, or a description of what is wrong with it
 */
export function checkDecision(value: unknown): { decision: Decision } | { error: string } {
  if (typeof value !== 'object' || value === null) return { error: `decision is ${describe(value)}, not an object` };
  const { verdict, reason, rule } = value as Record<string, unknown>;
  if (rule !== undefined && typeof rule !== 'string') return { error: `decision rule is ${describe(rule)}` };
  const named = rule === undefined ? {} : { rule };
  if (verdict === 'allow') return { decision: { verdict, ...named } };
  if (verdict === 'deny' || verdict === 'ask') {
    if (typeof reason !== 'string' || reason.trim() === '') return { error: `a ${verdict} decision has no reason` };
    return { decision: { verdict, reason, ...named } };
  }
  return { error: `decision verdict is ${describe(verdict)}` };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return typeof value;
}
