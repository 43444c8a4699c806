/**
 * One line of OTLP JSON traces: an `ExportTraceServiceRequest`, as the OpenTelemetry Collector's file exporter
 * writes it with `format: json` (`resourceSpans` → `scopeSpans` → `spans`; the older
 * `instrumentationLibrarySpans` is read too). Trace and span ids are hex of either case; 64-bit numbers are
 * strings or numbers. Only what `observed` needs is kept of each span: its ids, name, scope, start time,
 * host and the attributes asked for. A line that is not such a request, or a span without valid ids or start
 * time, is refused with what is wrong (the caller adds the file and line); attribute values of another type
 * than expected are data, never an error (they read as absent).
 */

/** What `observed` keeps of one span. */
export interface OtlpSpan {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** The parent's id (16 lowercase hex digits), absent for a root. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** The instrumentation scope's name (`''` when none). */
  readonly scope: string;
  /** Start time, milliseconds since the epoch. */
  readonly startMs: number;
  /** `host.name`, else `service.name`, of the span's resource. */
  readonly host: string | undefined;
  /** The string attributes asked for that the span has. */
  readonly attributes: ReadonlyMap<string, string>;
}

/** A line that is not an OTLP JSON traces request; the message says what is wrong. */
export class OtlpLineError extends Error {
  /** @param message - what is wrong, as a clause */
  constructor(message: string) {
    super(message);
    this.name = 'OtlpLineError';
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function arrayAt(parent: Json, key: string, where: string, required = false): unknown[] {
  const value = parent[key];
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) throw new OtlpLineError(`${where}${key} is not an array`);
  return value;
}

const HEX_TRACE = /^[0-9a-fA-F]{32}$/;
const HEX_SPAN = /^[0-9a-fA-F]{16}$/;

function idAt(span: Json, key: string, pattern: RegExp, where: string): string {
  const value = span[key];
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new OtlpLineError(`${where}${key} is not ${pattern === HEX_TRACE ? 32 : 16} hex digits`);
  }
  return value.toLowerCase();
}

/** A 64-bit unsigned number of nanoseconds (a decimal string or a number) in milliseconds. */
function nanosToMs(value: unknown, where: string): number {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return Number(value) / 1e6;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value / 1e6;
  throw new OtlpLineError(`${where}startTimeUnixNano is not a number of nanoseconds`);
}

/** The string value of an OTLP `AnyValue`, or undefined for any other type. */
function stringValue(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const text = value.stringValue;
  return typeof text === 'string' ? text : undefined;
}

/** The string attributes among `wanted` of an OTLP attribute list. */
function pick(list: unknown[], wanted: ReadonlySet<string>, where: string, into: Map<string, string>): void {
  for (const [i, entry] of list.entries()) {
    if (!isObject(entry) || typeof entry.key !== 'string') {
      throw new OtlpLineError(`${where}attributes[${i}] is not a { key, value } pair`);
    }
    if (!wanted.has(entry.key)) continue;
    const text = stringValue(entry.value);
    if (text !== undefined) into.set(entry.key, text);
  }
}

/**
 * The spans of one line.
 *
 * @param text - the line
 * @param wanted - the attributes to keep (string values only)
 * @param onSpan - called for each span, in the line's order
 * @returns how many spans the line holds
 * @throws OtlpLineError when the line is not an OTLP JSON traces request
 */
export function readTraceLine(text: string, wanted: ReadonlySet<string>, onSpan: (span: OtlpSpan) => void): number {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch (error) {
    throw new OtlpLineError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(request) || !Array.isArray(request.resourceSpans)) {
    throw new OtlpLineError('not an OTLP traces request: no resourceSpans array');
  }
  let count = 0;
  for (const [r, resourceSpans] of request.resourceSpans.entries()) {
    const at = `resourceSpans[${r}].`;
    if (!isObject(resourceSpans)) throw new OtlpLineError(`${at.slice(0, -1)} is not an object`);
    const resource = resourceSpans.resource;
    const resourceAttributes = new Map<string, string>();
    if (resource !== undefined) {
      if (!isObject(resource)) throw new OtlpLineError(`${at}resource is not an object`);
      pick(arrayAt(resource, 'attributes', `${at}resource.`), HOST_KEYS, `${at}resource.`, resourceAttributes);
    }
    const host = resourceAttributes.get('host.name') ?? resourceAttributes.get('service.name');
    const scopes =
      resourceSpans.scopeSpans === undefined && resourceSpans.instrumentationLibrarySpans !== undefined
        ? arrayAt(resourceSpans, 'instrumentationLibrarySpans', at)
        : arrayAt(resourceSpans, 'scopeSpans', at);
    for (const [s, scopeSpans] of scopes.entries()) {
      const sat = `${at}scopeSpans[${s}].`;
      if (!isObject(scopeSpans)) throw new OtlpLineError(`${sat.slice(0, -1)} is not an object`);
      const scopeObject = scopeSpans.scope ?? scopeSpans.instrumentationLibrary;
      const scopeName = isObject(scopeObject) && typeof scopeObject.name === 'string' ? scopeObject.name : '';
      for (const [i, span] of arrayAt(scopeSpans, 'spans', sat).entries()) {
        const where = `${sat}spans[${i}].`;
        if (!isObject(span)) throw new OtlpLineError(`${where.slice(0, -1)} is not an object`);
        const parent = span.parentSpanId;
        const attributes = new Map<string, string>();
        pick(arrayAt(span, 'attributes', where), wanted, where, attributes);
        onSpan({
          traceId: idAt(span, 'traceId', HEX_TRACE, where),
          spanId: idAt(span, 'spanId', HEX_SPAN, where),
          parentSpanId: parent === undefined || parent === '' ? undefined : idAt(span, 'parentSpanId', HEX_SPAN, where),
          name: typeof span.name === 'string' ? span.name : '',
          scope: scopeName,
          startMs: nanosToMs(span.startTimeUnixNano, where),
          host,
          attributes,
        });
        count += 1;
      }
    }
  }
  return count;
}

const HOST_KEYS: ReadonlySet<string> = new Set(['host.name', 'service.name']);
