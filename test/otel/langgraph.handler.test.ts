/**
 * `langGraphTracer()`'s callback methods, called as LangChain calls them (the run ids, parents, tags, metadata and
 * serialized runnables LangGraph hands a handler, as a real run shows them), against a real tracer provider: the
 * place it reads from the runs above a tool, what it puts on a span, and when a span carries a gate's allowance.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearLangGraphSpans, langGraphTracer, runAllowedLangGraphCall } from '../../src/otel/langgraph.js';

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
});
afterEach(async () => {
  clearLangGraphSpans();
  await provider.shutdown();
  trace.disable();
});

const GRAPH = { lc: 1, type: 'not_implemented', id: ['langgraph', 'pregel', 'CompiledStateGraph'] };
/** A node's runnable as LangChain hands it: the live compiled graph, whose namespace is an own field. */
const LIVE_GRAPH = { lc_namespace: ['langgraph', 'pregel'] };
const CALLABLE = { lc: 1, type: 'not_implemented', id: ['langgraph', 'RunnableCallable'] };
const sequence = (first: unknown) => ({
  lc: 1,
  type: 'constructor',
  id: ['langchain_core', 'runnables', 'RunnableSequence'],
  kwargs: { first },
});

type Tracer = ReturnType<typeof langGraphTracer>;

/** Starts a graph's own run. */
const graphRun = (t: Tracer, id: string, parent: string | undefined, name: string): void =>
  t.handleChainStart(GRAPH, {}, id, parent, [], {}, undefined, name);

/** Starts a node's run (LangGraph tags it with its step and names it after the node). */
const nodeRun = (t: Tracer, id: string, parent: string, name: string, first: unknown, step = 'graph:step:1'): void =>
  t.handleChainStart(sequence(first), {}, id, parent, [step], { langgraph_node: name }, undefined, name);

let runs = 0;

/** Runs one tool under `parent` (started, then ended) and returns its span. */
function toolSpan(
  t: Tracer,
  parent: string | undefined,
  options: { name?: string | undefined; callId?: unknown; serialized?: unknown; error?: Error } = {},
): ReadableSpan {
  runs += 1;
  const runId = `tool-${runs}`;
  const name = 'name' in options ? options.name : 'read_file';
  const callId = 'callId' in options ? options.callId : 'c1';
  const serialized = 'serialized' in options ? options.serialized : { id: ['x', 'Tool'] };
  t.handleToolStart(serialized, '{}', runId, parent, [], {}, name, callId as string);
  if (options.error === undefined) t.handleToolEnd('ok', runId);
  else t.handleToolError(options.error, runId);
  const span = exporter.getFinishedSpans().at(-1);
  if (span === undefined) throw new Error('no span ended');
  return span;
}

const place = (span: ReadableSpan): string =>
  `${String(span.attributes['gate_audit.path'] ?? '-')} ${String(span.attributes['gate_audit.agent_id'] ?? '-')}`;

