/**
 * `gate-audit/otel`: the gate's decisions in OpenTelemetry, on the SDK's own spans.
 *
 * - Every SDK `execute_tool` span, gated or not: `gate_audit.agent_id` and `gate_audit.path` when it starts (the
 *   SDK's tool spans name no agent): the gate's own knowledge for a decided call, else what the live spans
 *   above it say (`place.ts`). A place that cannot be told leaves `gate_audit.path` out.
 * - An allowed call: `gate_audit.gate`, `gate_audit.verdict`, `gate_audit.rule` are added to the SDK's own
 *   `execute_tool` span when it starts, matched by (trace id, parent span id, `gen_ai.tool.call.id`): models
 *   reuse call ids such as `call_0`, so the call id alone could label another agent's span.
 * - A refused, asked or failed call (the SDK makes no span for it): a span `gate_audit.decide <tool>`, child
 *   of the agent's current loop-cycle span, with the `gen_ai.*` attributes of a tool span, the `gate_audit.*`
 *   ones (agent and place included), `error.type` (`gate_denied` or `gate_error`) and status ERROR.
 * - A node the node guard cancels: the same attributes and status ERROR on the orchestrator's `node` span.
 * - A counter `gate_audit.decisions` by gate, verdict and rule, through the metrics API.
 * - Decision-log records (file or PostgreSQL) written inside an active span carry its `traceId` and `spanId`
 *   while a processor is open (`policy/trace-ids.ts`), so `gate-audit observed` can match them to the calls.
 *
 * The loop span and the orchestrator's span sit in SDK-private state (`src/frameworks/strands/sdk-internals.ts`,
 * feature-dependent): when one cannot be read, the span is parented to the active context and carries
 * `gate_audit.parent = "active_context"`; it is never dropped. Attributes only, no span events.
 *
 * Nothing is observed until `gateSpanProcessor()` is called; `@opentelemetry/api` is an optional peer.
 */
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  metrics,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { type DecisionObserver, type NodeCancel, setDecisionObserver, type ToolDecision } from '../enforce/observe.js';
import { joinPath } from '../tree-paths.js';
import { setSpanIdsProvider, type SpanIds } from '../policy/trace-ids.js';
import { agentLoopSpan, orchestratorSpan } from '../frameworks/strands/tracer-spans.js';
import {
  AGENT_ID_ATTRIBUTE,
  chainOf,
  INSTRUMENTATION_SCOPE,
  linkOf,
  PATH_ATTRIBUTE,
  placeOf,
  type SpanLink,
  type SpanPlace,
  VERDICT_ATTRIBUTE,
} from './place.js';
import { clearLangGraphSpans, runAllowedLangGraphCall } from './langgraph.js';

export { type LangGraphTracer, langGraphTracer } from './langgraph.js';

/** Where a decision span went when the SDK's span could not be read. */
const PARENT_ACTIVE_CONTEXT = 'active_context';

/**
 * A span processor to add to a tracer provider (`spanProcessors: [gateSpanProcessor(), ...]`). It has the
 * shape of `SpanProcessor` from `@opentelemetry/sdk-trace-base`, without depending on it.
 */
export interface GateSpanProcessor {
  /**
   * Names the agent and place of every SDK `execute_tool` span and labels the one of an allowed call;
   * remembers live spans (for the place of the calls under them) and live `node` spans.
   */
  onStart(span: Span, parentContext: Context): void;
  /** Forgets a span. */
  onEnd(span: object): void;
  forceFlush(): Promise<void>;
  /** Stops observing decisions (when no other gate span processor is left). */
  shutdown(): Promise<void>;
}

/** How many allowed decisions wait for their tool span at most (the oldest are dropped first). */
const MAX_PENDING = 10_000;

/** How many live spans are remembered at most (the oldest are dropped first: their calls read no place). */
const MAX_LIVE = 100_000;

