/**
 * `langGraphTracer()`: tool spans for LangGraph.js runs, which make no OpenTelemetry spans of their own. It is a
 * LangChain callback handler (pass it in `callbacks` of the root `invoke` or `stream`; LangChain hands it to every
 * nested run) that makes one `execute_tool <tool>` span per tool a run executes, gated or not, with the attributes
 * `gate-audit observed` reads from a Strands tool span:
 *
 * - `gen_ai.operation.name=execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`;
 * - `gate_audit.path`: the tool node's place as the audit names it (the root graph's name, each node's name, and
 *   the name of a graph a function node invokes; a compiled subgraph added as a node adds its node's name only),
 *   read from the runs above the tool; `gate_audit.agent_id`: the segment above the tool node (as the gate names it);
 * - `gate_audit.verdict` (and `gate_audit.gate`, `gate_audit.rule`) when gate-audit's gate allowed the call: the
 *   decision observer a `gateSpanProcessor()` opens binds the allowance to the allowed call's own run (an async
 *   context), and only the first tool of the judged name and call id started inside it takes it. A tool started
 *   anywhere else (another run, a middleware's own tool call) is never labelled, whatever its place and id.
 *
 * A call the gate refused never runs, so it has no tool span: `gateSpanProcessor` makes gate-audit's own
 * `gate_audit.decide <tool>` span for it, as for Strands. The handler's spans use the instrumentation scope
 * `gate-audit.langgraph` (gate-audit's own scope marks refusals). LangChain callbacks can be dropped by app code
 * (`callbacks: []` in a nested invoke): a tool run they never see makes no span. This is observation, never
 * enforcement: whatever the handler throws, LangChain logs and the run goes on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { GateAuditError, messageOf } from '../errors.js';
import { joinPath, segmentOf, UNNAMED } from '../tree-paths.js';
import { AGENT_ID_ATTRIBUTE, PATH_ATTRIBUTE } from './place.js';

/** The instrumentation scope of the handler's tool spans (not gate-audit's own, which marks a refused call). */
export const LANGGRAPH_TRACER_SCOPE = 'gate-audit.langgraph';

/** How many runs and tool spans are remembered at most (the oldest are dropped first: their tools read no place). */
const MAX_RUNS = 100_000;

/** How far up the runs above a tool are read. */
const MAX_DEPTH = 256;

interface RunLink {
  readonly parent: string | undefined;
  readonly name: string;
  /** A compiled graph's own run, a graph node's run, or anything else (a sequence, a lambda, a model call). */
  readonly kind: 'graph' | 'node' | 'other';
  /** For a node: its runnable is a compiled graph (a subgraph added as a node). */
  readonly subgraphNode: boolean;
}

const runs = new Map<string, RunLink>();
const toolSpans = new Map<string, Span>();
/** The allowed call whose tool is running here (bound by the gate around the tool's run). */
interface AllowedCall {
  readonly toolName: string;
  readonly toolUseId: string;
  readonly attributes: Attributes;
  /** Its tool span was made (a second tool of the same name and id started inside it gets none). */
  used: boolean;
}

const allowedCalls = new AsyncLocalStorage<AllowedCall>();

/**
 * Runs the tool of a call the gate allowed with its labels bound to the run: the span of the first tool of that
 * name and call id started inside it carries them (called by `gateSpanProcessor`'s decision observer).
 *
 * @param toolName - the judged call's tool
 * @param toolUseId - its call id
 * @param attributes - the verdict, gate and rule attributes to put on its span
 * @param run - the tool's run
 */
export function runAllowedLangGraphCall<T>(
  toolName: string,
  toolUseId: string,
  attributes: Attributes,
  run: () => T,
): T {
  return allowedCalls.run({ toolName, toolUseId, attributes, used: false }, run);
}

