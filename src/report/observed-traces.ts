/**
 * Classifying the tool calls of traces read as a stream. Each tool-execution span
 * (`gen_ai.operation.name=execute_tool`) is one call:
 *
 * - `refused`: gate-audit's own span (instrumentation scope `gate-audit`): the gate refused the call, which
 *   never ran (the SDK makes no span for it);
 * - `decided`: a span that ran with an allowance: `gate_audit.verdict=allow` on it, or an allowing decision
 *   record that matches it (same trace, same tool call id, its span the call's agent runs directly under);
 * - `undecided`: a span that ran with neither. A span that ran under another verdict is undecided too (it ran
 *   without an allowance).
 *
 * The agent and its place come from `gate_audit.agent_id` and `gate_audit.path` (`gateSpanProcessor` stamps
 * them), else from the spans above the call (`otel/place.ts`). A call that needs neither the spans above it
 * nor a record, or whose spans above reach its trace's root, is counted as soon as it is read; the others wait
 * in their trace. A trace is open from its first span read until its root span (no parent) is read, or until
 * `idleSpans` spans of other traces went by without one of its own (a trace whose root is in another process
 * or file never gets one), or the input ends; then its waiting calls are counted with what is known. A closed
 * trace's spans are kept for 4096 more spans read (a span that ended after its root still finds its place),
 * then forgotten. So memory is bounded by the spans of the traces still open (and of those just closed),
 * whatever the size of the input.
 */
import { joinPath } from '../tree-paths.js';
import {
  AGENT_ID_ATTRIBUTE,
  chainOf,
  INSTRUMENTATION_SCOPE,
  linkOf,
  MAX_CHAIN,
  nearestAgent,
  PATH_ATTRIBUTE,
  placeOf,
  type SpanLink,
  splitPath,
  VERDICT_ATTRIBUTE,
} from '../otel/place.js';
import type { OtlpSpan } from './otlp.js';

/** The attributes the classification reads. */
export const OBSERVED_ATTRIBUTES: ReadonlySet<string> = new Set([
  'gen_ai.operation.name',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'gen_ai.agent.id',
  'gen_ai.agent.node_type',
  AGENT_ID_ATTRIBUTE,
  PATH_ATTRIBUTE,
  VERDICT_ATTRIBUTE,
]);

/** A decision record that names its trace (`traceId`, `spanId`), as a decision log or store holds it. */
export interface TracedRecord {
  readonly traceId: string;
  /** The span active when the record was written. */
  readonly spanId: string;
  readonly toolUseId: string;
  readonly agentId?: string;
  /** The tool the record decided (a record decides only a call of that tool). */
  readonly toolName?: string;
  /** The record's verdict: only `allow` decides a call that ran. */
  readonly verdict: string;
}

interface IndexedRecord {
  readonly spanId: string;
  readonly agentId: string | undefined;
  readonly toolName: string | undefined;
}

/** The allowing decision records, by trace and tool call id. */
export class DecisionIndex {
  private readonly _byCall = new Map<string, IndexedRecord[]>();
  private _size = 0;

  /** How many allowing records are indexed. */
  get size(): number {
    return this._size;
  }

  /**
   * Indexes a record (one that does not allow is left out: it decides no call that ran).
   *
   * @returns whether it was indexed
   */
  add(record: TracedRecord): boolean {
    if (record.verdict !== 'allow') return false;
    const key = `${record.traceId.toLowerCase()}/${record.toolUseId}`;
    const list = this._byCall.get(key) ?? [];
    list.push({ spanId: record.spanId.toLowerCase(), agentId: record.agentId, toolName: record.toolName });
    this._byCall.set(key, list);
    this._size += 1;
    return true;
  }

  /** The records of one call id in one trace (each decides one call: `use` takes it out). */
  of(traceId: string, toolUseId: string | undefined): readonly IndexedRecord[] {
    return toolUseId === undefined ? [] : (this._byCall.get(`${traceId}/${toolUseId}`) ?? []);
  }

  /** Takes a record out once it decided a call: one allowance decides one call. */
  use(traceId: string, toolUseId: string, record: IndexedRecord): void {
    const key = `${traceId}/${toolUseId}`;
    const list = this._byCall.get(key);
    const at = list?.indexOf(record) ?? -1;
    if (list === undefined || at === -1) return;
    list.splice(at, 1);
    if (list.length === 0) this._byCall.delete(key);
  }
}

/** How one tool call ended. */
export type CallOutcome = 'decided' | 'undecided' | 'refused';

