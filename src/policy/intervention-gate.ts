/**
 * `interventionGate`: an SDK `InterventionHandler` (for example `CedarAuthorization`) used as a policy
 * source behind gate-audit's enforcement, not as the enforcement point. The handler's `onError`, preset
 * confirm responses and `evaluate` are ignored (`docs/sdk-paths.md`, "Interventions"): Proceed → allow, Deny → deny,
 * Confirm → ask (settled by this gate's own approval path), anything else or any error → deny.
 */
import type { Agent, BeforeToolCallEvent, InterventionHandler } from '@strands-agents/sdk';
import type { Decision, DecideContext, Gate, GateRecord, ToolCallRequest } from '../enforce/gate.js';
import { GateAuditError, messageOf } from '../errors.js';
import { type GateOptions, gateOptions } from './policy-gate.js';

/** Makes the handler for one agent (handlers such as Cedar's keep per-agent counters). */
export type InterventionFactory = (agent: Agent) => InterventionHandler;

/** What the handler sees: a copy of the call, never the live event (it cannot change what runs). */
function eventFor(request: ToolCallRequest, context: DecideContext): BeforeToolCallEvent {
  const view = {
    type: 'beforeToolCallEvent',
    agent: context.agent,
    toolUse: { name: request.toolName, toolUseId: request.toolUseId, input: structuredClone(request.input) },
    tool: undefined,
    invocationState: context.invocationState,
    cancel: false,
    selectedTool: undefined,
    interrupt: (): never => {
      throw new Error('interrupt() is not available to a handler behind interventionGate; return confirm() instead');
    },
  };
  return view as unknown as BeforeToolCallEvent;
}

function decisionOf(action: unknown, handlerName: string): Decision {
  const rule = `intervention:${handlerName}`;
  const type = typeof action === 'object' && action !== null ? (action as { type?: unknown }).type : undefined;
  if (type === 'proceed') return { verdict: 'allow', rule };
  const text = (key: string): string | undefined => {
    const value = (action as Record<string, unknown>)[key];
    return typeof value === 'string' && value.trim() !== '' ? value : undefined;
  };
  if (type === 'deny') return { verdict: 'deny', reason: text('reason') ?? `denied by ${handlerName}`, rule };
  if (type === 'confirm')
    return { verdict: 'ask', reason: text('prompt') ?? `${handlerName} asks for confirmation`, rule };
  const what = typeof type === 'string' ? `a "${type}" action` : 'no action';
  return { verdict: 'deny', reason: `${handlerName} answered ${what}, which the gate treats as a deny`, rule };
}

/**
 * Adapts an SDK `InterventionHandler` as a `Gate`. The factory is called once per agent, at that agent's
 * first tool call.
 *
 * @param factory - makes the handler for one agent, e.g. `() => new CedarAuthorization({ policies })`
 * @param options - approvals or approver for Confirm, the decision log, a name
 * @returns the gate
 */
export function interventionGate(factory: InterventionFactory, options?: GateOptions): Gate {
  if (typeof factory !== 'function') {
    throw new GateAuditError('INVALID_ARGUMENT', 'subject=<interventionGate> | factory is not a function');
  }
  const { name = 'intervention', approval, record } = gateOptions(options, 'interventionGate');
  const handlers = new WeakMap<Agent, InterventionHandler>();
  return {
    name,
    decide: async (request, context): Promise<Decision> => {
      if (context === undefined) {
        return {
          verdict: 'deny',
          reason: 'an intervention handler needs the agent; none was given',
          rule: 'intervention',
        };
      }
      let handler = handlers.get(context.agent);
      let handlerName = 'handler';
      try {
        if (handler === undefined) {
          handler = factory(context.agent);
          if (typeof handler?.beforeToolCall !== 'function')
            throw new Error('the factory did not return an InterventionHandler');
          handlers.set(context.agent, handler);
        }
        handlerName = typeof handler.name === 'string' ? handler.name : handlerName;
        return decisionOf(await handler.beforeToolCall(eventFor(request, context)), handlerName);
      } catch (error) {
        return {
          verdict: 'deny',
          reason: `intervention "${handlerName}" failed: ${messageOf(error)}`,
          rule: `intervention:${handlerName}`,
        };
      }
    },
    ...(approval === undefined ? {} : { approval }),
    ...(record === undefined ? {} : { record: (entry: GateRecord) => record(name, entry) }),
  };
}