/** The labels of the allowed call a tool starting here belongs to, taken once. */
function takeAllowed(name: string, callId: string | undefined): Attributes | undefined {
  const here = allowedCalls.getStore();
  if (here === undefined || here.used || here.toolName !== name || here.toolUseId !== callId) return undefined;
  here.used = true;
  return here.attributes;
}

/** Forgets every run and tool span (when the last gate span processor shuts down). */
export function clearLangGraphSpans(): void {
  runs.clear();
  toolSpans.clear();
}

/** The `id` of a serialized runnable LangChain hands a callback (`["langgraph", "pregel", "CompiledStateGraph"]`). */
function serializedId(serialized: unknown): readonly unknown[] | undefined {
  if (typeof serialized !== 'object' || serialized === null) return undefined;
  const id = (serialized as { id?: unknown }).id;
  return Array.isArray(id) ? id : undefined;
}

function isGraphId(id: readonly unknown[] | undefined): boolean {
  return id !== undefined && id[0] === 'langgraph' && id.includes('pregel');
}

/**
 * Whether a node's runnable (`kwargs.first` of its serialized sequence) is a compiled graph: LangChain hands the
 * runnable itself there, whose namespace is an own field; a serialized one has an `id`.
 */
function isGraphRunnable(first: unknown): boolean {
  if (typeof first !== 'object' || first === null) return false;
  const namespace: unknown = Object.getOwnPropertyDescriptor(first, 'lc_namespace')?.value;
  return isGraphId(Array.isArray(namespace) ? namespace : serializedId(first));
}

function linkOf(
  serialized: unknown,
  parent: string | undefined,
  tags: readonly string[] | undefined,
  metadata: Record<string, unknown> | undefined,
  name: string | undefined,
): RunLink {
  const runName = name ?? '';
  if (isGraphId(serializedId(serialized))) return { parent, name: runName, kind: 'graph', subgraphNode: false };
  // A node's run: LangGraph tags it with its step and names it after the node.
  const step = (tags ?? []).some((tag) => /^graph:step:\d+$/.test(tag));
  if (step && metadata?.langgraph_node === runName) {
    const kwargs = (serialized as { kwargs?: { first?: unknown } } | null)?.kwargs;
    return { parent, name: runName, kind: 'node', subgraphNode: isGraphRunnable(kwargs?.first) };
  }
  return { parent, name: runName, kind: 'other', subgraphNode: false };
}

/** The place of a tool whose run's parent is `parent`: its path (as the audit names the tool node) and agent. */
function placeOf(parent: string | undefined): { path?: string[]; agentId?: string } {
  const chain: RunLink[] = [];
  for (let id = parent, depth = 0; id !== undefined && depth < MAX_DEPTH; depth += 1) {
    const link = runs.get(id);
    if (link === undefined) break;
    chain.push(link);
    id = link.parent;
  }
  chain.reverse();
  const path: string[] = [];
  let above: RunLink | undefined;
  for (const link of chain) {
    if (link.kind === 'node' && path.length > 0) path.push(segmentOf(link.name, UNNAMED));
    else if (link.kind === 'graph' && !(above?.kind === 'node' && above.subgraphNode)) {
      path.push(segmentOf(link.name, UNNAMED));
    }
    if (link.kind !== 'other') above = link;
  }
  if (path.length === 0) return {};
  const agentId = path.length > 1 ? path[path.length - 2] : path[0];
  return { path, ...(agentId === undefined ? {} : { agentId }) };
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_RUNS) map.delete(map.keys().next().value as string);
}

