/**
 * Bench row `otel-overhead`: a gated tool call through a real Agent loop traced by a real tracer provider
 * with an in-memory exporter, with `gateSpanProcessor()` in the provider against the same without it (the
 * SDK's spans only). Target: ratio ≤ 1.05. Self-contained: its own provider per sample, set globally and
 * removed again, so no other row runs traced. Timed in wall-clock and process CPU time; the target applies to
 * the CPU ratio, as for the other in-process rows.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { allowAll, install } from '../dist/index.js';
import { gateSpanProcessor } from '../dist/otel/index.js';
import { call, ScriptedModel, say } from '../fixtures/support/scripted-model.js';
import { alternate, type Row, row, settle, type Timed, timed } from './stats.js';

const noop = tool({
  name: 'noop',
  description: 'does nothing',
  inputSchema: z.object({ i: z.number() }),
  callback: () => 'ok',
});

/** Times 5 gated agents of `calls` tool calls each, traced, per tool call; with or without the gate processor. */
async function timeTraced(calls: number, withGate: boolean): Promise<Timed> {
  const exporter = new InMemorySpanExporter();
  const processor = withGate ? gateSpanProcessor() : undefined;
  const provider = new BasicTracerProvider({
    spanProcessors: [...(processor === undefined ? [] : [processor]), new SimpleSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  try {
    const agents = Array.from({ length: 5 }, () => {
      const turns = [...Array.from({ length: calls }, (_, i) => call('noop', { i })), say('done')];
      const agent = new Agent({ id: 'bench', model: new ScriptedModel(turns), tools: [noop], printer: false });
      install(agent, { gate: allowAll() });
      return agent;
    });
    settle();
    return await timed(async () => {
      for (const agent of agents) await agent.invoke('go');
    }, calls * agents.length);
  } finally {
    await processor?.shutdown();
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}

/**
 * Measures the row.
 *
 * @param pairs - measured pairs (after 6 warm-up pairs)
 */
export async function otelOverhead(pairs: number): Promise<Row> {
  const calls = 20;
  const samples = await alternate(
    pairs,
    6,
    () => timeTraced(calls, true),
    () => timeTraced(calls, false),
  );
  return row(
    'otel-overhead',
    'ms/call',
    samples,
    `${calls} gated tool calls per invoke, traced to memory: with gateSpanProcessor vs the SDK's spans only`,
    { max: 1.05 },
  );
}
