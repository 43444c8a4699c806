/**
 * The agent and place of every tool call on the SDK's own `execute_tool` span (issue 34 §B): `gateSpanProcessor()`
 * on a real tracer provider, real `Agent`s, `Graph`s, `Swarm`s and tools (only the model is scripted), gated and
 * not; and the trace ids decision records carry while a processor is open.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { type Agent, TextBlock } from '@strands-agents/sdk';
import { Graph, Node, type NodeResultUpdate, Swarm } from '@strands-agents/sdk/multiagent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Gate,
  GOVERNS,
  type GovernanceDeclaration,
  install,
  installMultiagent,
  openDecisionLog,
  policyGate,
  verifyLogFile,
} from '../../src/index.js';
import { gateSpanProcessor } from '../../src/otel/index.js';
import { chainOf, linkOf, placeOf, type SpanLink, splitPath } from '../../src/otel/place.js';
import { call, handoff, isolateEachTest, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

let exporter: InMemorySpanExporter;
let shutdown: () => Promise<void>;

isolateEachTest();

function traced(): void {
  exporter = new InMemorySpanExporter();
  const processor = gateSpanProcessor();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  shutdown = async () => {
    await processor.shutdown();
    await provider.shutdown();
    trace.disable();
    context.disable();
  };
}

beforeEach(traced);
afterEach(async () => shutdown());

const allowReads: Gate = {
  name: 'reads-only',
  decide: (request) =>
    request.toolName === 'shell'
      ? { verdict: 'deny', reason: 'no shell', rule: 'no-shell' }
      : { verdict: 'allow', rule: 'reads' },
};

/** `agent_id path verdict` of every tool call span (the SDK's and gate-audit's), sorted. */
function stamped(): string[] {
  return exporter
    .getFinishedSpans()
    .filter((s: ReadableSpan) => s.attributes['gen_ai.operation.name'] === 'execute_tool')
    .map(
      (s) =>
        `${s.name} ${String(s.attributes['gate_audit.agent_id'])} ${String(s.attributes['gate_audit.path'])} ${String(s.attributes['gate_audit.verdict'])}`,
    )
    .sort();
}

/** A custom node that declares one agent and runs another. */
class RelayStep extends Node {
  constructor(
    private readonly _declared: Agent,
    private readonly _runs: Agent,
  ) {
    super('relay', { description: 'relays' });
  }

  [GOVERNS](): GovernanceDeclaration {
    return { agents: [this._declared] };
  }

  // eslint-disable-next-line require-yield
  async *handle(): AsyncGenerator<never, NodeResultUpdate> {
    await this._runs.invoke('relay');
    return { content: [new TextBlock('relayed')] };
  }
}

describe('gateSpanProcessor: the agent and place of every tool call', () => {
  describe('when a gated Graph runs a nested Swarm and refuses a call', () => {
    it('stamps the tool spans of a gated Graph, a nested Swarm and a refused call with the agent and its path', async () => {
      const reader = scriptedAgent(
        'reader',
        [call('read_file', { path: 'a' }), call('shell', { command: 'ls' }), say('ok')],
        {
          tools: [recordingTool('read_file'), recordingTool('shell')],
        },
      );
      const s1 = scriptedAgent('s1', [handoff('s2', 'on'), say('-')]);
      const s2 = scriptedAgent('s2', [call('read_file', { path: 's2' }), say('s2')], {
        tools: [recordingTool('read_file')],
      });
      const team = new Swarm({ id: 'team', nodes: [s1, s2], maxSteps: 4 });
      const graph = new Graph({ id: 'desk', nodes: [reader, team], edges: [['reader', 'team']], maxSteps: 5 });
      installMultiagent(graph, { gate: allowReads });
      await graph.invoke('go');
      expect(stamped()).toEqual([
        'execute_tool read_file reader desk/reader allow',
        'execute_tool read_file s2 desk/team/s2 allow',
        'execute_tool strands_structured_output s1 desk/team/s1 allow',
        'gate_audit.decide shell reader desk/reader deny',
      ]);
      const [refused] = exporter.getFinishedSpans().filter((s) => s.name === 'gate_audit.decide shell');
      expect(refused?.instrumentationScope.name).toBe('gate-audit');
      expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
    });
  });
  describe('when an agent runs ungated', () => {
    it("stamps an ungated agent's calls too, with no verdict: one a custom node runs, one outside any tree", async () => {
      const clerk = scriptedAgent('clerk', [say('filed')]);
      const shadow = scriptedAgent('shadow', [call('shell', { command: 'ls' }), say('done')], {
        tools: [recordingTool('shell')],
      });
      const graph = new Graph({ id: 'support', nodes: [new RelayStep(clerk, shadow)], edges: [], maxSteps: 3 });
      installMultiagent(graph, { gate: allowReads });
      await graph.invoke('go');
      const loner = scriptedAgent('loner', [call('read_file', { path: 'x' }), say('ok')], {
        tools: [recordingTool('read_file')],
      });
      await loner.invoke('go');
      expect(stamped()).toEqual([
        'execute_tool read_file loner loner undefined',
        'execute_tool shell shadow support/relay/shadow undefined',
      ]);
    });
  });
  describe('when an agent is used as a tool, or its id holds / or #', () => {
    it("places an agent used as a tool under its caller's tool, and an id with / or # as an escaped segment", async () => {
      const inner = scriptedAgent('scout/1#a', [call('read_file', { path: 'in' }), say('seen')], {
        tools: [recordingTool('read_file')],
      });
      const lead = scriptedAgent('lead', [call('scout', { input: 'look' }), say('ok')], {
        tools: [inner.asTool({ name: 'scout' })],
      });
      install(lead, { gate: allowReads });
      install(inner, { gate: allowReads });
      await lead.invoke('go');
      expect(stamped()).toEqual([
        'execute_tool read_file scout/1#a lead/scout allow',
        'execute_tool scout lead lead allow',
      ]);
    });
  });
});

