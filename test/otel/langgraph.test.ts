/**
 * `langGraphTracer()` and `gate-audit observed` on real LangGraph.js traces: the fixture
 * `fixtures/observed/langgraph-run.ts` runs a gated graph (whose function node declares one agent and runs an
 * ungated one) and an ungated helper, with the tracer in each run's callbacks, `gateSpanProcessor()` and the OTel
 * SDK's in-memory exporter, and writes the spans as OTLP JSON. The command runs in-process (`main()`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { tool } from '@langchain/core/tools';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createAgent, createMiddleware } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildDesk, policy, runLangGraphTraced } from '../../fixtures/observed/langgraph-run.js';
import { audit, installMultiagent, policyGate } from '../../src/langgraph.js';
import { gateSpanProcessor, langGraphTracer } from '../../src/otel/index.js';
import { LANGGRAPH_TRACER_SCOPE } from '../../src/otel/langgraph.js';
import { type ObservedReport, ObservedReportSchema } from '../../src/report/observed-schema.js';
import { cli, root } from '../helpers/cli.js';
import { ScriptedChatModel, toolNodeGraph } from '../helpers/langgraph.js';

let dir: string;
let gated: { traces: string; decisions: string };
let ungated: { traces: string };

const at = (name: string): string => relative(root, join(dir, name));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-observed-langgraph-'));
  const run = await runLangGraphTraced(join(dir, 'gated'));
  gated = { traces: relative(root, run.traces), decisions: relative(root, run.decisions) };
  const plain = await runLangGraphTraced(join(dir, 'ungated'), { gated: false, spansPerLine: 2 });
  ungated = { traces: relative(root, plain.traces) };
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function observedJson(...args: string[]): Promise<{ code: number; report: ObservedReport }> {
  const { code, out } = await cli('observed', ...args, '--format', 'json');
  return { code, report: ObservedReportSchema.parse(JSON.parse(out)) };
}

/** `place tool calls/decided/undecided/refused` per row. */
const counts = (report: ObservedReport): string[] =>
  report.rows.map(
    (r) =>
      `${r.path?.join('/') ?? `id:${r.agentId ?? '?'}`} ${r.tool} ${r.calls}/${r.decided}/${r.undecided}/${r.refused}`,
  );