/** One classified tool call. */
export interface ClassifiedCall {
  readonly path: readonly string[] | undefined;
  readonly agentId: string | undefined;
  readonly tool: string;
  readonly outcome: CallOutcome;
  /** Start time, milliseconds since the epoch. */
  readonly atMs: number;
  readonly host: string | undefined;
}

/** A call waiting in its trace for the spans above it. */
interface Waiting {
  readonly span: OtlpSpan;
  readonly refused: boolean;
}

interface OpenTrace {
  readonly links: Map<string, SpanLink>;
  waiting: Waiting[];
  /** The span count when its last span was read. */
  seen: number;
  /** The span count when its root was read. */
  closedAt: number | undefined;
}

/** Options of the classification. */
export interface ObservedTracesOptions {
  /** Calls starting before this instant (ms since the epoch) are left out. */
  readonly since?: number;
  /** Calls starting at or after this instant are left out. */
  readonly until?: number;
  /** Allowing decision records to match calls against. */
  readonly decisions?: DecisionIndex;
  /** Spans of other traces after which a trace without its root is closed (default 100,000). */
  readonly idleSpans?: number;
}

const IDLE_SPANS = 100_000;
const SWEEP_EVERY = 4096;
/** Spans read after a trace's root during which its spans are kept. */
const CLOSED_GRACE = 4096;

/** Tool calls of a stream of spans, classified as their traces allow (see the module's comment). */
export class ObservedTraces {
  private readonly _traces = new Map<string, OpenTrace>();
  private readonly _idle: number;
  private readonly _decisions: DecisionIndex | undefined;
  private _count = 0;
  private _held = 0;
  private _peakHeld = 0;

  /**
   * @param _options - window, decision records, idle limit
   * @param _onCall - told of each call once it is classified
   */
  constructor(
    private readonly _options: ObservedTracesOptions,
    private readonly _onCall: (call: ClassifiedCall) => void,
  ) {
    this._idle = _options.idleSpans ?? IDLE_SPANS;
    this._decisions = _options.decisions;
  }

  /** Spans held now in open traces. */
  get held(): number {
    return this._held;
  }

  /** The most spans held at once. */
  get peakHeld(): number {
    return this._peakHeld;
  }

  /**
   * Reads one span.
   *
   * @returns whether it is a tool call in the window
   */
  add(span: OtlpSpan): boolean {
    this._count += 1;
    const attributes = span.attributes;
    let trace = this._traces.get(span.traceId);
    if (trace === undefined) {
      trace = { links: new Map(), waiting: [], seen: this._count, closedAt: undefined };
      this._traces.set(span.traceId, trace);
    }
    trace.seen = this._count;
    if (!trace.links.has(span.spanId)) {
      trace.links.set(
        span.spanId,
        linkOf(span.name, (key) => attributes.get(key), span.parentSpanId),
      );
      this._held += 1;
      if (this._held > this._peakHeld) this._peakHeld = this._held;
    }
    const call = attributes.get('gen_ai.operation.name') === 'execute_tool' && this._inWindow(span.startMs);
    if (call) {
      const refused = span.scope === INSTRUMENTATION_SCOPE;
      const waiting: Waiting = { span, refused };
      if (this._settled(waiting) || this._rooted(span, trace)) this._emit(waiting, trace);
      else trace.waiting.push(waiting);
    }
    if (span.parentSpanId === undefined) this._settle(trace);
    if (this._count % SWEEP_EVERY === 0) this._sweep();
    return call;
  }

  /** Closes every open trace: the input ended. */
  end(): void {
    for (const [traceId, trace] of [...this._traces]) this._forget(traceId, trace);
  }

  /** Whether the spans above a call reach its trace's root. */
  private _rooted(span: OtlpSpan, trace: OpenTrace): boolean {
    const chain = chainOf(span.parentSpanId, (id) => trace.links.get(id));
    return span.parentSpanId === undefined || (chain.length > 0 && chain[chain.length - 1]?.parent === undefined);
  }

  /** The trace's root was read: its waiting calls are counted now; its spans stay for a while. */
  private _settle(trace: OpenTrace): void {
    trace.closedAt = this._count;
    const waiting = trace.waiting;
    trace.waiting = [];
    for (const call of waiting) this._emit(call, trace);
  }

  private _inWindow(atMs: number): boolean {
    const { since, until } = this._options;
    return (since === undefined || atMs >= since) && (until === undefined || atMs < until);
  }

