/**
 * Classifying tool calls from a stream of spans (`ObservedTraces`): what decides a call, how its agent is
 * placed from the spans above it whatever order they arrive in, how decision records match, the window, and
 * that memory holds only the spans of open traces.
 */
import { describe, expect, it } from 'vitest';
import {
  type ClassifiedCall,
  DecisionIndex,
  ObservedTraces,
  type ObservedTracesOptions,
} from '../../src/report/observed-traces.js';
import type { OtlpSpan } from '../../src/report/otlp.js';

const TRACE = 'ab'.repeat(16);
const id = (n: number): string => n.toString(16).padStart(16, '0');

/** A span of TRACE (or `trace`) with string attributes. */
function span(
  spanId: number,
  parent: number | undefined,
  name: string,
  attributes: Record<string, string>,
  extra: Partial<OtlpSpan> = {},
): OtlpSpan {
  return {
    traceId: TRACE,
    spanId: id(spanId),
    parentSpanId: parent === undefined ? undefined : id(parent),
    name,
    scope: 'strands-agents',
    startMs: 1_000 + spanId,
    host: 'h',
    attributes: new Map(Object.entries(attributes)),
    ...extra,
  };
}

/** The SDK's spans of one Graph `g` → node `n` (agentNode) → agent `a` → loop → tool `t` (call id `c1`), leaf first. */
function graphRun(toolAttributes: Record<string, string> = {}): OtlpSpan[] {
  return [
    span(5, 4, 'execute_tool t', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 't',
      'gen_ai.tool.call.id': 'c1',
      ...toolAttributes,
    }),
    span(4, 3, 'execute_agent_loop_cycle', {}),
    span(3, 2, 'invoke_agent a', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'a' }),
    span(2, 1, 'node n', {
      'gen_ai.operation.name': 'execute_node',
      'gen_ai.agent.id': 'n',
      'gen_ai.agent.node_type': 'agentNode',
    }),
    span(1, undefined, 'invoke_graph g', { 'gen_ai.operation.name': 'invoke_graph', 'gen_ai.agent.id': 'g' }),
  ];
}

function classify(spans: readonly OtlpSpan[], options: ObservedTracesOptions = {}): ClassifiedCall[] {
  const calls: ClassifiedCall[] = [];
  const traces = new ObservedTraces(options, (call) => calls.push(call));
  for (const s of spans) traces.add(s);
  traces.end();
  return calls;
}

const brief = (calls: readonly ClassifiedCall[]): string[] =>
  calls.map((c) => `${c.path?.join('/') ?? '-'} ${c.agentId ?? '-'} ${c.tool} ${c.outcome}`);

