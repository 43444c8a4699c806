/**
 * `observed-throughput`: `gate-audit observed` (the built command's code, in its own process) on 1M synthetic
 * spans of OTLP JSON (200,000 traces `invoke_graph` → `node` → `invoke_agent` → `execute_agent_loop_cycle` →
 * `execute_tool`, 100 spans a line, one call in ten undecided), against the floor of the same work: reading
 * the same lines and `JSON.parse` of each, nothing else. Reports µs per span (and spans per second) and the
 * peak resident memory of the observed process: the target is ≤ 256 MB (memory is bounded by the spans of
 * open traces, not by the file's size, so a 1 GB file reads in the same).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { round, type Row } from './stats.js';

const SPANS_PER_TRACE = 5;
const SPANS_PER_LINE = 100;
const PEAK_MB = 256;

const attr = (key: string, value: string): string => `{"key":"${key}","value":{"stringValue":"${value}"}}`;

/** One trace's five spans, leaf first (as an exporter writes them, at their end). */
function traceSpans(t: number): string[] {
  const traceId = t.toString(16).padStart(32, '0');
  const id = (n: number): string => (t * 8 + n).toString(16).padStart(16, '0');
  const start = `"startTimeUnixNano":"${1_800_000_000_000_000_000n + BigInt(t) * 1000n}"`;
  const span = (n: number, parent: number | undefined, name: string, attributes: string[]): string =>
    `{"traceId":"${traceId}","spanId":"${id(n)}","parentSpanId":"${parent === undefined ? '' : id(parent)}","name":"${name}","kind":1,${start},"endTimeUnixNano":"1","attributes":[${attributes.join(',')}]}`;
  const undecided = t % 10 === 0;
  return [
    span(5, 4, 'execute_tool read_file', [
      attr('gen_ai.operation.name', 'execute_tool'),
      attr('gen_ai.tool.name', 'read_file'),
      attr('gen_ai.tool.call.id', `call_${t % 4}`),
      ...(undecided
        ? []
        : [
            attr('gate_audit.agent_id', `agent${t % 50}`),
            attr('gate_audit.path', `desk/agent${t % 50}`),
            attr('gate_audit.verdict', 'allow'),
          ]),
    ]),
    span(4, 3, 'execute_agent_loop_cycle', [attr('agent_loop.cycle_id', 'c')]),
    span(3, 2, `invoke_agent agent${t % 50}`, [
      attr('gen_ai.operation.name', 'invoke_agent'),
      attr('gen_ai.agent.id', `agent${t % 50}`),
    ]),
    span(2, 1, `node agent${t % 50}`, [
      attr('gen_ai.operation.name', 'execute_node'),
      attr('gen_ai.agent.id', `agent${t % 50}`),
      attr('gen_ai.agent.node_type', 'agentNode'),
    ]),
    span(1, undefined, 'invoke_graph desk', [
      attr('gen_ai.operation.name', 'invoke_graph'),
      attr('gen_ai.agent.id', 'desk'),
    ]),
  ];
}

/** Writes `spans` spans of OTLP JSON lines to `file`. */
async function writeSpans(file: string, spans: number): Promise<void> {
  const out = createWriteStream(file);
  let batch: string[] = [];
  const flush = async (): Promise<void> => {
    const line = `{"resourceSpans":[{"resource":{"attributes":[${attr('host.name', 'bench')}]},"scopeSpans":[{"scope":{"name":"strands-agents"},"spans":[${batch.join(',')}]}]}]}\n`;
    batch = [];
    if (!out.write(line)) await once(out, 'drain');
  };
  for (let t = 0; t < spans / SPANS_PER_TRACE; t += 1) {
    batch.push(...traceSpans(t));
    if (batch.length >= SPANS_PER_LINE) await flush();
  }
  if (batch.length > 0) await flush();
  out.end();
  await once(out, 'finish');
}

/** Runs one side in its own process: its wall time in ms and its peak RSS in MB. */
function side(script: string, file: string): { ms: number; peakMb: number; out: string } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, file], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 && run.status !== 1) throw new Error(`observed-throughput side failed: ${run.stderr}`);
  const { ms, rssKb, code } = JSON.parse(last) as { ms: number; rssKb: number; code?: number };
  return { ms, peakMb: rssKb / 1024, out: `${code ?? ''}` };
}

const MEASURE = (body: string): string => `
const file = process.argv[1];
const t = performance.now();
${body}
console.log(JSON.stringify({ ms: performance.now() - t, rssKb: process.resourceUsage().maxRSS, code }));`;

/**
 * Runs the row.
 *
 * @param root - the project root (the built command is in `dist/`)
 * @param pairs - measured pairs
 * @param spans - spans in the file (1M)
 */
export async function observedThroughput(root: string, pairs: number, spans = 1_000_000): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-audit-bench-observed-'));
  try {
    const file = join(dir, 'traces.jsonl');
    await writeSpans(file, spans);
    const megabytes = statSync(file).size / 1024 / 1024;
    const observed = MEASURE(`
const { observedCommand } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist/cli/observed.js')).href)});
let out = '';
const code = await observedCommand([file, '--format', 'json'], { stdout: { write: (s) => (out += s) }, stderr: { write: () => {} } }, '/');
if (JSON.parse(out).summary.calls !== ${spans / SPANS_PER_TRACE}) throw new Error('observed counted the wrong calls');`);
    const floor = MEASURE(`
const { createInterface } = await import('node:readline');
const { createReadStream } = await import('node:fs');
let code = 0;
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line !== '') JSON.parse(line);`);
    const measured: number[] = [];
    const baseline: number[] = [];
    let peakMb = 0;
    let floorMb = 0;
    for (let i = 0; i < pairs; i += 1) {
      const first = i % 2 === 0;
      const a = first ? side(observed, file) : side(floor, file);
      const b = first ? side(floor, file) : side(observed, file);
      const [m, f] = first ? [a, b] : [b, a];
      measured.push((m.ms * 1000) / spans);
      baseline.push((f.ms * 1000) / spans);
      peakMb = Math.max(peakMb, m.peakMb);
      floorMb = Math.max(floorMb, f.peakMb);
    }
    const median = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const ratios = measured.map((m, i) => m / baseline[i]!).sort((x, y) => x - y);
    const value = median(measured);
    return {
      name: 'observed-throughput',
      value: round(value),
      unit: 'µs/span',
      baseline: round(median(baseline)),
      ratio: round(median(ratios), 3),
      spread: [round(ratios[0]!, 3), round(ratios.at(-1)!, 3)],
      pairs,
      target: `peak RSS ≤ ${PEAK_MB} MB`,
      met: peakMb <= PEAK_MB,
      note:
        `gate-audit observed on ${spans.toLocaleString('en')} spans (${round(megabytes, 3)} MB of OTLP JSON, ${SPANS_PER_LINE} spans a line): ` +
        `${Math.round(1e6 / value).toLocaleString('en')} spans/s, peak RSS ${round(peakMb, 3)} MB; ` +
        `baseline: reading the same lines and JSON.parse of each, nothing else (peak RSS ${round(floorMb, 3)} MB; each side in its own process)`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