describe('gate-audit observed on LangGraph traces', () => {
  describe('when the graph is gated and the tracer is in every run', () => {
    it("lists the helper's and the function node's hidden agent's calls as undecided, each at the audit's place", async () => {
      const { code, report } = await observedJson(gated.traces);
      expect(code).toBe(1);
      expect(counts(report)).toEqual([
        'desk/relay/shadow/tools read_file 1/0/1/0',
        'desk/relay/shadow/tools shell 1/0/1/0',
        'desk/triage/tools read_file 1/1/0/0',
        'desk/triage/tools shell 1/0/0/1',
        'helper/tools read_file 1/0/1/0',
        'helper/tools shell 1/0/1/0',
      ]);
      expect(report.rows.map((r) => r.agentId)).toEqual(['shadow', 'shadow', 'triage', 'triage', 'helper', 'helper']);
    });

    it('decides a call whose span lost its verdict by its decision record (--log)', async () => {
      const stripped = readFileSync(join(root, gated.traces), 'utf8').replace(
        /\{"key":"gate_audit\.(verdict|gate|rule)","value":\{"stringValue":"[^"]*"\}\},?/g,
        '',
      );
      writeFileSync(join(dir, 'stripped.jsonl'), stripped.replaceAll(',]', ']'));
      const without = await observedJson(at('stripped.jsonl'));
      expect(counts(without.report)).toContain('desk/triage/tools read_file 1/0/1/0');
      const withLog = await observedJson(at('stripped.jsonl'), '--log', gated.decisions);
      expect(counts(withLog.report)).toContain('desk/triage/tools read_file 1/1/0/0');
    });

    it('holds the rows against the audit of the gated graph: the hidden agent is a place the audit never saw', async () => {
      const shipped = buildDesk();
      installMultiagent(shipped, { gate: policyGate(policy) });
      writeFileSync(join(dir, 'audit.json'), JSON.stringify(audit(shipped)));
      const drift = await observedJson(ungated.traces, '--audit', at('audit.json'));
      expect(drift.report.audit).toEqual({ root: 'desk' });
      expect(drift.report.notes.map((n) => `${n.kind} ${n.path?.join('/')} ${n.tool}`)).toEqual([
        'gated-undecided desk/triage/tools read_file',
        'gated-undecided desk/triage/tools shell',
      ]);
    });
  });

  describe('when the app ships without installMultiagent', () => {
    it('every call ran undecided, at the same places (the tracer places calls from the runs, not the gate)', async () => {
      const { code, report } = await observedJson(ungated.traces);
      expect(code).toBe(1);
      expect(counts(report)).toEqual([
        'desk/relay/shadow/tools read_file 1/0/1/0',
        'desk/relay/shadow/tools shell 1/0/1/0',
        'desk/triage/tools read_file 1/0/1/0',
        'desk/triage/tools shell 1/0/1/0',
        'helper/tools read_file 1/0/1/0',
        'helper/tools shell 1/0/1/0',
      ]);
    });
  });
});

describe('langGraphTracer', () => {
  /** Runs `fn` under a tracer provider with an in-memory exporter (and the gate's processor when asked). */
  async function traced(withProcessor: boolean, fn: () => Promise<unknown>) {
    const exporter = new InMemorySpanExporter();
    const processor = withProcessor ? gateSpanProcessor() : undefined;
    const provider = new BasicTracerProvider({
      spanProcessors: [...(processor === undefined ? [] : [processor]), new SimpleSpanProcessor(exporter)],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    try {
      await fn();
      return exporter.getFinishedSpans();
    } finally {
      await processor?.shutdown();
      await provider.shutdown();
      trace.disable();
      context.disable();
    }
  }

  const failing = tool(
    () => {
      throw new Error('disk on fire');
    },
    { name: 'burn', description: 'fails', schema: z.object({}) },
  );

  describe('when a tool throws', () => {
    it('makes one execute_tool span per tool run, in its own scope, ERROR when the tool threw', async () => {
      const graph = toolNodeGraph('bench', [failing]);
      const spans = await traced(false, () =>
        graph
          .invoke(
            { messages: [{ role: 'ai', content: '', tool_calls: [{ name: 'burn', args: {}, id: 'c1' }] }] },
            { callbacks: [langGraphTracer()] },
          )
          .catch(() => undefined),
      );
      expect(spans.map((s) => s.name)).toEqual(['execute_tool burn']);
      const [span] = spans;
      expect(span?.instrumentationScope.name).toBe(LANGGRAPH_TRACER_SCOPE);
      expect(span?.attributes).toEqual({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'burn',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.agent.id': 'bench',
        'gate_audit.agent_id': 'bench',
        'gate_audit.path': 'bench/tools',
      });
      expect(span?.status).toMatchObject({ code: 2, message: expect.stringContaining('disk on fire') as unknown });
    });
  });
  describe("when the gate's processor is present or absent", () => {
    it("carries a verdict only from the gate's processor: without it an allowed call's span has none", async () => {
      const run = async (withProcessor: boolean) => {
        const agent = readingClerk();
        installMultiagent(agent, { gate: policyGate(policy) });
        return traced(withProcessor, () =>
          agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { callbacks: [langGraphTracer()] }),
        );
      };
      const labelled = (await run(true)).find((s) => s.name === 'execute_tool read_file');
      expect(labelled?.attributes).toMatchObject({
        'gate_audit.verdict': 'allow',
        'gate_audit.rule': 'reads',
        'gate_audit.path': 'clerk/tools',
      });
      const plain = (await run(false)).find((s) => s.name === 'execute_tool read_file');
      expect(plain?.attributes['gate_audit.path']).toBe('clerk/tools');
      expect(plain?.attributes['gate_audit.verdict']).toBeUndefined();
    });
  });
  describe('when a gated and an ungated call run at once with the same place and id', () => {
    it("binds an allowance to the allowed call's own run: a concurrent ungated call with the same place and id gets none", async () => {
      // Models reuse call ids (call_0): two agents named alike, one gated, run at once with the same id.
      const reading = (name: string) =>
        createAgent({
          model: new FixedIdModel('call_0', name === 'gated' ? 'read_file' : 'shell'),
          tools: [pretendTool('read_file'), pretendTool('shell')],
          name: 'desk',
        });
      const gatedAgent = reading('gated');
      installMultiagent(gatedAgent, { gate: policyGate(policy) });
      const ungatedAgent = reading('ungated');
      const hi = { messages: [{ role: 'user', content: 'go' }] };
      const spans = await traced(true, () =>
        Promise.all([
          gatedAgent.invoke(hi, { callbacks: [langGraphTracer()] }),
          ungatedAgent.invoke(hi, { callbacks: [langGraphTracer()] }),
        ]),
      );
      const verdicts = spans
        .filter((span) => span.name.startsWith('execute_tool'))
        .map(
          (span) =>
            `${span.name} ${String(span.attributes['gate_audit.path'])} ${String(span.attributes['gate_audit.verdict'] ?? '-')}`,
        )
        .sort();
      expect(verdicts).toEqual(['execute_tool read_file desk/tools allow', 'execute_tool shell desk/tools -']);
    });
  });
  describe('when middleware runs another tool instead of the allowed call', () => {
    it('records the tool it ran instead as undecided', async () => {
      const swap = createMiddleware({
        name: 'swap',
        wrapToolCall: (request: { toolCall: { id?: string } }) =>
          pretendTool('shell').invoke({
            ...request.toolCall,
            name: 'shell',
            args: { command: 'id' },
            type: 'tool_call',
          }),
      });
      const agent = createAgent({
        model: new FixedIdModel('call_7', 'read_file'),
        tools: [pretendTool('read_file')],
        middleware: [swap],
        name: 'desk',
      });
      installMultiagent(agent, { gate: policyGate(policy) });
      const spans = await traced(true, () =>
        agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { callbacks: [langGraphTracer()] }),
      );
      const shellSpan = spans.find((span) => span.name === 'execute_tool shell');
      expect(shellSpan?.attributes['gen_ai.tool.call.id']).toBe('call_7');
      expect(shellSpan?.attributes['gate_audit.verdict']).toBeUndefined();
    });
  });
});

/** A harmless tool that says what it would have done. */
function pretendTool(name: string) {
  return tool((args: Record<string, unknown>) => `${name} ${JSON.stringify(args)}`, {
    name,
    description: name,
    schema: z.object({ path: z.string().optional(), command: z.string().optional() }),
  });
}

/** A model that calls one tool with a fixed call id, then says done. */
class FixedIdModel extends ScriptedChatModel {
  constructor(id: string, name: string) {
    super([{ calls: [{ name, args: name === 'shell' ? { command: 'id' } : { path: 'x' } }] }, { say: 'done' }]);
    this._id = id;
  }
  private readonly _id: string;
  override async _generate(messages: Parameters<ScriptedChatModel['_generate']>[0]) {
    const result = await super._generate(messages);
    const message = result.generations[0]?.message as { tool_calls?: { id?: string }[] } | undefined;
    for (const call of message?.tool_calls ?? []) call.id = this._id;
    return result;
  }
}

/** A `createAgent` agent `clerk` whose model reads one file. */
function readingClerk() {
  return createAgent({
    model: new ScriptedChatModel([{ calls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { say: 'done' }]),
    tools: [
      tool(({ path }: { path: string }) => `contents of ${path}`, {
        name: 'read_file',
        description: 'Read a file',
        schema: z.object({ path: z.string() }),
      }),
    ],
    name: 'clerk',
  });
}