/** The handler's methods, as LangChain calls them (its parameter lists, loosely typed). */
interface TracerMethods {
  handleChainStart(
    chain: unknown,
    inputs: unknown,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runType?: string,
    runName?: string,
  ): void;
  handleChainEnd(outputs: unknown, runId: string): void;
  handleChainError(error: unknown, runId: string): void;
  handleToolStart(
    tool: unknown,
    input: unknown,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void;
  handleToolEnd(output: unknown, runId: string): void;
  handleToolError(error: unknown, runId: string): void;
}

/** A LangChain callback handler making tool spans (`callbacks: [langGraphTracer()]`). */
export interface LangGraphTracer extends TracerMethods {
  readonly name: string;
  /** Always true: LangChain awaits each callback, so a tool's span starts before the tool runs. */
  readonly awaitHandlers: boolean;
}

const methods: TracerMethods = {
  handleChainStart(chain, _inputs, runId, parentRunId, tags, metadata, _runType, runName): void {
    remember(runs, runId, linkOf(chain, parentRunId, tags, metadata, runName));
  },
  handleChainEnd(_outputs, runId): void {
    runs.delete(runId);
  },
  handleChainError(_error, runId): void {
    runs.delete(runId);
  },
  handleToolStart(tool, _input, runId, parentRunId, _tags, _metadata, runName, toolCallId): void {
    const last = serializedId(tool)?.at(-1);
    const name = runName ?? (typeof last === 'string' ? last : 'tool');
    const place = placeOf(parentRunId);
    const callId = typeof toolCallId === 'string' && toolCallId !== '' ? toolCallId : undefined;
    const allowed = takeAllowed(name, callId);
    const span = trace.getTracer(LANGGRAPH_TRACER_SCOPE).startSpan(
      `execute_tool ${name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          ...(callId === undefined ? {} : { 'gen_ai.tool.call.id': callId }),
          ...(place.agentId === undefined
            ? {}
            : { 'gen_ai.agent.id': place.agentId, [AGENT_ID_ATTRIBUTE]: place.agentId }),
          ...(place.path === undefined ? {} : { [PATH_ATTRIBUTE]: joinPath(place.path) }),
          ...allowed,
        },
      },
      context.active(),
    );
    remember(toolSpans, runId, span);
  },
  handleToolEnd(_output, runId): void {
    toolSpans.get(runId)?.end();
    toolSpans.delete(runId);
  },
  handleToolError(error, runId): void {
    const span = toolSpans.get(runId);
    toolSpans.delete(runId);
    if (span === undefined) return;
    span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
    span.end();
  },
};

type HandlerClass = new () => object;

let handlerClass: HandlerClass | undefined;

/**
 * A LangChain callback handler that makes an OpenTelemetry `execute_tool` span for every tool a LangGraph.js run
 * executes, placed as the audit names its tool node. Pass it in the root run's config (`graph.invoke(input,
 * { callbacks: [langGraphTracer()] })`) and add `gateSpanProcessor()` to the tracer provider, so allowed calls
 * carry the gate's verdict; `gate-audit observed` then counts the calls that ran undecided.
 *
 * @returns the handler (a `BaseCallbackHandler` of the `@langchain/core` gate-audit resolves)
 * @throws GateAuditError `LOAD_FAILED` when `@langchain/core` cannot be loaded from gate-audit's folder
 */
export function langGraphTracer(): LangGraphTracer {
  if (handlerClass === undefined) {
    let base: HandlerClass;
    try {
      const loaded = createRequire(import.meta.url)('@langchain/core/callbacks/base') as {
        BaseCallbackHandler?: unknown;
      };
      if (typeof loaded.BaseCallbackHandler !== 'function') throw new Error('it has no BaseCallbackHandler');
      base = loaded.BaseCallbackHandler as HandlerClass;
    } catch (error) {
      throw new GateAuditError(
        'LOAD_FAILED',
        `package=<@langchain/core> | langGraphTracer needs @langchain/core/callbacks/base, which cannot be loaded from gate-audit: ${messageOf(error)} | npm i @langchain/core`,
      );
    }
    handlerClass = class GateAuditLangGraphTracer extends base {
      readonly name = 'gate-audit-langgraph-tracer';
      readonly awaitHandlers = true;
    };
    Object.assign(handlerClass.prototype, methods);
  }
  return new handlerClass() as LangGraphTracer;
}
