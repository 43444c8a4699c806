/**
 * One line of OTLP JSON traces (`readTraceLine`): what is kept of a span, the encodings the Collector and
 * the SDKs write (ids of either case, 64-bit numbers as strings or numbers, the older
 * `instrumentationLibrarySpans`), and what makes a line malformed.
 */
import { describe, expect, it } from 'vitest';
import { OtlpLineError, type OtlpSpan, readTraceLine } from '../../src/report/otlp.js';

const WANTED = new Set(['gen_ai.tool.name', 'gate_audit.path']);
const TRACE = '0123456789ABCDEF0123456789abcdef';

function read(request: unknown): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  readTraceLine(typeof request === 'string' ? request : JSON.stringify(request), WANTED, (s) => spans.push(s));
  return spans;
}

const span = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  traceId: TRACE,
  spanId: 'ABCDEF0123456789',
  parentSpanId: '',
  name: 'execute_tool t',
  startTimeUnixNano: '1800000000123456789',
  attributes: [
    { key: 'gen_ai.tool.name', value: { stringValue: 't' } },
    { key: 'gate_audit.path', value: { intValue: '7' } },
    { key: 'other', value: { stringValue: 'not kept' } },
  ],
  ...extra,
});

describe('readTraceLine', () => {
  describe('when the line is an OTLP JSON traces request', () => {
    it('keeps ids in lowercase, the start in milliseconds, the scope and host, and only the string attributes asked for', () => {
      const [one] = read({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'host.name', value: { stringValue: 'web-1' } }] },
            scopeSpans: [{ scope: { name: 'strands-agents' }, spans: [span()] }],
          },
        ],
      });
      expect(one).toEqual({
        traceId: TRACE.toLowerCase(),
        spanId: 'abcdef0123456789',
        parentSpanId: undefined,
        name: 'execute_tool t',
        scope: 'strands-agents',
        startMs: 1_800_000_000_123.4568,
        host: 'web-1',
        attributes: new Map([['gen_ai.tool.name', 't']]),
      });
    });

    it('reads 64-bit numbers as numbers, service.name for a host, and instrumentationLibrarySpans', () => {
      const [one] = read({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
            instrumentationLibrarySpans: [
              {
                instrumentationLibrary: { name: 'old' },
                spans: [span({ startTimeUnixNano: 1.8e18, parentSpanId: 'ABCDEF0123456780' })],
              },
            ],
          },
        ],
      });
      expect(one).toMatchObject({ scope: 'old', host: 'svc', startMs: 1.8e12, parentSpanId: 'abcdef0123456780' });
    });
  });
  describe('when the line is not an OTLP JSON traces request', () => {
    it('refuses what is not an OTLP JSON traces request, saying where', () => {
      const bad = (request: unknown): string => {
        try {
          read(request);
        } catch (error) {
          expect(error).toBeInstanceOf(OtlpLineError);
          return (error as Error).message;
        }
        return 'read';
      };
      expect(bad('{')).toMatch(/^not JSON/);
      expect(bad([])).toBe('not an OTLP traces request: no resourceSpans array');
      expect(bad({ resourceSpans: {} })).toBe('not an OTLP traces request: no resourceSpans array');
      expect(bad({ resourceSpans: [{ scopeSpans: {} }] })).toBe('resourceSpans[0].scopeSpans is not an array');
      expect(bad({ resourceSpans: [{ scopeSpans: [{ spans: [span({ spanId: 'xyz' })] }] }] })).toBe(
        'resourceSpans[0].scopeSpans[0].spans[0].spanId is not 16 hex digits',
      );
      expect(
        bad({ resourceSpans: [{ scopeSpans: [{ spans: [span({ traceId: 'AQIDBAUGBwgJCgsMDQ4PEA==' })] }] }] }),
      ).toBe('resourceSpans[0].scopeSpans[0].spans[0].traceId is not 32 hex digits');
      expect(bad({ resourceSpans: [{ scopeSpans: [{ spans: [span({ startTimeUnixNano: '-1' })] }] }] })).toMatch(
        /startTimeUnixNano is not a number of nanoseconds/,
      );
      expect(bad({ resourceSpans: [{ scopeSpans: [{ spans: [span({ attributes: [{ value: {} }] })] }] }] })).toMatch(
        /attributes\[0\] is not a \{ key, value \} pair/,
      );
    });
  });
});