interface Labels {
  readonly gate?: string;
  readonly verdict: string;
  readonly rule?: string;
  /** The agent and the place the gate knew. */
  readonly agentId?: string;
  readonly path?: readonly string[];
}

const pending = new Map<string, Labels>();
/**
 * Every span started and not yet ended (but `chat` spans, which never hold a call), by span id (random 64 bits:
 * the trace id adds nothing to tell them apart): what the place of a call is read from.
 */
const liveSpans = new Map<string, SpanLink>();
const liveNodes = new Map<string, Span>();
const processors = new Set<object>();
/** The counter, with the meter provider it came from (the global provider may be set after the processor). */
let counter: { provider: object; counter: Counter } | undefined;

function labelAttributes(labels: Labels): Attributes {
  return {
    ...(labels.gate === undefined ? {} : { 'gate_audit.gate': labels.gate }),
    [VERDICT_ATTRIBUTE]: labels.verdict,
    ...(labels.rule === undefined ? {} : { 'gate_audit.rule': labels.rule }),
  };
}

/** `gate_audit.agent_id` and `gate_audit.path` of a place (nothing for what is not known). */
function placeAttributes(place: SpanPlace): Attributes {
  return {
    ...(place.agentId === undefined ? {} : { [AGENT_ID_ATTRIBUTE]: place.agentId }),
    ...(place.path === undefined ? {} : { [PATH_ATTRIBUTE]: joinPath(place.path) }),
  };
}

/** What the live spans say of the place of a call whose parent is `parentSpanId`. */
function livePlace(parentSpanId: string | undefined): SpanPlace {
  return placeOf(chainOf(parentSpanId, (id) => liveSpans.get(id)));
}

/** The place of a decided call: the gate's agent, and its place when it knows exactly one, else the spans'. */
function decidedPlace(labels: Pick<Labels, 'agentId' | 'path'>, spans: () => SpanPlace): SpanPlace {
  const known = labels.path !== undefined && labels.path.length > 0 ? labels.path : undefined;
  const place = known === undefined ? spans() : { path: known };
  const agentId = labels.agentId ?? place.agentId;
  return { ...(agentId === undefined ? {} : { agentId }), ...(place.path === undefined ? {} : { path: place.path }) };
}

/** The ids of the active span (for decision records), when one is active. */
function activeIds(): SpanIds | undefined {
  const active = trace.getActiveSpan()?.spanContext();
  return active === undefined || !trace.isSpanContextValid(active)
    ? undefined
    : { traceId: active.traceId, spanId: active.spanId };
}

function count(labels: Labels): void {
  const provider = metrics.getMeterProvider();
  if (counter?.provider !== provider) {
    counter = {
      provider,
      counter: provider
        .getMeter(INSTRUMENTATION_SCOPE)
        .createCounter('gate_audit.decisions', { description: 'Tool calls decided and nodes cancelled by gate-audit' }),
    };
  }
  counter.counter.add(1, labelAttributes(labels));
}

/** The span context of a span read from SDK-private state, or why it cannot be used. */
function spanContextOf(read: ReturnType<typeof agentLoopSpan>): { span: Span; context: SpanContext } | string {
  if (!read.ok) return `unreadable (${read.why})`;
  const span = read.value as Partial<Span>;
  if (typeof span.spanContext !== 'function') return 'not a span';
  const spanContext = span.spanContext();
  return trace.isSpanContextValid(spanContext) ? { span: span as Span, context: spanContext } : 'no valid span context';
}

const keyOf = (traceId: string, parentSpanId: string | undefined, id: unknown): string =>
  `${traceId}/${parentSpanId ?? ''}/${String(id)}`;

/** The parent span id of an SDK span (`parentSpanContext` in sdk-trace-base 2, `parentSpanId` in 1). */
function parentSpanIdOf(span: object): string | undefined {
  const { parentSpanContext, parentSpanId } = span as { parentSpanContext?: SpanContext; parentSpanId?: string };
  return parentSpanContext?.spanId ?? parentSpanId;
}