describe('ObservedTraces', () => {
  describe('when a call carries no gate-audit stamp', () => {
    it('places an unstamped call from the spans above it, in end order or any other', () => {
      expect(brief(classify(graphRun()))).toEqual(['g/n a t undecided']);
      expect(brief(classify([...graphRun()].reverse()))).toEqual(['g/n a t undecided']);
    });
  });
  describe('when gate-audit stamped the spans', () => {
    it('takes gate-audit stamps as they are: verdict allow decides, another verdict on a call that ran does not', () => {
      const stamped = { 'gate_audit.agent_id': 'x', 'gate_audit.path': 'p/q' };
      expect(brief(classify(graphRun({ ...stamped, 'gate_audit.verdict': 'allow' })))).toEqual(['p/q x t decided']);
      expect(brief(classify(graphRun({ ...stamped, 'gate_audit.verdict': 'deny' })))).toEqual(['p/q x t undecided']);
    });

    it("counts gate-audit's own span (scope gate-audit) as refused, and places it by its loop span", () => {
      const [tool, ...rest] = graphRun({ 'gate_audit.verdict': 'deny' });
      const refused = { ...tool!, scope: 'gate-audit', name: 'gate_audit.decide t' };
      expect(brief(classify([refused, ...rest]))).toEqual(['g/n a t refused']);
    });
  });
  describe('when decision records are given', () => {
    it('decides an unstamped call by an allowing record of its trace, call id and agent, written under the span its agent runs under', () => {
      const decisions = (records: { spanId: string; agentId?: string; verdict?: string; traceId?: string }[]) => {
        const index = new DecisionIndex();
        for (const r of records) {
          index.add({ traceId: r.traceId ?? TRACE, toolUseId: 'c1', verdict: r.verdict ?? 'allow', ...r });
        }
        return index;
      };
      const outcome = (records: Parameters<typeof decisions>[0]): string =>
        classify(graphRun(), { decisions: decisions(records) })[0]!.outcome;
      // The node span (2) was active when the gate wrote the record.
      expect(outcome([{ spanId: id(2), agentId: 'a' }])).toBe('decided');
      expect(outcome([{ spanId: id(2).toUpperCase(), agentId: 'a' }])).toBe('decided');
      expect(outcome([{ spanId: id(2) }])).toBe('decided');
      // Another agent's record, a span above the agent's parent, another trace, a refusal: none decides it.
      expect(outcome([{ spanId: id(2), agentId: 'b' }])).toBe('undecided');
      expect(outcome([{ spanId: id(1), agentId: 'a' }])).toBe('undecided');
      expect(outcome([{ spanId: id(2), agentId: 'a', traceId: 'cd'.repeat(16) }])).toBe('undecided');
      expect(outcome([{ spanId: id(2), agentId: 'a', verdict: 'deny' }])).toBe('undecided');
    });

    it('a record decides one call, of its own tool, of the agent it names (never a call whose agent is unknown)', () => {
      const index = (records: { toolName?: string; agentId?: string }[]): DecisionIndex => {
        const built = new DecisionIndex();
        for (const r of records) built.add({ traceId: TRACE, spanId: id(2), toolUseId: 'c1', verdict: 'allow', ...r });
        return built;
      };
      // Two calls with one id under the same span (models reuse ids): one record decides the first only.
      const twice = [...graphRun(), { ...graphRun()[0]!, spanId: id(6) }];
      expect(brief(classify(twice, { decisions: index([{ agentId: 'a', toolName: 't' }]) }))).toEqual([
        'g/n a t decided',
        'g/n a t undecided',
      ]);
      expect(
        brief(
          classify(twice, {
            decisions: index([
              { agentId: 'a', toolName: 't' },
              { agentId: 'a', toolName: 't' },
            ]),
          }),
        ),
      ).toEqual(['g/n a t decided', 'g/n a t decided']);
      // A record of another tool with the same id decides nothing here.
      expect(brief(classify(graphRun(), { decisions: index([{ agentId: 'a', toolName: 'other' }]) }))).toEqual([
        'g/n a t undecided',
      ]);
      // A call whose agent nothing names (no agent span above it, no stamp) is not decided by a record naming one.
      const [tool, , , node, root] = graphRun();
      const bare = [{ ...tool!, parentSpanId: id(2) }, node!, root!];
      expect(brief(classify(bare, { decisions: index([{ agentId: 'a', toolName: 't' }]) }))).toEqual([
        '- - t undecided',
      ]);
    });
  });
  describe('when a window is set', () => {
    it('selects the window [since, until) by start time', () => {
      const at = (ms: number) => graphRun().map((s) => ({ ...s, startMs: ms }));
      expect(classify(at(1000), { since: 1000, until: 2000 })).toHaveLength(1);
      expect(classify(at(999), { since: 1000 })).toHaveLength(0);
      expect(classify(at(2000), { until: 2000 })).toHaveLength(0);
    });
  });
  describe('when traces are many, or never close', () => {
    it('holds only the spans of open traces (and of those closed in the last 4096 spans): let go after the root, when idle, or at the end', () => {
      const calls: ClassifiedCall[] = [];
      const traces = new ObservedTraces({ idleSpans: 50 }, (call) => calls.push(call));
      for (let t = 0; t < 1000; t += 1) {
        const traceId = t.toString(16).padStart(32, '0');
        for (const s of graphRun()) traces.add({ ...s, traceId });
      }
      expect(calls).toHaveLength(1000);
      expect(traces.peakHeld).toBeLessThanOrEqual(4096 + 2 * 5);
      traces.end();
      expect(traces.held).toBe(0);
      // Traces whose root is elsewhere (a remote parent): closed once idle, so the spans held stay bounded.
      const rootless = new ObservedTraces({ idleSpans: 50 }, (call) => calls.push(call));
      for (let t = 0; t < 20_000; t += 1) {
        const traceId = t.toString(16).padStart(32, '0');
        for (const s of graphRun().slice(0, 4)) rootless.add({ ...s, traceId });
      }
      expect(rootless.peakHeld).toBeLessThan(4096 + 50 + 8);
      rootless.end();
      expect(rootless.held).toBe(0);
      expect(calls).toHaveLength(21_000);
    });
  });
  describe('when nothing above a call names its agent', () => {
    it('places a call nothing above names as the span says: its gen_ai.agent.id, else unknown', () => {
      const lone = span(9, 8, 'execute_tool t', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 't' });
      expect(brief(classify([lone]))).toEqual(['- - t undecided']);
    });
  });
});