describe('placeOf (the place read from spans)', () => {
  const link = (kind: SpanLink['kind'], id?: string, parent?: string, nodeType?: string): SpanLink => ({
    kind,
    parent,
    ...(id === undefined ? {} : { id }),
    ...(nodeType === undefined ? {} : { nodeType }),
  });

  describe('when it reads SDK span names and attributes', () => {
    it('reads the SDK span names and attributes into links', () => {
      const read = (attributes: Record<string, unknown>) => (key: string) => attributes[key];
      expect(
        linkOf('invoke_agent a', read({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'a' }), 'p'),
      ).toEqual({ kind: 'agent', parent: 'p', id: 'a' });
      expect(linkOf('execute_agent_loop_cycle', read({}), 'p').kind).toBe('loop');
      expect(
        linkOf(
          'node n',
          read({
            'gen_ai.operation.name': 'execute_node',
            'gen_ai.agent.id': 'n',
            'gen_ai.agent.node_type': 'agentNode',
          }),
          undefined,
        ),
      ).toEqual({ kind: 'node', parent: undefined, id: 'n', nodeType: 'agentNode' });
      expect(
        linkOf('invoke_swarm s', read({ 'gen_ai.operation.name': 'invoke_swarm', 'gen_ai.agent.id': 's' }), 'p').kind,
      ).toBe('orchestrator');
      // A value that is not a string reads as absent (hostile attribute types are data, not ids).
      expect(
        linkOf('invoke_agent', read({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 7 }), 'p'),
      ).toEqual({
        kind: 'agent',
        parent: 'p',
      });
    });
  });
  describe('when no agent span is among the ancestors', () => {
    it('names no place when no agent span is among the ancestors, and stops at a cycle', () => {
      expect(placeOf([link('other'), link('node', 'n')])).toEqual({});
      const cyclic = new Map<string, SpanLink>([
        ['a', link('other', undefined, 'b')],
        ['b', link('other', undefined, 'a')],
      ]);
      expect(chainOf('a', (id) => cyclic.get(id)).length).toBe(256);
    });
  });
  describe('when an agent sits under an app span or has no id', () => {
    it('gives an agent under an app span its own root, and an unnamed agent #unnamed', () => {
      expect(placeOf([link('loop'), link('agent', 'x'), link('other', 'app')])).toEqual({ agentId: 'x', path: ['x'] });
      expect(placeOf([link('loop'), link('agent')])).toEqual({ path: ['#unnamed'] });
    });
  });
  describe('when it splits gate_audit.path', () => {
    it('splits it, refusing an empty segment', () => {
      expect(splitPath('a/b%2Fc')).toEqual(['a', 'b%2Fc']);
      expect(splitPath('a//b')).toBeUndefined();
      expect(splitPath(3)).toBeUndefined();
    });
  });
});

describe('decision records while a gateSpanProcessor is open', () => {
  describe('when a span is active, or not, as a record is written', () => {
    it('carry the trace and span active when written, inside the chain that verify-log checks', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gate-audit-ids-'));
      try {
        const file = join(dir, 'decisions.jsonl');
        const log = openDecisionLog(file);
        const gate = policyGate(
          { version: 1, rules: [{ id: 'reads', tools: ['read_file'], verdict: 'allow' }] },
          { log, name: 'logged' },
        );
        const inGraph = scriptedAgent('inside', [call('read_file', { path: 'a' }), say('ok')], {
          tools: [recordingTool('read_file')],
        });
        const graph = new Graph({ id: 'g', nodes: [inGraph], edges: [], maxSteps: 2 });
        installMultiagent(graph, { gate });
        await graph.invoke('go');
        // A lone agent with no span active: its record has no ids.
        const alone = scriptedAgent('alone', [call('read_file', { path: 'b' }), say('ok')], {
          tools: [recordingTool('read_file')],
        });
        install(alone, { gate });
        await alone.invoke('go');
        // The exporter forgets its spans at shutdown: read the node span first.
        const node = exporter
          .getFinishedSpans()
          .find((s) => s.name === 'node inside')
          ?.spanContext();
        expect(node).toBeDefined();
        // After the last processor is shut down, no ids either, even inside a span.
        await shutdown();
        // A provider without the processor, so the span below is real.
        const plain = new BasicTracerProvider({
          spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
        });
        context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
        trace.setGlobalTracerProvider(plain);
        shutdown = async () => {
          await plain.shutdown();
          trace.disable();
          context.disable();
        };
        const after = scriptedAgent('after', [call('read_file', { path: 'c' }), say('ok')], {
          tools: [recordingTool('read_file')],
        });
        install(after, { gate });
        const outer = trace.getTracer('app').startSpan('app.request');
        expect(trace.isSpanContextValid(outer.spanContext())).toBe(true);
        await context.with(trace.setSpan(context.active(), outer), () => after.invoke('go'));
        outer.end();
        log.close();

        const records = readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(records.map((r) => [r.agentId, r.traceId, r.spanId])).toEqual([
          ['inside', node?.traceId, node?.spanId],
          ['alone', undefined, undefined],
          ['after', undefined, undefined],
        ]);
        expect(await verifyLogFile(file)).toMatchObject({ ok: true, records: 3 });
        // The ids are under the hash: changing one breaks the chain.
        const text = readFileSync(file, 'utf8');
        const forged = text.replace(String(records[0]?.spanId), '0123456789abcdef');
        writeFileSync(file, forged);
        expect(await verifyLogFile(file)).toMatchObject({ ok: false, line: 1 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
