/**
 * The gate contract: what a gate is asked, what it may answer, how it settles an `ask`, what it is told
 * for its record, and the process-wide default gate.
 */
import type { Agent } from '@strands-agents/sdk';

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
  /**
   * Where this call runs: the chain of path segments (escaped ids, see `joinPath`) of orchestrators,
   * nodes and agent-as-tool names leading to the agent, when exactly one place is known; empty when
   * none or several are (then `paths` lists every place it may run at). It never names a place the call
   * does not run at.
   */
  path: readonly string[];
  /**
   * Every place this call may be running at, as far as gate-audit knows: one entry when the place is
   * known, several when one agent sits at several places and the running one cannot be told, none when no
   * place is known (an agent gated on its own). Path rules must hold conservatively over this list: a
   * refusal holds when it matches any place or no place is known; an allowance only when it matches every
   * place, and never when none is known.
   */
  paths: readonly (readonly string[])[];
  /** What kind of tool it is. */
  toolKind: 'function' | 'mcp' | 'agent' | 'structured-output' | 'other';
  /** The framework the call runs in (absent means Strands, for requests built before LangGraph was supported). */
  framework?: 'strands' | 'langgraph';
}

/** A gate's answer; a refusal carries a reason, and any answer may name the rule that decided. */
export type Decision = { verdict: 'allow'; rule?: string } | { verdict: 'deny' | 'ask'; reason: string; rule?: string };

/** An `ask` decision. */
export interface AskDecision {
  verdict: 'ask';
  reason: string;
  rule?: string;
}

/** What a gate's `decide` may read besides the request: the live agent and the invocation's state. */
export interface DecideContext {
  /** The agent making the call (for per-agent state, e.g. an intervention handler's counters). */
  readonly agent: Agent;
  /** The invocation state the SDK passes to hooks and tools. */
  readonly invocationState: Record<string, unknown>;
}

/**
 * The outcome of an approval: granted, or refused with why; a stored approval names itself and who answered
 * (`approvalId`, `approverId`), and the `approval-granted` or `approval-refused` record carries both.
 */
export type ApprovalOutcome = ({ granted: true } | { granted: false; reason: string }) & {
  readonly approvalId?: string;
  readonly approverId?: string;
};

/**
 * What binds an answer to the one interrupt it may answer: the identity of the gate that raised it and a
 * random nonce issued with that interrupt. Both stay in the raising gate's memory (never read back from
 * interrupt state, snapshots or sessions); the interrupt's `reason.request` shows them to the approver.
 */
export interface ApprovalBinding {
  /** The `id` of the gate that raised the interrupt (see `Gate.id`). */
  readonly gateId: string;
  /** A random value issued with this interrupt only. */
  readonly nonce: string;
  /** The id of the pending approval written to a store (only when the path has `raise`). */
  readonly approvalId?: string;
}

/**
 * An approval interrupt as it is raised, for a durable approval path (`raise`): everything the approver
 * must see, and everything the answer will be bound to.
 */
export interface RaisedApproval {
  /** A random id for this pending approval (the interrupt's `reason.approvalId`). */
  readonly id: string;
  /** The gate's name. */
  readonly gate: string;
  /** The gate's identity (see `Gate.id`). */
  readonly gateId: string;
  /** The random nonce issued with the interrupt. */
  readonly nonce: string;
  /** Why the gate asks. */
  readonly reason: string;
  /** The rule that asked, when the gate named one. */
  readonly rule?: string;
  /** The call waiting for the answer. */
  readonly request: ToolCallRequest;
}

/**
 * How a gate settles its `ask` answers. Without one, `ask` refuses the call.
 * - `interrupt`: the tool call raises the SDK interrupt (the run stops with `stopReason: 'interrupt'`); when
 *   the run is resumed, the answer is given to `check` with the binding this gate issued with that
 *   interrupt, but only if this gate raised that interrupt in this process (an answer pre-loaded from a
 *   snapshot is refused before `check` sees it, unless a durable path's `resume` proves from its store that
 *   this gate raised it). Each interrupt is answered at most once; a check that throws or hangs refuses the
 *   call and stops the run.
 * - `callback`: `ask` is awaited in-process and the run does not pause.
 * Throwing, rejecting or any outcome other than exactly `{ granted: true }` refuses the call.
 */
