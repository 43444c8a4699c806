/**
 * Decisions in OpenTelemetry (issue 22 §1): `gateSpanProcessor()` on a real tracer provider, the SDK's own
 * spans (real `Agent`, `Graph`, tools; only the model is scripted), exported to an `InMemorySpanExporter`.
 */
import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { AgentNode, Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Gate, install, installMultiagent } from '../../src/index.js';
import { gateSpanProcessor } from '../../src/otel/index.js';
import {
  call,
  handoff,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  toolResults,
  nodesOf,
} from '../helpers/sdk.js';

/** A reader whose `collect()` the test calls (the SDK's own pull path, no exporter). */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

let exporter: InMemorySpanExporter;
let reader: PullReader;
let shutdown: () => Promise<void>;

isolateEachTest();

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  const processor = gateSpanProcessor();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  reader = new PullReader();
  const meters = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  metrics.setGlobalMeterProvider(meters);
  shutdown = async () => {
    await processor.shutdown();
    await provider.shutdown();
    await meters.shutdown();
    trace.disable();
    context.disable();
    metrics.disable();
  };
});
afterEach(async () => shutdown());

/** A gate that allows `read_file` (rule `reads`) and denies everything else (rule `default-deny`). */
function readOnly(name: string, rule = 'reads', delay?: Promise<void>): Gate {
  return {
    name,
    decide: async (request) => {
      await delay;
      return request.toolName === 'read_file'
        ? { verdict: 'allow', rule }
        : { verdict: 'deny', reason: 'read-only agent', rule: 'default-deny' };
    },
  };
}

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): ReadableSpan | undefined =>
  spans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
/** The agent a span belongs to: the `gen_ai.agent.id` of its nearest `invoke_agent` ancestor. */
function agentOf(span: ReadableSpan): unknown {
  for (let s: ReadableSpan | undefined = span; s !== undefined; s = parentOf(s)) {
    if (s.name.startsWith('invoke_agent')) return s.attributes['gen_ai.agent.id'];
  }
  return undefined;
}

