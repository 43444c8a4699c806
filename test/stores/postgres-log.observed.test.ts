/**
 * Decision records in PostgreSQL and real traces (issue 34 §B): a `postgresStore` written inside a span keeps
 * its `traceId`/`spanId` in its hashed text (`verifyStoreLog` still holds), `storeRecords` reads them back
 * page by page, and `gate-audit observed --store <url>` decides by them the calls whose spans lost their
 * verdict. A real server: a throwaway local cluster.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Graph } from '@strands-agents/sdk/multiagent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installMultiagent, policyGate } from '../../src/index.js';
import { gateSpanProcessor } from '../../src/otel/index.js';
import { ObservedReportSchema } from '../../src/report/observed-schema.js';
import { postgresStore, storeRecords, verifyStoreLog } from '../../src/stores/postgres.js';
import { cli, root } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { call, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

let cluster: TestCluster;
let dir: string;

beforeAll(() => {
  cluster = startCluster();
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-pg-observed-'));
});
afterAll(() => {
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('the PostgreSQL decision log', () => {
  describe('when gate-audit observed --store reads it', () => {
    it('records carry the active span; observed --store decides the calls they match', async () => {
      const store = postgresStore({ connectionString: cluster.url });
      // The schema is the admin's step (gate-audit store migrate): a store never creates tables.
      await store.migrate();
      const exporter = new InMemorySpanExporter();
      const processor = gateSpanProcessor();
      const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(provider);
      let lines: string;
      try {
        const agent = scriptedAgent(
          'clerk',
          [call('read_file', { path: 'a' }), call('read_file', { path: 'b' }), say('ok')],
          {
            tools: [recordingTool('read_file')],
          },
        );
        const graph = new Graph({ id: 'desk', nodes: [agent], edges: [], maxSteps: 2 });
        const gate = policyGate(
          { version: 1, rules: [{ id: 'reads', tools: ['read_file'], verdict: 'allow' }] },
          { log: store },
        );
        installMultiagent(graph, { gate });
        await graph.invoke('go');
        const spans = exporter.getFinishedSpans();
        const node = spans.find((s) => s.name === 'node clerk')!.spanContext();
        // One record a page: both records of this run come back in order, each with the node span's ids.
        const records = [];
        for await (const stored of storeRecords(store, 1)) records.push(stored.record);
        expect(records.map((r) => [r?.toolUseId !== undefined, r?.traceId, r?.spanId])).toEqual([
          [true, node.traceId, node.spanId],
          [true, node.traceId, node.spanId],
        ]);
        expect((await verifyStoreLog(store)).ok).toBe(true);
        // The spans as a pipeline that dropped gate-audit's attributes would keep them.
        lines = new TextDecoder()
          .decode(JsonTraceSerializer.serializeRequest(spans))
          .replace(/\{"key":"gate_audit\.[a-z_]+","value":\{"stringValue":"[^"]*"\}\},?/g, '')
          .replaceAll(',]', ']');
      } finally {
        await store.close();
        await processor.shutdown();
        await provider.shutdown();
        trace.disable();
        context.disable();
      }
      const file = join(dir, 'traces.jsonl');
      writeFileSync(file, `${lines}\n`);
      const shown = relative(root, file);
      const without = await cli('observed', shown, '--format', 'json');
      expect(without.code).toBe(1);
      const withStore = await cli('observed', shown, '--store', cluster.url, '--format', 'json');
      expect(withStore.err).toBe('');
      expect(withStore.code).toBe(0);
      const report = ObservedReportSchema.parse(JSON.parse(withStore.out));
      expect(report.rows.map((r) => `${r.path?.join('/')} ${r.tool} ${r.decided}/${r.undecided}`)).toEqual([
        'desk/clerk read_file 2/0',
      ]);
      expect(report.sources.find((s) => s.kind === 'store')).toEqual({
        name: 'postgres',
        kind: 'store',
        read: 2,
        used: 2,
      });
      expect(readFileSync(file, 'utf8')).not.toContain('gate_audit.verdict');
      // A store that cannot be reached is exit 2, named.
      const down = await cli('observed', shown, '--store', 'postgresql://nobody@127.0.0.1:1/none');
      expect(down.code).toBe(2);
      expect(down.err).toMatch(/store=<postgres> \| .* \| check the --store connection string/);
    }, 60_000);
  });
});
