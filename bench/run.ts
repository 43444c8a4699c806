/**
 * `npm run bench`: gate-audit against its baselines, each ratio measured in this one process (the CLI cold
 * start in alternating child processes), alternating the two sides pair by pair. In-process rows are timed in
 * wall-clock time and in CPU time of the process (`process.cpuUsage`); their targets apply to the CPU ratio,
 * which a loaded machine does not inflate. Prints a table and writes `bench/results.json`. Measures the built
 * library (`dist/`), as users run it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, BeforeToolCallEvent, tool } from '@strands-agents/sdk';
import { CedarAuthorization } from '@strands-agents/sdk/vended-interventions/cedar';
import { z } from 'zod';
import {
  allowAll,
  audit,
  type DecisionLog,
  type Gate,
  install,
  installMultiagent,
  openDecisionLog,
  policyGate,
  type ToolCallRequest,
} from '../dist/index.js';
import { call, ScriptedModel, say } from '../fixtures/support/scripted-model.js';
import {
  alternate,
  type Pairs,
  type Row,
  round,
  row as makeRow,
  settle,
  type Timed,
  timed,
  timedSync,
} from './stats.js';
import { otelOverhead } from './otel-overhead.js';
import { fleetLogAppend } from './fleet-log.js';
import { fleetLogThroughput, fleetLogVsFile } from './fleet-log-rows.js';
import { guardOverhead } from './guard-overhead.js';
import { langGraphOverhead } from './langgraph-overhead.js';
import { observedThroughput } from './observed-throughput.js';
import { shellDecision, shellDecisionLong, shellDecisionP99 } from './shell-decision.js';
import { buildTree } from './trees.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.env.BENCH_QUICK === '1';
const scale = (n: number): number => (quick ? Math.max(3, Math.ceil(n / 5)) : n);
const rows: Row[] = [];
const say_ = (text: string): void => void process.stderr.write(`${text}\n`);

// ---------------------------------------------------------------------------------------------------------
// 1. Tool-call overhead through a real Agent loop.

const noop = tool({
  name: 'noop',
  description: 'does nothing',
  inputSchema: z.object({ i: z.number() }),
  callback: () => 'ok',
});

/** An agent whose scripted model makes `calls` tool calls, one per turn, then answers. */
function loopAgent(calls: number): Agent {
  const turns = [...Array.from({ length: calls }, (_, i) => call('noop', { i })), say('done')];
  return new Agent({ id: 'bench', model: new ScriptedModel(turns), tools: [noop], printer: false });
}

/**
 * Times the invocations of 5 freshly built agents, per tool call (building and gating them is outside the
 * timing). Five invocations per sample keep the per-pair spread small enough to read a few percent.
 */
async function timeLoop(calls: number, gate?: () => Gate): Promise<Timed> {
  const agents = Array.from({ length: 5 }, () => {
    const agent = loopAgent(calls);
    if (gate !== undefined) install(agent, { gate: gate() });
    return agent;
  });
  settle();
  return timed(async () => {
    for (const agent of agents) await agent.invoke('go');
  }, calls * agents.length);
}

/** A timing in milliseconds per operation, in microseconds. */
const micro = (t: Timed): Timed => ({ wall: t.wall * 1000, cpu: t.cpu * 1000, thread: t.thread * 1000 });