function attributesOf(span: object): Attributes {
  return (span as { attributes?: Attributes }).attributes ?? {};
}

/** Starts and ends one span of gate-audit's own, with status ERROR. */
function errorSpan(name: string, attributes: Attributes, parent: Span | undefined, why: string, message: string): void {
  const parentContext = parent === undefined ? context.active() : trace.setSpan(context.active(), parent);
  const span = trace.getTracer(INSTRUMENTATION_SCOPE).startSpan(
    name,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        ...attributes,
        ...(parent === undefined
          ? { 'gate_audit.parent': PARENT_ACTIVE_CONTEXT, 'gate_audit.parent_unread': why }
          : {}),
      },
    },
    parentContext,
  );
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

function labelsOf(decision: ToolDecision): Labels {
  return {
    ...(decision.gate === undefined ? {} : { gate: decision.gate }),
    verdict: decision.verdict,
    ...(decision.rule === undefined ? {} : { rule: decision.rule }),
    agentId: decision.agentId,
    ...(decision.path === undefined ? {} : { path: decision.path }),
  };
}

function onTool(decision: ToolDecision): void {
  const labels = labelsOf(decision);
  count(labels);
  if (decision.agent === undefined) {
    onLangGraphTool(decision, labels);
    return;
  }
  const loop = spanContextOf(agentLoopSpan(decision.agent));
  // Without the loop span, the SDK parents its tool span to the active one: match (and place) on that instead.
  const parent = typeof loop === 'string' ? trace.getActiveSpan()?.spanContext() : loop.context;
  if (decision.verdict === 'allow') {
    if (parent === undefined || !trace.isSpanContextValid(parent)) return;
    pending.set(keyOf(parent.traceId, parent.spanId, decision.toolUseId), labels);
    if (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value as string);
    return;
  }
  const place = decidedPlace(labels, () =>
    parent === undefined || !trace.isSpanContextValid(parent) ? {} : livePlace(parent.spanId),
  );
  refusedSpan(
    decision,
    labels,
    place,
    typeof loop === 'string' ? undefined : loop.span,
    typeof loop === 'string' ? `agent loop span ${loop}` : '',
  );
}