  /** Whether a call can be counted without the spans above it. */
  private _settled(call: Waiting): boolean {
    const { attributes } = call.span;
    if (!attributes.has(AGENT_ID_ATTRIBUTE)) return false;
    if (call.refused || attributes.has(VERDICT_ATTRIBUTE)) return true;
    return this._decisions === undefined || this._candidates(call.span).length === 0;
  }

  private _candidates(span: OtlpSpan): readonly IndexedRecord[] {
    return this._decisions?.of(span.traceId, span.attributes.get('gen_ai.tool.call.id')) ?? [];
  }

  private _use(span: OtlpSpan, record: IndexedRecord): void {
    const toolUseId = span.attributes.get('gen_ai.tool.call.id');
    if (toolUseId !== undefined) this._decisions?.use(span.traceId, toolUseId, record);
  }

  private _sweep(): void {
    const idle = this._count - this._idle;
    const closed = this._count - CLOSED_GRACE;
    for (const [traceId, trace] of this._traces) {
      if (trace.seen <= idle || (trace.closedAt !== undefined && trace.closedAt <= closed)) {
        this._forget(traceId, trace);
      }
    }
  }

  /** Counts the trace's waiting calls with what is known, and forgets its spans. */
  private _forget(traceId: string, trace: OpenTrace): void {
    this._traces.delete(traceId);
    this._held -= trace.links.size;
    for (const call of trace.waiting) this._emit(call, trace);
  }

  /** Classifies and reports one call, with the spans of its trace when it waited for them. */
  private _emit(call: Waiting, trace: OpenTrace): void {
    const { span, refused } = call;
    const attributes = span.attributes;
    const lookup = (id: string): SpanLink | undefined => trace.links.get(id);
    const chain = chainOf(span.parentSpanId, lookup);
    let agentId: string | undefined;
    let path: readonly string[] | undefined;
    if (attributes.has(AGENT_ID_ATTRIBUTE)) {
      agentId = attributes.get(AGENT_ID_ATTRIBUTE);
      path = splitPath(attributes.get(PATH_ATTRIBUTE));
    } else {
      const place = placeOf(chain);
      agentId = place.agentId ?? attributes.get('gen_ai.agent.id');
      path = place.path;
    }
    const verdict = attributes.get(VERDICT_ATTRIBUTE);
    const tool = attributes.get('gen_ai.tool.name') ?? toolNameOf(span.name);
    const outcome: CallOutcome = refused
      ? 'refused'
      : verdict !== undefined
        ? verdict === 'allow'
          ? 'decided'
          : 'undecided'
        : this._recorded(span, chain, agentId, tool)
          ? 'decided'
          : 'undecided';
    this._onCall({
      path,
      agentId,
      tool,
      outcome,
      atMs: span.startMs,
      host: span.host,
    });
  }

  /**
   * Whether an allowing record matches the call, and takes it (a record decides one call): its span is the call's
   * own, or one on the way up from the call to the span its agent was invoked under (the span active when the gate
   * wrote the record); its tool is the call's; and the agent it names is the call's (a call whose agent is not
   * known is not decided by a record that names one).
   */
  private _recorded(span: OtlpSpan, chain: readonly SpanLink[], agentId: string | undefined, tool: string): boolean {
    const candidates = this._candidates(span);
    if (candidates.length === 0) return false;
    const ids = [span.spanId];
    const at = nearestAgent(chain);
    let id = span.parentSpanId;
    // Up to the agent's own parent when the agent span was read; else only the call's parent is certain.
    const last = at === -1 ? 0 : at + 1;
    for (let i = 0; id !== undefined && i <= last && i < MAX_CHAIN; i += 1) {
      ids.push(id);
      id = chain[i]?.parent;
    }
    const record = candidates.find(
      (candidate) =>
        ids.includes(candidate.spanId) &&
        (candidate.toolName === undefined || candidate.toolName === tool) &&
        (candidate.agentId === undefined || candidate.agentId === agentId),
    );
    if (record === undefined) return false;
    this._use(span, record);
    return true;
  }
}

/** The tool of a span without `gen_ai.tool.name`: its name after `execute_tool ` or `gate_audit.decide `. */
function toolNameOf(name: string): string {
  const space = name.indexOf(' ');
  return space === -1 ? '' : name.slice(space + 1);
}

/** The key of a row: the place when known, else the agent id, then the tool. */
export function rowKey(path: readonly string[] | undefined, agentId: string | undefined, tool: string): string {
  const who = path !== undefined ? `p\u0000${joinPath(path)}` : agentId !== undefined ? `a\u0000${agentId}` : 'u';
  return `${who}\u0000${tool}`;
}
