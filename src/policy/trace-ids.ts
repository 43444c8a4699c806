/**
 * The trace a decision record belongs to. `@opentelemetry/api` is an optional peer, so the decision logs do not
 * import it: `gate-audit/otel` registers a provider of the active span's ids (while a `gateSpanProcessor` is
 * open) and the logs ask it for each record. The provider lives under a `Symbol.for` key on `globalThis`, so
 * two copies of gate-audit in one process agree.
 *
 * The ids are those of the span active when the record is written: the `node` span inside a Graph or Swarm,
 * the calling agent's `execute_tool` span for an agent used as a tool, the app's own span around an
 * invocation (the SDK never makes an agent's own spans active). `gate-audit observed` matches a record to the
 * tool span whose agent runs directly under that span.
 */
import { SPAN_IDS_PROVIDER_KEY } from '../walker/marks.js';

/** The ids of one span, lowercase hex (32 and 16 digits). */
export interface SpanIds {
  readonly traceId: string;
  readonly spanId: string;
}

/** Gives the ids of the active span, or undefined when none is active. */
export type SpanIdsProvider = () => SpanIds | undefined;

const PROVIDER = SPAN_IDS_PROVIDER_KEY;

/**
 * Sets (or, with undefined, removes) the provider of the active span's ids.
 *
 * @param provider - called once per record written
 */
export function setSpanIdsProvider(provider: SpanIdsProvider | undefined): void {
  Object.defineProperty(globalThis, PROVIDER, { value: provider, configurable: true, writable: true });
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/**
 * The ids of the span active now, when a provider is set and gives valid ids (never all zeros); never throws.
 * A record is written with or without them: ids are extra, never a reason to refuse a call.
 */
export function activeSpanIds(): SpanIds | undefined {
  const provider = (globalThis as Record<symbol, unknown>)[PROVIDER];
  if (typeof provider !== 'function') return undefined;
  try {
    const ids: unknown = (provider as SpanIdsProvider)();
    if (typeof ids !== 'object' || ids === null) return undefined;
    const { traceId, spanId } = ids as { traceId?: unknown; spanId?: unknown };
    if (typeof traceId !== 'string' || typeof spanId !== 'string') return undefined;
    if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId) || /^0+$/.test(traceId) || /^0+$/.test(spanId)) {
      return undefined;
    }
    return { traceId, spanId };
  } catch {
    return undefined;
  }
}
