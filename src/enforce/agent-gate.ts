/**
 * The gate on one agent: a decision hook that never throws, a seal per tool use, and an innermost
 * execution check that refuses any call that is not exactly what was judged.
 *
 * Why each piece (see `../shared/research/sdk-gaps.md`):
 * - A throwing `BeforeToolCallEvent` hook fails OPEN (the loop drains on, rows 42–43), so every error
 *   becomes a `cancel`, and the invocation is stopped: later tool calls and model calls are cancelled.
 * - Later hooks, interventions, plugins and middleware can rename the tool, change the input, set
 *   `selectedTool` or clear `cancel` after the decision (rows 9–11, 26, 32–37). The decision is sealed
 *   per `toolUseId`, and the innermost `ExecuteToolStage` middleware refuses anything that differs.
 *   We refuse rather than judge again: the signer reference decides each call once.
 * - A middleware that answers a call without calling `next` bypasses the check; the after-call hook
 *   notices an allowed call whose check never ran, hides its result and stops the run.
 */
import {
  AfterToolCallEvent,
  Agent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  FunctionTool,
  type JSONValue,
  type MiddlewareHandlerOf,
  TextBlock,
  ToolResultBlock,
  ZodTool,
} from '@strands-agents/sdk';
import { messageOf } from '../errors.js';
import { agentGateState, isGated } from '../walker/classify.js';
import { AGENT_GATE_MARK, type AgentGateMark, agentGateMark } from '../walker/marks.js';
import { agentAsToolTarget, isMcpTool, isStructuredOutputTool } from '../walker/sdk-internals.js';
import { canonicalJson, withoutMarker } from './digest.js';
import {
  type ApprovalOutcome,
  type AskDecision,
  checkDecision,
  type Gate,
  type GateRecord,
  type ToolCallRequest,
} from './gate.js';
import { log } from './log.js';
import { isInnermostMiddleware, moveHookFirst, moveMiddlewareInnermost } from './sdk-mutations.js';

/** Prefix of the message a refused call returns to the model. */
export const BLOCKED = '[gate] BLOCKED:';
/** Prefix of the message a call returns when the gate itself failed. */
export const ERROR = '[gate] ERROR:';

/** Name of the interrupt an `ask` raises on the tool call (its id is `hook:beforeToolCall:<toolUseId>:<name>`). */
export const APPROVAL_INTERRUPT = 'gate-audit:approval';

/** A handle on the gate installed on one agent. */
export interface AgentGate {
  /** The gated agent. */
  readonly agent: Agent;
  /** Where the agent was found when the gate was installed. */
  readonly path: readonly string[];
  /** Name of the gate, or `configured` when the process-wide gate is resolved at each call. */
  readonly gateName: string;
  /** Whether the decision hook and the execution check are both still registered. */
  isActive(): boolean;
  /** Removes the hooks and the middleware and the mark (used for rollback). */
  uninstall(): void;
}

/** Where the gate comes from: a fixed gate, or the process-wide one resolved at each call. */
export interface GateSource {
  readonly name: string;
  resolve(): Gate | undefined;
  /** How long an asynchronous decision may take, in milliseconds (default 30000). */
  readonly timeoutMs?: number;
}

/** How long an asynchronous gate decision may take by default, in milliseconds. */
export const DEFAULT_DECISION_TIMEOUT_MS = 30_000;

/** Marks a decision that did not settle in time. */
class DecisionTimeout {
  constructor(readonly ms: number) {}
}

/**
 * Waits for an asynchronous decision, at most `ms` milliseconds. A synchronous answer is returned as it is,
 * without a timer.
 */