describe('gateSpanProcessor', () => {
  describe("when a gate decides an agent's tool call", () => {
    it("labels the SDK's execute_tool span of an allowed call, and gives a refused call its own span under the loop span", async () => {
      const agent = scriptedAgent(
        'alpha',
        [call('read_file', { path: 'a' }, 'call_0'), call('shell', { command: 'rm -rf /' }, 'call_1'), say('done')],
        {
          tools: [recordingTool('read_file'), recordingTool('shell')],
        },
      );
      install(agent, { gate: readOnly('otel-policy') });
      await agent.invoke('go');
      expect(ran).toEqual(['read_file({"path":"a"})@alpha']);

      const [tool] = named('execute_tool read_file');
      expect(tool?.attributes).toMatchObject({
        'gen_ai.tool.call.id': 'call_0',
        'gate_audit.gate': 'otel-policy',
        'gate_audit.verdict': 'allow',
        'gate_audit.rule': 'reads',
      });
      // The refused call: no SDK tool span, one span of gate-audit's own.
      expect(named('execute_tool shell')).toEqual([]);
      const [decide] = named('gate_audit.decide shell');
      expect(decide?.attributes).toEqual({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'shell',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.agent.id': 'alpha',
        'gate_audit.agent_id': 'alpha',
        'gate_audit.path': 'alpha',
        'gate_audit.gate': 'otel-policy',
        'gate_audit.verdict': 'deny',
        'gate_audit.rule': 'default-deny',
        'error.type': 'gate_denied',
      });
      expect(decide?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'read-only agent' });
      expect(decide?.events).toEqual([]);
      // Its parent is the agent's loop-cycle span, in the agent's trace (the SDK never makes that span active).
      const loop = decide === undefined ? undefined : parentOf(decide);
      expect(loop?.name).toBe('execute_agent_loop_cycle');
      expect(loop?.spanContext().traceId).toBe(tool?.spanContext().traceId);
      expect(agentOf(decide!)).toBe('alpha');
    });

    it("never labels another agent's span that reuses the call id: the match is (trace, parent span, call id)", async () => {
      // Both gates decide only once both calls are asked, so both decisions wait for their spans together.
      let release!: () => void;
      const both = new Promise<void>((resolve) => (release = resolve));
      let asked = 0;
      const barrier = (name: string, rule: string): Gate => {
        const inner = readOnly(name, rule);
        return {
          name,
          decide: (request, ctx) => {
            asked += 1;
            if (asked === 2) release();
            return both.then(() => inner.decide(request, ctx));
          },
        };
      };
      const make = (id: string, rule: string) => {
        const agent = scriptedAgent(id, [call('read_file', { path: id }, 'call_0'), say('done')], {
          tools: [recordingTool('read_file')],
        });
        install(agent, { gate: barrier(`gate-${id}`, rule) });
        return agent;
      };
      await Promise.all([make('north', 'north-rule').invoke('go'), make('south', 'south-rule').invoke('go')]);
      const tools = named('execute_tool read_file');
      expect(tools).toHaveLength(2);
      const labels = tools.map((s) => `${String(agentOf(s))}:${String(s.attributes['gate_audit.rule'])}`).sort();
      expect(labels).toEqual(['north:north-rule', 'south:south-rule']);
    });

    it('a call that asks for approval (the run pauses) gets its own span, verdict ask', async () => {
      const agent = scriptedAgent('zeta', [call('shell', { command: 'deploy' }, 'call_0'), say('done')], {
        tools: [recordingTool('shell')],
      });
      install(agent, {
        gate: {
          name: 'asking',
          decide: () => ({ verdict: 'ask', reason: 'deploys need a person', rule: 'deploys' }),
          approval: { via: 'interrupt', check: () => ({ granted: false, reason: 'not in this test' }) },
        },
      });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('interrupt');
      expect(ran).toEqual([]);
      const [decide] = named('gate_audit.decide shell');
      expect(decide?.attributes).toMatchObject({
        'gate_audit.gate': 'asking',
        'gate_audit.verdict': 'ask',
        'gate_audit.rule': 'deploys',
        'error.type': 'gate_denied',
        'gen_ai.tool.call.id': 'call_0',
      });
      expect(decide?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'deploys need a person' });
      expect(parentOf(decide!)?.name).toBe('execute_agent_loop_cycle');
    });

    it('a gate that fails gets a gate_error span, status ERROR', async () => {
      const agent = scriptedAgent('beta', [call('read_file', { path: 'b' }, 'call_0'), say('done')], {
        tools: [recordingTool('read_file')],
      });
      install(agent, {
        gate: {
          name: 'broken',
          decide: () => {
            throw new Error('policy store offline');
          },
        },
      });
      await agent.invoke('go').catch(() => undefined);
      expect(ran).toEqual([]);
      const [decide] = named('gate_audit.decide read_file');
      expect(decide?.attributes).toMatchObject({
        'gate_audit.gate': 'broken',
        'gate_audit.verdict': 'error',
        'error.type': 'gate_error',
        'gen_ai.agent.id': 'beta',
      });
      expect(decide?.status.code).toBe(SpanStatusCode.ERROR);
      expect(decide?.status.message).toMatch(/policy store offline/);
      expect(named('execute_tool read_file')).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] ERROR:/);
    });
  });
  describe('when the agent loop span cannot be read', () => {
    it('parents the span to the active context and says so', async () => {
      const agent = scriptedAgent('gamma', [call('shell', { command: 'ls' }, 'call_0'), say('done')], {
        tools: [recordingTool('shell')],
      });
      install(agent, { gate: readOnly('otel-policy') });
      // An SDK whose tracer field is not plain data (here: a getter over the real one).
      const tracer = (agent as unknown as { _tracer: unknown })._tracer;
      Object.defineProperty(agent, '_tracer', { get: () => tracer, configurable: true });
      const outer = trace.getTracer('app').startSpan('app.request');
      await context.with(trace.setSpan(context.active(), outer), () => agent.invoke('go'));
      outer.end();
      const [decide] = named('gate_audit.decide shell');
      expect(decide?.attributes['gate_audit.parent']).toBe('active_context');
      expect(decide?.attributes['gate_audit.parent_unread']).toMatch(/agent loop span unreadable \(accessor\)/);
      expect(decide?.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
      expect(decide?.status.code).toBe(SpanStatusCode.ERROR);
    });
  });
  describe('when the node guard cancels a Graph node', () => {
    it("puts a node the guard cancels on the orchestrator's node span, status ERROR although the SDK ends it OK", async () => {
      const agentOn = (id: string) =>
        scriptedAgent(id, [call('read_file', { path: id }), say(id)], { tools: [recordingTool('read_file')] });
      const graph = new Graph({ id: 'g', nodes: [agentOn('c'), agentOn('d')], edges: [['c', 'd']], maxSteps: 5 });
      installMultiagent(graph, { gate: readOnly('graph-policy') });
      nodesOf(graph).set('d', new AgentNode({ agent: agentOn('d') }));
      const { cancelled } = await runOrchestrator(graph);
      expect(Object.keys(cancelled)).toEqual(['d']);
      const [node] = named('node d');
      expect(node?.attributes).toMatchObject({
        'gen_ai.agent.id': 'd',
        'gate_audit.gate': 'graph-policy',
        'gate_audit.verdict': 'deny',
        'gate_audit.rule': 'node-guard',
        'error.type': 'gate_denied',
      });
      expect(node?.status.code).toBe(SpanStatusCode.ERROR);
      expect(node?.status.message).toMatch(/UNGATED NODE: node "d"/);
      const [ok] = named('node c');
      expect(ok?.attributes['gate_audit.verdict']).toBeUndefined();
      expect(ok?.status.code).toBe(SpanStatusCode.OK);
      // The allowed call inside node c is labelled on its own tool span.
      expect(named('execute_tool read_file').map((s) => s.attributes['gate_audit.verdict'])).toEqual(['allow']);
      expect(named('gate_audit.decide node d')).toEqual([]);
    });
  });
  describe('when the tracer provider throws', () => {
    it('a tracer that throws never changes a decision (the refusal stands, the allowed call runs)', async () => {
      const agent = scriptedAgent(
        'eta',
        [call('shell', { command: 'ls' }), call('read_file', { path: 'r' }), say('ok')],
        {
          tools: [recordingTool('read_file'), recordingTool('shell')],
        },
      );
      install(agent, { gate: readOnly('steady') });
      // The SDK keeps the tracer it got at construction; gate-audit asks for one at each decision.
      trace.disable();
      trace.setGlobalTracerProvider({
        getTracer: () => {
          throw new Error('broken exporter setup');
        },
      });
      await agent.invoke('go');
      expect(ran).toEqual(['read_file({"path":"r"})@eta']);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: read-only agent/);
    });
  });
  describe('when the node guard cancels a Swarm node', () => {
    it("puts the cancelled node on the Swarm's node span, status ERROR", async () => {
      const s1 = scriptedAgent('s1', [handoff('s2', 'go on'), say('-')]);
      const s2 = scriptedAgent('s2', [call('read_file', { path: 's2' }), say('s2')], {
        tools: [recordingTool('read_file')],
      });
      const swarm = new Swarm({ id: 'sw', nodes: [s1, s2], maxSteps: 4 });
      // The handoff is a tool call too: this gate allows every call.
      installMultiagent(swarm, { gate: { name: 'swarm-policy', decide: () => ({ verdict: 'allow', rule: 'all' }) } });
      nodesOf(swarm).set(
        's2',
        new AgentNode({ agent: scriptedAgent('s2', [say('s2')], { tools: [recordingTool('read_file')] }) }),
      );
      const { cancelled } = await runOrchestrator(swarm);
      expect(Object.keys(cancelled)).toEqual(['s2']);
      const [node] = named('node s2');
      expect(node?.attributes).toMatchObject({
        'gate_audit.gate': 'swarm-policy',
        'gate_audit.verdict': 'deny',
        'error.type': 'gate_denied',
      });
      expect(node?.status.code).toBe(SpanStatusCode.ERROR);
      expect(named('node s1')[0]?.status.code).toBe(SpanStatusCode.OK);
    });
  });
  describe('when decisions are collected as metrics', () => {
    it('counts decisions in gate_audit.decisions by gate, verdict and rule', async () => {
      const agent = scriptedAgent(
        'delta',
        [
          call('read_file', { path: 'x' }),
          call('read_file', { path: 'y' }),
          call('shell', { command: 'ls' }),
          say('ok'),
        ],
        {
          tools: [recordingTool('read_file'), recordingTool('shell')],
        },
      );
      install(agent, { gate: readOnly('counted') });
      await agent.invoke('go');
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'gate_audit.decisions');
      const points = (metric?.dataPoints ?? [])
        .map((p) => `${JSON.stringify(p.attributes)}=${JSON.stringify(p.value)}`)
        .sort();
      expect(points).toEqual([
        '{"gate_audit.gate":"counted","gate_audit.verdict":"allow","gate_audit.rule":"reads"}=2',
        '{"gate_audit.gate":"counted","gate_audit.verdict":"deny","gate_audit.rule":"default-deny"}=1',
      ]);
    });
  });
  describe('when the processor is shut down or absent', () => {
    it('emits nothing once the processor is shut down (and nothing without one)', async () => {
      await shutdown();
      // A provider without the processor: the SDK's spans only.
      exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(provider);
      shutdown = async () => {
        await provider.shutdown();
        trace.disable();
        context.disable();
      };
      const agent = scriptedAgent(
        'eps',
        [call('read_file', { path: 'a' }), call('shell', { command: 'ls' }), say('ok')],
        {
          tools: [recordingTool('read_file'), recordingTool('shell')],
        },
      );
      install(agent, { gate: readOnly('quiet') });
      await agent.invoke('go');
      expect(named('execute_tool read_file')).toHaveLength(1);
      expect(spans().filter((s) => s.name.startsWith('gate_audit.'))).toEqual([]);
      expect(spans().filter((s) => Object.keys(s.attributes).some((k) => k.startsWith('gate_audit.')))).toEqual([]);
    });
  });
});