export type ApprovalPath =
  | {
      readonly via: 'interrupt';
      check(
        request: ToolCallRequest,
        answer: unknown,
        binding: ApprovalBinding,
      ): ApprovalOutcome | Promise<ApprovalOutcome>;
      /**
       * Optional, for durable approvals: called when the interrupt is raised, before the run pauses, to
       * write the pending approval where another process can answer it. Throwing, rejecting or not
       * settling in time refuses the call and stops the run.
       */
      raise?(pending: RaisedApproval): void | Promise<void>;
      /**
       * Optional, for durable approvals: settles an answer for an interrupt this gate did not raise in this
       * process (a restarted process resuming from the SDK's session snapshot). Without it such an answer is
       * refused. It must prove on its own that this gate raised the interrupt (an authenticated store row).
       */
      resume?(
        request: ToolCallRequest,
        answer: unknown,
        gate: { readonly gateId: string },
      ): ApprovalOutcome | Promise<ApprovalOutcome>;
    }
  | {
      readonly via: 'callback';
      ask(request: ToolCallRequest, decision: AskDecision): ApprovalOutcome | Promise<ApprovalOutcome>;
    };

/** What a gate record says happened. */
export type GateEventKind =
  | 'allow'
  | 'deny'
  | 'ask'
  | 'approval-granted'
  | 'approval-refused'
  | 'error'
  | 'tampering'
  | 'node-cancelled';

/** One decision as the enforcement point saw it, handed to `Gate.record`. */
export interface GateRecord {
  /** What happened. */
  readonly event: GateEventKind;
  /** The effect on the call: `allow` (it runs), `ask` (the run pauses for approval) or `deny`. */
  readonly verdict: Verdict;
  /** The rule that decided, when the gate named one. */
  readonly rule?: string;
  /** Why, for anything but a plain allow. */
  readonly reason?: string;
  /** The tool called (absent for a node cancel). */
  readonly toolName?: string;
  /** The tool use id (absent for a node cancel). */
  readonly toolUseId?: string;
  /** The agent making the call. */
  readonly agentId?: string;
  /** The node cancelled (node-cancelled only). */
  readonly nodeId?: string;
  /** Where the agent or orchestrator sits in its tree (empty when unknown; see `paths`). */
  readonly path: readonly string[];
  /** Every place the call may run at (see `ToolCallRequest.paths`). */
  readonly paths?: readonly (readonly string[])[];
  /** The identity of the gate that decided (see `Gate.id`). */
  readonly gateId?: string;
  /** The stored approval an `approval-granted` or `approval-refused` record used. */
  readonly approvalId?: string;
  /** Who answered that approval (the name the approver's key is listed under). */
  readonly approverId?: string;
  /** The judged input (a log digests it; it is never written unless asked for). */
  readonly input?: unknown;
  /** Milliseconds from the start of the decision to this record. */
  readonly durationMs?: number;
}

/** A policy gate: decides every tool call before it runs. */
export interface Gate {
  /** Name shown in logs and reports. Names are not identities: two different gates may share one. */
  readonly name: string;
  /**
   * Optional stable identity of what this gate decides (a policy gate uses the SHA-256 of its canonical
   * policy). Reports show it, approval tokens sign it, and two gates with the same `id` are the same gate
   * to gate-audit. Without one, the gate gets an id valid in this process only.
   */
  readonly id?: string;
  /**
   * Decides one tool call. Throwing, rejecting or answering garbage refuses the call and stops the run.
   *
   * @param request - the call, as plain data
   * @param context - the live agent and invocation state (gates that only need the request ignore it)
   */
  decide(request: ToolCallRequest, context?: DecideContext): Decision | Promise<Decision>;
  /** Optional: how an `ask` is settled. Without it, `ask` is refused ("no approval path is configured"). */
  readonly approval?: ApprovalPath;
  /**
   * Optional: called with every decision, approval, error, tampering and node cancel. It may return a
   * promise, which is awaited (within the gate's `timeoutMs`) before the call runs. Throwing, rejecting or
   * not settling in time refuses the call and stops the run: a failing record never lets a call through.
   */
  record?(record: GateRecord): void | Promise<void>;
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

/**
 * Whether `value` is a well-formed `Gate`: a string `name` and a `decide` function. A value whose `name` or `decide`
 * throws when read is not (a gate that cannot be read is a broken gate, never a usable one).
 */
export function isGate(value: unknown): value is Gate {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return typeof (value as Gate).name === 'string' && typeof (value as Gate).decide === 'function';
  } catch {
    return false;
  }
}