/** gate-audit's own span of a call the gate refused, asked about or failed on (the tool never ran). */
function refusedSpan(
  decision: ToolDecision,
  labels: Labels,
  place: SpanPlace,
  parent: Span | undefined,
  why: string,
): void {
  errorSpan(
    `gate_audit.decide ${decision.toolName}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': decision.toolName,
      'gen_ai.tool.call.id': decision.toolUseId,
      'gen_ai.agent.id': decision.agentId,
      ...placeAttributes(place),
      ...labelAttributes(labels),
      'error.type': decision.verdict === 'error' ? 'gate_error' : 'gate_denied',
    },
    parent,
    why,
    decision.reason ?? decision.verdict,
  );
}

/**
 * A LangGraph call (a tool node has no agent object, and LangGraph makes no spans): an allowed call's labels go
 * with its tool's run (`allowedRun`); any other outcome gets gate-audit's own span, under the active span.
 */
function onLangGraphTool(decision: ToolDecision, labels: Labels): void {
  if (decision.verdict === 'allow') return;
  refusedSpan(
    decision,
    labels,
    decidedPlace(labels, () => ({})),
    undefined,
    'a LangGraph call has no agent loop span',
  );
}

/** Keeps a cancelled node's span at ERROR: the SDK ends it with status OK, which would be final. */
function holdError(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  const setStatus = span.setStatus.bind(span);
  Object.defineProperty(span, 'setStatus', {
    configurable: true,
    writable: true,
    value: (status: { code: SpanStatusCode; message?: string }): Span =>
      status.code === SpanStatusCode.OK ? span : setStatus(status),
  });
}

function onNode(cancel: NodeCancel): void {
  const labels: Labels = {
    ...(cancel.gate === undefined ? {} : { gate: cancel.gate }),
    verdict: 'deny',
    rule: 'node-guard',
  };
  count(labels);
  const attributes: Attributes = { ...labelAttributes(labels), 'error.type': 'gate_denied' };
  const run = spanContextOf(orchestratorSpan(cancel.orchestrator));
  const node =
    typeof run === 'string' ? undefined : liveNodes.get(keyOf(run.context.traceId, run.context.spanId, cancel.nodeId));
  if (node !== undefined) {
    node.setAttributes(attributes);
    holdError(node, cancel.reason);
    return;
  }
  errorSpan(
    `gate_audit.decide node ${cancel.nodeId}`,
    { 'gen_ai.operation.name': 'execute_node', 'gen_ai.agent.id': cancel.nodeId, ...attributes },
    undefined,
    typeof run === 'string' ? `orchestrator span ${run}` : 'node span not seen by the processor',
    cancel.reason,
  );
}

const observer: DecisionObserver = {
  tool: onTool,
  node: onNode,
  allowedRun: <T>(decision: ToolDecision, run: () => T): T =>
    decision.agent === undefined
      ? runAllowedLangGraphCall(decision.toolName, decision.toolUseId, labelAttributes(labelsOf(decision)), run)
      : run(),
};

/**
 * A span processor that puts the gate's decisions on the SDK's spans. Add it to the tracer provider the
 * SDK traces with: `new BasicTracerProvider({ spanProcessors: [gateSpanProcessor(), exporting] })`.
 *
 * @returns the processor; decisions are observed (and decision records get span ids) from now until every
 *   such processor is shut down
 */
export function gateSpanProcessor(): GateSpanProcessor {
  const processor: GateSpanProcessor = {
    onStart(span: Span): void {
      const attributes = attributesOf(span);
      const operation = attributes['gen_ai.operation.name'];
      const { traceId, spanId } = span.spanContext();
      const parent = parentSpanIdOf(span);
      if (operation !== 'chat') {
        const name = (span as { name?: unknown }).name;
        liveSpans.set(
          spanId,
          linkOf(typeof name === 'string' ? name : '', (key) => attributes[key], parent),
        );
        if (liveSpans.size > MAX_LIVE) liveSpans.delete(liveSpans.keys().next().value as string);
      }
      if (operation === 'execute_tool') {
        const key = keyOf(traceId, parent, attributes['gen_ai.tool.call.id']);
        const labels = pending.get(key);
        if (labels !== undefined) pending.delete(key);
        const place = labels === undefined ? livePlace(parent) : decidedPlace(labels, () => livePlace(parent));
        span.setAttributes({ ...placeAttributes(place), ...(labels === undefined ? {} : labelAttributes(labels)) });
      } else if (operation === 'execute_node') {
        liveNodes.set(keyOf(traceId, parent, attributes['gen_ai.agent.id']), span);
      }
    },
    onEnd(span: object): void {
      const { traceId, spanId } = (span as { spanContext(): SpanContext }).spanContext();
      liveSpans.delete(spanId);
      const attributes = attributesOf(span);
      if (attributes['gen_ai.operation.name'] !== 'execute_node') return;
      const key = keyOf(traceId, parentSpanIdOf(span), attributes['gen_ai.agent.id']);
      if (liveNodes.get(key) === span) liveNodes.delete(key);
    },
    forceFlush: (): Promise<void> => Promise.resolve(),
    shutdown: (): Promise<void> => {
      processors.delete(processor);
      if (processors.size === 0) {
        setDecisionObserver(undefined);
        setSpanIdsProvider(undefined);
        pending.clear();
        clearLangGraphSpans();
        liveNodes.clear();
        liveSpans.clear();
      }
      return Promise.resolve();
    },
  };
  processors.add(processor);
  setDecisionObserver(observer);
  setSpanIdsProvider(activeIds);
  return processor;
}