async function toolCallOverhead(): Promise<void> {
  const calls = 20;
  const samples = await alternate(
    scale(40),
    6,
    () => timeLoop(calls, allowAll),
    () => timeLoop(calls),
  );
  rows.push(
    row(
      'tool-call-overhead',
      'ms/call',
      samples,
      `${calls} tool calls per invoke: gated (allow-all) vs the same agent bare (own work alone: npm run bench:own)`,
      1.1,
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// 2. Decision cost: policyGate with 100 rules vs CedarAuthorization with the same policy.

async function decisionVsCedar(): Promise<void> {
  const rules = Array.from({ length: 100 }, (_, i) => ({
    id: `r${i}`,
    tools: [`tool_${i}`],
    when: [{ arg: 'path', startsWith: '/tmp/' }],
    verdict: 'allow' as const,
  }));
  const gate = policyGate({ version: 1, default: 'deny', rules });
  const cedarText = Array.from(
    { length: 100 },
    (_, i) => `permit(principal, action == Action::"tool_${i}", resource) when { context.input.path like "/tmp/*" };`,
  ).join('\n');
  const cedar = new CedarAuthorization({ policies: cedarText });
  const agent = new Agent({ id: 'cedar', model: new ScriptedModel([say('x')]), printer: false });
  // Cedar parses its policy text on every call (about 3.6 ms here), so a batch is 200 calls.
  const calls = Array.from({ length: 200 }, (_, k) => {
    const tool = `tool_${(k * 37) % 110}`; // 10% of the names match no rule
    const path = k % 3 === 0 ? `/etc/f${k}` : `/tmp/f${k}`;
    const request: ToolCallRequest = {
      toolUseId: `u${k}`,
      toolName: tool,
      input: { path },
      agentId: 'cedar',
      agentName: 'cedar',
      path: ['cedar'],
      paths: [['cedar']],
      toolKind: 'function',
    };
    const event = new BeforeToolCallEvent({
      agent,
      toolUse: { name: tool, toolUseId: `u${k}`, input: { path } },
      tool: undefined,
      invocationState: {},
    });
    return { request, event };
  });
  // Both engines must agree on every call, or the comparison is meaningless.
  for (const { request, event } of calls) {
    const ours = (gate.decide(request) as { verdict: string }).verdict;
    const theirs = (cedar.beforeToolCall(event) as { type: string }).type === 'proceed' ? 'allow' : 'deny';
    if (ours !== theirs)
      throw new Error(`the policies disagree on ${request.toolName} ${JSON.stringify(request.input)}`);
  }
  const batch = (decide: (i: number) => unknown) => (): Timed =>
    micro(
      timedSync(() => {
        for (let i = 0; i < calls.length; i++) decide(i);
      }, calls.length),
    );
  const samples = await alternate(
    scale(15),
    3,
    batch((i) => gate.decide(calls[i]!.request)),
    batch((i) => cedar.beforeToolCall(calls[i]!.event)),
  );
  rows.push(
    row(
      'decision-vs-cedar',
      'µs/decision',
      samples,
      'policyGate (100 rules) vs CedarAuthorization (100 permits), same 200 calls',
      0.25,
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// 3. Install and audit at scale.

function installAndAudit(): void {
  const install1k: Timed[] = [];
  const install10k: Timed[] = [];
  const audit1k: Timed[] = [];
  const audit10k: Timed[] = [];
  const pairs = scale(8);
  for (let i = 0; i < pairs + 1; i++) {
    const sizes = i % 2 === 0 ? [1000, 10_000] : [10_000, 1000];
    for (const size of sizes) {
      const tree = buildTree(size);
      settle();
      let handles: unknown[] = [];
      const installMs = timedSync(() => {
        handles = installMultiagent(tree, { gate: allowAll() });
      });
      if (handles.length !== size) throw new Error(`expected ${size} agents gated, got ${handles.length}`);
      settle();
      let coverage = 0;
      const auditMs = timedSync(() => {
        coverage = audit(tree).summary.coverage;
      });
      if (coverage !== 1) throw new Error('the generated tree is not fully gated');
      if (i === 0) continue; // warm-up
      (size === 1000 ? install1k : install10k).push(installMs);
      (size === 1000 ? audit1k : audit10k).push(auditMs);
    }
  }
  const installRow = row(
    'install-growth-10k-vs-1k',
    'ms',
    { measured: install10k, baseline: install1k },
    'installMultiagent on 10,000 vs 1,000 agents (nested Graphs and Swarms, agents as tools)',
    12,
  );
  // The absolute bound is on wall-clock time: what a user waits for.
  const under = installRow.value < 500;
  rows.push({ ...installRow, target: 'ratio ≤ 12 and 10k < 500 ms', met: installRow.met === true && under });
  rows.push(
    row(
      'audit-growth-10k-vs-1k',
      'ms',
      { measured: audit10k, baseline: audit1k },
      'audit() of the same trees after install',
      12,
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// 4. CLI cold start: the command vs a bare script loading the same fixture with the same loader.

function timeProcess(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NODE_NO_WARNINGS: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  }
  return ms;
}

async function cliColdStart(fixture: string, name: string, target?: number): Promise<void> {
  const samples = await alternate(
    scale(20),
    3,
    () => timeProcess(['bin/gate-audit.js', fixture, '--format', 'json']),
    () => timeProcess(['bench/floor.mjs', fixture]),
  );
  rows.push(
    row(
      name,
      'ms',
      samples,
      `gate-audit ${fixture} --format json vs node bench/floor.mjs (jiti import of the same module)`,
      target,
    ),
  );
}

/**
 * `--entry` on the runner app vs the module audit of the same app (its graph module, the factory called).
 * The runner's entry exits as soon as its invocation is stopped, so no settle wait is in the measured side.
 */
async function entryAudit(): Promise<void> {
  const samples = await alternate(
    scale(20),
    3,
    () => timeProcess(['bin/gate-audit.js', '--entry', 'fixtures/apps/runner/src/main.ts', '--format', 'json']),
    () =>
      timeProcess([
        'bin/gate-audit.js',
        '--export',
        'buildGraph',
        'fixtures/apps/runner/src/graph.ts',
        '--format',
        'json',
      ]),
  );
  rows.push(
    row(
      'entry-audit',
      'ms',
      samples,
      'gate-audit --entry fixtures/apps/runner/src/main.ts vs gate-audit --export buildGraph fixtures/apps/runner/src/graph.ts (no settle wait: the entry exits)',
      1.5,
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// 5. Decision log on vs off.

async function decisionLog(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-audit-bench-'));
  const policy = { version: 1 as const, rules: [{ id: 'noop-ok', tools: ['noop'], verdict: 'allow' as const }] };
  const calls = 20;
  let n = 0;
  try {
    const loop = await alternate(
      scale(40),
      6,
      async () => {
        // Each gated agent gets its own log file (and lock), closed after the sample.
        const logs: DecisionLog[] = [];
        try {
          return await timeLoop(calls, () => {
            const log = openDecisionLog(join(dir, `log-${n++}.jsonl`));
            logs.push(log);
            return policyGate(policy, { log });
          });
        } finally {
          for (const log of logs) log.close();
        }
      },
      () => timeLoop(calls, () => policyGate(policy)),
    );
    rows.push(
      row(
        'decision-log',
        'ms/call',
        loop,
        `${calls} tool calls per invoke under policyGate: hash-chained decision log to a file vs no log`,
        1.1,
      ),
    );
    // The log's own cost, without the agent loop around it: one decision and its record.
    const request: ToolCallRequest = {
      toolUseId: 'u',
      toolName: 'noop',
      input: { i: 1 },
      agentId: 'bench',
      agentName: 'bench',
      path: ['bench'],
      paths: [['bench']],
      toolKind: 'function',
    };
    const logged = policyGate(policy, { log: { destination: join(dir, 'raw.jsonl') } });
    const bare = policyGate(policy);
    const batch = (gate: Gate) => (): Timed =>
      micro(
        timedSync(() => {
          for (let i = 0; i < 2000; i++) {
            void gate.decide(request);
            void gate.record?.({
              event: 'allow',
              verdict: 'allow',
              toolName: 'noop',
              toolUseId: `u${i}`,
              path: ['bench'],
              input: request.input,
            });
          }
        }, 2000),
      );
    const raw = await alternate(scale(30), 3, batch(logged), batch(bare));
    rows.push(
      row(
        'decision-log-per-decision',
        'µs/decision',
        raw,
        'decide + record with the log vs decide alone, no agent loop (no target)',
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------

function row(name: string, unit: string, samples: Pairs, note: string, max?: number): Row {
  return makeRow(name, unit, samples, note, max === undefined ? undefined : { max });
}

function table(machine: string): string {
  const header = [
    'name',
    'unit',
    'wall value',
    'wall baseline',
    'wall ratio (p25–p75)',
    'CPU value',
    'CPU baseline',
    'CPU ratio (p25–p75)',
    'main-thread CPU ratio (p25–p75)',
    'target',
    'met',
  ];
  const lines = rows.map((r) => [
    r.name,
    r.unit,
    String(r.value),
    String(r.baseline),
    `${r.ratio} (${r.spread[0]}–${r.spread[1]})`,
    r.cpu === undefined ? '' : String(r.cpu.value),
    r.cpu === undefined ? '' : String(r.cpu.baseline),
    r.cpu === undefined ? '' : `${r.cpu.ratio} (${r.cpu.spread[0]}–${r.cpu.spread[1]})`,
    r.thread === undefined
      ? ''
      : `${r.thread.value}/${r.thread.baseline}: ${r.thread.ratio} (${r.thread.spread[0]}–${r.thread.spread[1]})`,
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
  ]);
  const md = [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
  return `${machine}\n\n${md}\n`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const machine =
    `nproc ${cpus().length}, ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}` +
    `${(globalThis as { gc?: unknown }).gc === undefined ? '' : ', --expose-gc'}${quick ? ', BENCH_QUICK=1' : ''}`;
  say_(`gate-audit bench on ${machine}`);
  const steps: [string, () => Promise<void>][] = [
    ['tool-call-overhead', toolCallOverhead],
    ['decision-vs-cedar', decisionVsCedar],
    ['install and audit at scale', () => Promise.resolve(installAndAudit())],
    ['cli cold start', () => cliColdStart('fixtures/graphs/gated-app.ts', 'cli-cold-start', 1.3)],
    [
      'cli cold start (plain SDK module)',
      () => cliColdStart('fixtures/graphs/research-graph.ts', 'cli-cold-start-plain-sdk'),
    ],
    ['entry-audit', entryAudit],
    ['decision log', decisionLog],
    ['shell-decision', async () => void rows.push(await shellDecision(scale(30)))],
    ['shell-decision-p99', () => Promise.resolve(void rows.push(shellDecisionP99(scale(5000))))],
    ['shell-decision-10kb', async () => void rows.push(await shellDecisionLong(scale(10)))],
    ['otel-overhead', async () => void rows.push(await otelOverhead(scale(40)))],
    ['fleet-log-append', async () => void rows.push(await fleetLogAppend(scale(10)))],
    ['fleet-log-throughput', async () => void rows.push(await fleetLogThroughput(root))],
    ['fleet-log-vs-file', async () => void rows.push(await fleetLogVsFile(scale(10)))],
    ['observed-throughput', async () => void rows.push(await observedThroughput(root, 1, quick ? 200_000 : 1_000_000))],
    ['guard-overhead', () => Promise.resolve(void rows.push(guardOverhead(root, scale(10))))],
    ['langgraph-tool-call-overhead', async () => void rows.push(await langGraphOverhead(scale(30)))],
  ];
  // BENCH_ONLY=<step,…> runs those steps alone and prints their rows without rewriting bench/results.json.
  const only = process.env.BENCH_ONLY?.split(',');
  for (const [name, step] of steps.filter(([n]) => only === undefined || only.includes(n))) {
    const t = performance.now();
    await step();
    say_(`  ${name}: ${round((performance.now() - t) / 1000, 3)} s`);
  }
  if (only === undefined) writeFileSync(join(root, 'bench/results.json'), `${JSON.stringify(rows, null, 2)}\n`);
  process.stdout.write(table(machine));
  say_(
    `${only === undefined ? 'wrote bench/results.json' : 'ran'} in ${round((performance.now() - started) / 1000, 3)} s`,
  );
}

await main();