async function withinDeadline(answer: unknown, ms: number): Promise<unknown> {
  if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return answer;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<DecisionTimeout>((resolve) => {
    timer = setTimeout(() => resolve(new DecisionTimeout(ms)), ms);
  });
  try {
    return await Promise.race([answer as Promise<unknown>, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Seal {
  readonly allowed: boolean;
  readonly name: string;
  readonly input: string | undefined;
  readonly tool: unknown;
  checked: boolean;
}

type ExecuteToolHandler = MiddlewareHandlerOf<typeof ExecuteToolStage>;

type RecordFields = Pick<GateRecord, 'event' | 'rule' | 'reason'>;

/** Whether `error` is the SDK's `InterruptError` (not exported by the SDK, so recognised by shape). */
function isInterruptError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    error.name === 'InterruptError' &&
    Array.isArray((error as { interrupts?: unknown }).interrupts)
  );
}

/** Runs an approval step; a throw or a rejection is a refusal, never an approval. */
async function settle(step: () => unknown): Promise<unknown> {
  try {
    return await step();
  } catch (error) {
    return { granted: false, reason: `the approval step failed: ${messageOf(error)}` };
  }
}

function toolKindOf(tool: unknown): ToolCallRequest['toolKind'] {
  if (isStructuredOutputTool(tool)) return 'structured-output';
  if (isMcpTool(tool)) return 'mcp';
  if (agentAsToolTarget(tool) !== undefined) return 'agent';
  if (tool instanceof FunctionTool || tool instanceof ZodTool) return 'function';
  return 'other';
}

function sealInput(input: unknown): string | undefined {
  try {
    return canonicalJson(withoutMarker(input));
  } catch {
    return undefined;
  }
}

function errorResult(toolUseId: string, text: string): ToolResultBlock {
  return new ToolResultBlock({ toolUseId, status: 'error', content: [new TextBlock(text)] });
}

/** Everything one agent's gate keeps between the decision and the execution. */
class AgentGateRuntime {
  private readonly _seals = new Map<string, Seal>();
  /** The approval interrupts this runtime raised, by tool use id, with the gate that asked. */
  private readonly _raised = new Map<string, Gate>();
  private _stopped: string | undefined;

  constructor(
    private readonly _agent: Agent,
    private readonly _source: GateSource,
    private readonly _path: readonly string[],
  ) {}

  /**
   * The decision hook, first of all `BeforeToolCallEvent` callbacks. It throws exactly one thing: the
   * `InterruptError` that `event.interrupt()` raised for an `ask`, which the SDK collects to pause the run.
   * Every other failure becomes a cancel.
   */
  readonly decide = async (event: BeforeToolCallEvent): Promise<void> => {
    const started = performance.now();
    let pause: Error | undefined;
    try {
      pause = await this._judge(event, started);
    } catch (error) {
      // Anything unexpected in our own code refuses the call too: never let the hook throw.
      this._fail(event, `gate-audit failed while deciding: ${messageOf(error)}`, started);
    }
    if (pause !== undefined) throw pause;
  };

  /** Decides one call; returns the interrupt to raise when the run must pause for an approval. */
  private async _judge(event: BeforeToolCallEvent, started: number): Promise<Error | undefined> {
    if (!moveMiddlewareInnermost(this._agent, this.executionCheck)) {
      this._fail(event, "the gate's execution check was removed from this agent", started);
      return undefined;
    }
    if (event.agent !== this._agent) {
      this._decideForeign(event);
      return undefined;
    }
    if (this._stopped !== undefined) {
      this._refuseRecorded(event, `${ERROR} ${this._stopped}`, this._stopped, started);
      return undefined;
    }
    const inner = agentAsToolTarget(event.tool);
    if (inner !== undefined && !isGatedAgent(inner)) {
      const reason = `tool "${event.toolUse.name}" runs an agent that carries no gate`;
      this._refuseRecorded(
        event,
        `${BLOCKED} ${reason} | gate it too (installMultiagent gates agents used as tools)`,
        reason,
        started,
      );
      return undefined;
    }
    const gate = this._source.resolve();
    if (gate === undefined) {
      this._fail(event, 'no gate is configured any more (configureGate(undefined) was called)', started);
      return undefined;
    }
    const request = this._request(event);
    let answer: unknown;
    try {
      answer = await withinDeadline(
        gate.decide(request, { agent: this._agent, invocationState: event.invocationState }),
        this._source.timeoutMs ?? DEFAULT_DECISION_TIMEOUT_MS,
      );
    } catch (error) {
      this._fail(event, `gate "${gate.name}" threw: ${messageOf(error)}`, started, gate, request);
      return undefined;
    }
    if (answer instanceof DecisionTimeout) {
      const problem = `gate "${gate.name}" did not decide within ${answer.ms} ms`;
      this._fail(event, problem, started, gate, request);
      return undefined;
    }
    const checked = checkDecision(answer);
    if ('error' in checked) {
      this._fail(event, `gate "${gate.name}" answered garbage: ${checked.error}`, started, gate, request);
      return undefined;
    }
    const decision = checked.decision;
    const rule = decision.rule === undefined ? {} : { rule: decision.rule };
    if (decision.verdict === 'allow') {
      this._allow(event, gate, { event: 'allow', ...rule }, request, started);
      return undefined;
    }
    if (decision.verdict === 'deny') {
      this._deny(event, gate, { event: 'deny', reason: decision.reason, ...rule }, request, started);
      return undefined;
    }
    return this._settleAsk(event, gate, request, { verdict: 'ask', reason: decision.reason, ...rule }, started);
  }

  /** An `ask`: refused without an approval path, else settled by the gate's callback or the SDK interrupt. */
  private async _settleAsk(
    event: BeforeToolCallEvent,
    gate: Gate,
    request: ToolCallRequest,
    decision: AskDecision,
    started: number,
  ): Promise<Error | undefined> {
    const rule = decision.rule === undefined ? {} : { rule: decision.rule };
    const approval = gate.approval;
    if (approval === undefined || (approval.via !== 'interrupt' && approval.via !== 'callback')) {
      const reason = `approval required (${decision.reason}) but no approval path is configured`;
      this._deny(event, gate, { event: 'deny', reason, ...rule }, request, started);
      return undefined;
    }
    let outcome: unknown;
    if (approval.via === 'callback') {
      outcome = await settle(() => approval.ask(request, decision));
    } else {
      const id = request.toolUseId;
      let answer: unknown;
      try {
        // The reason carries the request, so whoever answers can see it and sign exactly it (`approve`).
        const reason = { gate: gate.name, ...decision, request: { ...request, path: [...request.path] } };
        answer = event.interrupt({ name: APPROVAL_INTERRUPT, reason: reason as unknown as JSONValue });
      } catch (error) {
        if (!isInterruptError(error)) throw error;
        // The run pauses: record it first (a failing record refuses instead), then let the SDK collect it.
        if (!this._record(event, gate, { event: 'ask', reason: decision.reason, ...rule }, request, started)) {
          return undefined;
        }
        this._raised.set(id, gate);
        return error;
      }
      const raisedBy = this._raised.get(id);
      this._raised.delete(id);
      outcome =
        raisedBy === gate
          ? await settle(() => approval.check(request, answer))
          : {
              granted: false,
              reason:
                'the approval answer was not requested by this gate in this process ' +
                '(pre-loaded from a snapshot or session?)',
            };
    }
    if (typeof outcome === 'object' && outcome !== null && (outcome as ApprovalOutcome).granted === true) {
      this._allow(event, gate, { event: 'approval-granted', reason: decision.reason, ...rule }, request, started);
      return undefined;
    }
    const why = (outcome as { reason?: unknown } | null)?.reason;
    const reason = `approval refused (${typeof why === 'string' && why !== '' ? why : 'no reason given'})`;
    this._deny(event, gate, { event: 'approval-refused', reason, ...rule }, request, started);
    return undefined;
  }

  /** The innermost `ExecuteToolStage` middleware: runs the tool only if it is exactly what was allowed. */
  readonly executionCheck: ExecuteToolHandler = createExecutionCheck(this);

  /** After each call: a call allowed but never checked, or refused yet answered with success, was bypassed. */
  readonly audit = (event: AfterToolCallEvent): void => {
    const id = event.toolUse.toolUseId;
    const seal = this._seals.get(id);
    this._seals.delete(id);
    if (event.agent !== this._agent || seal === undefined || seal.checked || event.result.status !== 'success') return;
    const what = seal.allowed ? 'skipped the gate check' : 'ran although the gate refused it';
    const text = `${ERROR} tool call "${event.toolUse.name}" ${what}; its result is withheld and the run stops`;
    log('error', { tool: event.toolUse.name, toolUseId: id, agent: this._agent.id }, text);
    this._recordTampering(event.toolUse.name, id, text);
    event.result = errorResult(id, text);
    this._stopped ??= `tool call "${event.toolUse.name}" bypassed the gate earlier in this invocation`;
  };

  /** Stops the model from being called again once the gate failed in this invocation. */
  readonly stopModel = (event: BeforeModelCallEvent): void => {
    if (this._stopped !== undefined) event.cancel = `${ERROR} ${this._stopped}; the run was stopped`;
  };

  /** Each invocation starts clean. */
  readonly reset = (): void => {
    this._stopped = undefined;
  };

  _mismatch(context: Parameters<ExecuteToolHandler>[0]): string | undefined {
    const seal = this._seals.get(context.toolUse.toolUseId);
    if (seal === undefined) return 'no gate decision exists for this tool use';
    if (!seal.allowed) return 'the gate refused this call, but a later hook cleared the cancel';
    if (!isInnermostMiddleware(this._agent, this.executionCheck)) {
      return 'another middleware was registered inside the gate check and could change the call';
    }
    if (context.toolUse.name !== seal.name) {
      return `the tool name changed after the decision ("${seal.name}" → "${context.toolUse.name}")`;
    }
    if (context.tool !== seal.tool) return 'a different tool object was selected after the decision';
    const input = sealInput(context.toolUse.input);
    if (input === undefined || input !== seal.input) return 'the input changed after the decision';
    seal.checked = true;
    return undefined;
  }

  private _request(event: BeforeToolCallEvent): ToolCallRequest {
    return {
      toolUseId: event.toolUse.toolUseId,
      toolName: event.toolUse.name,
      input: structuredClone(withoutMarker(event.toolUse.input)),
      agentId: this._agent.id,
      agentName: this._agent.name,
      path: this._path,
      paths: [this._path],
      toolKind: toolKindOf(event.tool),
    };
  }

  private _seal(event: BeforeToolCallEvent, allowed: boolean): void {
    this._seals.set(event.toolUse.toolUseId, {
      allowed,
      name: event.toolUse.name,
      input: sealInput(event.toolUse.input),
      tool: event.selectedTool ?? event.tool,
      checked: false,
    });
  }

  private _refuse(event: BeforeToolCallEvent, message: string): void {
    event.cancel = message;
    this._seal(event, false);
  }

  /**
   * Gives the gate its record of this call. A record that throws refuses the call and stops the run.
   *
   * @returns whether the record was taken
   */
  private _record(
    event: BeforeToolCallEvent,
    gate: Gate,
    what: RecordFields,
    request: ToolCallRequest,
    started: number,
  ): boolean {
    if (gate.record === undefined) return true;
    try {
      gate.record(this._recordOf(what, request, started));
      return true;
    } catch (error) {
      this._fail(event, `gate "${gate.name}" could not record the decision: ${messageOf(error)}`, started);
      return false;
    }
  }

  private _recordOf(what: RecordFields, request: ToolCallRequest, started: number): GateRecord {
    const verdict =
      what.event === 'allow' || what.event === 'approval-granted' ? 'allow' : what.event === 'ask' ? 'ask' : 'deny';
    return {
      ...what,
      verdict,
      toolName: request.toolName,
      toolUseId: request.toolUseId,
      agentId: this._agent.id,
      path: this._path,
      input: request.input,
      durationMs: performance.now() - started,
    };
  }

  private _allow(
    event: BeforeToolCallEvent,
    gate: Gate,
    what: RecordFields,
    request: ToolCallRequest,
    started: number,
  ): void {
    if (this._record(event, gate, what, request, started)) this._seal(event, true);
  }

  private _deny(
    event: BeforeToolCallEvent,
    gate: Gate,
    what: RecordFields & { reason: string },
    request: ToolCallRequest,
    started: number,
  ): void {
    const rule = what.rule === undefined ? '' : `, rule=<${what.rule}>`;
    this._refuse(event, `${BLOCKED} ${what.reason} | tool=<${event.toolUse.name}>, agent=<${this._agent.id}>${rule}`);
    this._record(event, gate, what, request, started);
  }

  /** Refuses a call before the gate is asked, and records that refusal. */
  private _refuseRecorded(event: BeforeToolCallEvent, message: string, reason: string, started: number): void {
    this._refuse(event, message);
    const gate = this._source.resolve();
    if (gate !== undefined) this._record(event, gate, { event: 'deny', reason }, this._request(event), started);
  }

  /** Records tampering seen after the decision (best effort: the call is refused either way). */
  _recordTampering(toolName: string, toolUseId: string, reason: string): void {
    try {
      this._source.resolve()?.record?.({
        event: 'tampering',
        verdict: 'deny',
        reason,
        toolName,
        toolUseId,
        agentId: this._agent.id,
        path: this._path,
      });
    } catch (error) {
      log(
        'error',
        { tool: toolName, toolUseId, agent: this._agent.id },
        `could not record tampering: ${messageOf(error)}`,
      );
    }
  }

  private _fail(
    event: BeforeToolCallEvent,
    problem: string,
    started?: number,
    gate?: Gate,
    request?: ToolCallRequest,
  ): void {
    log('error', { tool: event.toolUse.name, agent: this._agent.id, path: this._path.join('/') }, problem);
    this._stopped ??= `the gate failed earlier in this invocation (${problem})`;
    event.cancel = `${ERROR} ${problem}; the run stops`;
    try {
      this._seal(event, false);
    } catch {
      // The cancel above already refuses the call.
    }
    try {
      const target = gate ?? this._source.resolve();
      target?.record?.(
        this._recordOf(
          { event: 'error', reason: problem },
          request ?? { ...this._request(event), input: undefined },
          started ?? performance.now(),
        ),
      );
    } catch {
      // The log failed too: the cancel above refuses the call and stderr has the problem.
    }
  }

  /**
   * A delegate agent-as-tool re-yields its inner `BeforeToolCallEvent` to the outer agent's hooks. The
   * inner agent's own gate decides it; an inner agent without a gate gets refused here.
   */
  private _decideForeign(event: BeforeToolCallEvent): void {
    if (isGatedAgent(event.agent)) return;
    event.cancel = `${BLOCKED} agent "${event.agent.id}" runs tools without a gate | gate it too`;
  }
}

function createExecutionCheck(runtime: AgentGateRuntime): ExecuteToolHandler {
  return async function* executionCheck(context, next) {
    const id = context.toolUse.toolUseId;
    const problem = runtime._mismatch(context);
    if (problem !== undefined) {
      log('error', { tool: context.toolUse.name, toolUseId: id }, `call refused at execution: ${problem}`);
      runtime._recordTampering(context.toolUse.name, id, `call refused at execution: ${problem}`);
      return { result: errorResult(id, `${BLOCKED} ${problem} | tool=<${context.toolUse.name}>`) };
    }
    return yield* next(context);
  };
}

function isGatedAgent(agent: unknown): boolean {
  return agent instanceof Agent && isGated(agent);
}

/**
 * Installs the gate on one agent, unless it carries one already (from this or another copy of
 * gate-audit, or a `GatePlugin`).
 *
 * @param agent - a local Agent already checked by the preflight
 * @param source - the gate, or the process-wide gate resolved at each call
 * @param path - where the agent sits in its tree
 * @returns the new handle, or undefined when the agent was gated already
 */
export function installAgentGate(agent: Agent, source: GateSource, path: readonly string[]): AgentGate | undefined {
  if (agentGateState(agent) === 'gated') return undefined;
  const runtime = new AgentGateRuntime(agent, source, path);
  const cleanups: (() => void)[] = [];
  const uninstall = (): void => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    if (agentGateMark(agent)?.decisionHook === runtime.decide)
      delete (agent as unknown as Record<symbol, unknown>)[AGENT_GATE_MARK];
  };
  try {
    cleanups.push(agent.addHook(BeforeInvocationEvent, runtime.reset, { order: -Infinity }));
    cleanups.push(agent.addHook(BeforeToolCallEvent, runtime.decide, { order: -Infinity }));
    moveHookFirst(agent, runtime.decide);
    // First so an earlier throwing hook cannot skip it, last so a later hook cannot clear the cancel.
    cleanups.push(agent.addHook(BeforeModelCallEvent, runtime.stopModel, { order: -Infinity }));
    cleanups.push(agent.addHook(BeforeModelCallEvent, runtime.stopModel, { order: Infinity }));
    cleanups.push(agent.addHook(AfterToolCallEvent, runtime.audit, { order: -Infinity }));
    cleanups.push(agent.addMiddleware(ExecuteToolStage, runtime.executionCheck));
    const mark: AgentGateMark = {
      decisionHook: runtime.decide,
      executionCheck: runtime.executionCheck,
      gateName: source.name,
      path,
    };
    Object.defineProperty(agent, AGENT_GATE_MARK, { value: mark, configurable: true, enumerable: false });
  } catch (error) {
    uninstall();
    throw error;
  }
  return {
    agent,
    path,
    gateName: source.name,
    isActive: () => agentGateMark(agent)?.decisionHook === runtime.decide && agentGateState(agent) === 'gated',
    uninstall,
  };
}