describe('langGraphTracer', () => {
  describe('when it is constructed', () => {
    it('is a LangChain handler LangChain awaits, one class for every call', () => {
      const a = langGraphTracer();
      const b = langGraphTracer();
      expect(a.name).toBe('gate-audit-langgraph-tracer');
      expect(a.awaitHandlers).toBe(true);
      expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    });
  });

  describe('when it reads the place of a tool from the runs above it', () => {
    it("names a subgraph node by its node, a graph a function node invokes by the graph's name", () => {
      const t = langGraphTracer();
      graphRun(t, 'root', undefined, 'desk');
      nodeRun(t, 'triage-node', 'root', 'triage', LIVE_GRAPH);
      graphRun(t, 'triage-graph', 'triage-node', 'triage-agent');
      nodeRun(t, 'triage-tools', 'triage-graph', 'tools', CALLABLE, 'graph:step:12');
      expect(place(toolSpan(t, 'triage-tools'))).toBe('desk/triage/tools triage');
      nodeRun(t, 'relay-node', 'root', 'relay', CALLABLE, 'graph:step:2');
      graphRun(t, 'shadow-graph', 'relay-node', 'shadow');
      nodeRun(t, 'shadow-tools', 'shadow-graph', 'tools', CALLABLE);
      expect(place(toolSpan(t, 'shadow-tools'))).toBe('desk/relay/shadow/tools shadow');
      // A serialized compiled graph as the node's runnable reads as a subgraph node too.
      nodeRun(t, 'audit-node', 'root', 'audit', GRAPH);
      graphRun(t, 'audit-graph', 'audit-node', 'auditor');
      expect(place(toolSpan(t, 'audit-graph'))).toBe('desk/audit desk');
    });

    it('counts a node run only with its step tag and its own name, and skips every other run', () => {
      const t = langGraphTracer();
      graphRun(t, 'root', undefined, 'desk');
      t.handleChainStart(
        sequence(CALLABLE),
        {},
        'untagged',
        'root',
        ['other'],
        { langgraph_node: 'a' },
        undefined,
        'a',
      );
      expect(place(toolSpan(t, 'untagged'))).toBe('desk desk');
      t.handleChainStart(
        sequence(CALLABLE),
        {},
        'renamed',
        'root',
        ['graph:step:3'],
        { langgraph_node: 'b' },
        undefined,
        'c',
      );
      expect(place(toolSpan(t, 'renamed'))).toBe('desk desk');
      t.handleChainStart(
        sequence(CALLABLE),
        {},
        'not-a-step',
        'root',
        ['graph:step:3x'],
        { langgraph_node: 'd' },
        undefined,
        'd',
      );
      expect(place(toolSpan(t, 'not-a-step'))).toBe('desk desk');
      t.handleChainStart(
        sequence(CALLABLE),
        {},
        'prefixed',
        'root',
        ['x:graph:step:3'],
        { langgraph_node: 'e' },
        undefined,
        'e',
      );
      expect(place(toolSpan(t, 'prefixed'))).toBe('desk desk');
      t.handleChainStart(sequence(CALLABLE), {}, 'tagless', 'root', undefined, undefined, undefined, 'f');
      expect(place(toolSpan(t, 'tagless'))).toBe('desk desk');
      nodeRun(t, 'nameless', 'root', '', CALLABLE);
      expect(place(toolSpan(t, 'nameless'))).toBe('desk/#unnamed desk');
    });

    it('gives no place where no graph run is above the tool, or the runs above ended', () => {
      const t = langGraphTracer();
      expect(place(toolSpan(t, undefined))).toBe('- -');
      expect(place(toolSpan(t, 'never-seen'))).toBe('- -');
      t.handleChainStart(sequence(CALLABLE), {}, 'chain', undefined, [], {}, undefined, 'app-chain');
      expect(place(toolSpan(t, 'chain'))).toBe('- -');
      graphRun(t, 'ended', undefined, 'desk');
      t.handleChainEnd({}, 'ended');
      expect(place(toolSpan(t, 'ended'))).toBe('- -');
      graphRun(t, 'failed', undefined, 'desk');
      t.handleChainError(new Error('x'), 'failed');
      expect(place(toolSpan(t, 'failed'))).toBe('- -');
    });

    it('reads at most 256 runs up', () => {
      const t = langGraphTracer();
      graphRun(t, 'r0', undefined, 'desk');
      for (let i = 1; i <= 256; i += 1)
        t.handleChainStart(sequence(CALLABLE), {}, `r${i}`, `r${i - 1}`, [], {}, undefined, 'x');
      expect(place(toolSpan(t, 'r255'))).toBe('desk desk');
      expect(place(toolSpan(t, 'r256'))).toBe('- -');
    });

    it('remembers at most 100,000 runs, the oldest forgotten first', () => {
      const t = langGraphTracer();
      graphRun(t, 'first', undefined, 'desk');
      graphRun(t, 'second', undefined, 'desk');
      for (let i = 0; i < 99_998; i += 1) graphRun(t, `g${i}`, undefined, 'x');
      expect(place(toolSpan(t, 'first'))).toBe('desk desk');
      graphRun(t, 'one-more', undefined, 'x');
      expect(place(toolSpan(t, 'first'))).toBe('- -');
      expect(place(toolSpan(t, 'second'))).toBe('desk desk');
    });
  });

  describe('when it makes a span', () => {
    it("names it after the run, else the serialized tool's name, else tool", () => {
      const t = langGraphTracer();
      expect(toolSpan(t, undefined).name).toBe('execute_tool read_file');
      expect(toolSpan(t, undefined, { name: undefined, serialized: { id: ['x', 'Lookup'] } }).name).toBe(
        'execute_tool Lookup',
      );
      expect(toolSpan(t, undefined, { name: undefined, serialized: { id: ['x', 7] } }).name).toBe('execute_tool tool');
      expect(toolSpan(t, undefined, { name: undefined, serialized: null }).name).toBe('execute_tool tool');
    });

    it('carries the call id only when there is one, and ERROR with the message when the tool threw', () => {
      const t = langGraphTracer();
      const plain = toolSpan(t, undefined);
      expect(plain.attributes).toEqual({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_file',
        'gen_ai.tool.call.id': 'c1',
      });
      expect(plain.status.code).toBe(0);
      expect(toolSpan(t, undefined, { callId: '' }).attributes['gen_ai.tool.call.id']).toBeUndefined();
      expect(toolSpan(t, undefined, { callId: 7 }).attributes['gen_ai.tool.call.id']).toBeUndefined();
      const failed = toolSpan(t, undefined, { error: new Error('disk on fire') });
      expect(failed.status).toEqual({ code: 2, message: 'disk on fire' });
    });

    it('ignores the end of a tool it never started', () => {
      const t = langGraphTracer();
      t.handleToolEnd('ok', 'unknown');
      t.handleToolError(new Error('x'), 'unknown');
      expect(exporter.getFinishedSpans()).toEqual([]);
    });
  });

  describe('when a gate allowed the call', () => {
    const allowed = { 'gate_audit.verdict': 'allow', 'gate_audit.rule': 'reads' };

    it('labels the first tool of the judged name and id started inside the allowed run, and no other', () => {
      const t = langGraphTracer();
      const spans = runAllowedLangGraphCall('read_file', 'c1', allowed, () => [
        toolSpan(t, undefined, { name: 'shell' }),
        toolSpan(t, undefined, { callId: 'c2' }),
        toolSpan(t, undefined),
        toolSpan(t, undefined),
      ]);
      expect(
        spans.map(
          (s) =>
            `${s.name} ${String(s.attributes['gen_ai.tool.call.id'])} ${String(s.attributes['gate_audit.verdict'] ?? '-')}`,
        ),
      ).toEqual([
        'execute_tool shell c1 -',
        'execute_tool read_file c2 -',
        'execute_tool read_file c1 allow',
        'execute_tool read_file c1 -',
      ]);
      expect(spans[2]?.attributes['gate_audit.rule']).toBe('reads');
      // Outside the allowed run, nothing is labelled.
      expect(toolSpan(t, undefined).attributes['gate_audit.verdict']).toBeUndefined();
    });

    it("returns the run's result and lets its error through", () => {
      expect(runAllowedLangGraphCall('t', 'c', {}, () => 42)).toBe(42);
      expect(() =>
        runAllowedLangGraphCall('t', 'c', {}, () => {
          throw new Error('tool failed');
        }),
      ).toThrow('tool failed');
    });
  });
});
