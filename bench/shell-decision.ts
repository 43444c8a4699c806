/**
 * Bench row `shell-decision`: one 200-character bash command line judged against 100 rules with `shell`
 * conditions (parsed into parts, each part judged), against the same line judged by 100 regex-only rules
 * (`matches` on `command`). Measured in CPU time of the process (`process.cpuUsage`), median per decision;
 * the target is absolute: at most 150 µs per decision. Cold cache: each call judges another text (a number in
 * the line changes), so no cache keyed by the text can answer. Two more rows: `shell-decision-p99`, the 99th
 * percentile of single decisions (wall time, reported only), and `shell-decision-10kb`, a 10 KB line (at most
 * 3 ms).
 */
import { type Gate, type PolicyInput, policyGate, type ToolCallRequest } from '../dist/index.js';
import { alternate, median, quantile, type Row, round, settleYoung } from './stats.js';

/** A 200-character line: a pipeline, a list, a substitution, quoting and a redirection. */
export const COMMAND =
  'git log --oneline -n 20 --author="dev@example.com" -- src/policy/compile.ts | grep -v "^fixup" | head -n 5 && ' +
  'echo "checked $(date +%F) in $(pwd)" > /dev/null; ls -la src/policy/shell | wc -l';

const PROGRAMS = [
  'rm',
  'git',
  'curl',
  'wget',
  'chmod',
  'chown',
  'dd',
  'mkfs',
  'sed',
  'tee',
  'cp',
  'mv',
  'find',
  'xargs',
];

function shellRules(): PolicyInput['rules'] {
  return Array.from({ length: 100 }, (_, i) => {
    const program = PROGRAMS[i % PROGRAMS.length] ?? 'rm';
    const shapes = [
      { program: [program], anyFlag: ['-r', '-R', '--recursive'], args: { matches: `^/(etc|boot|srv${i})` } },
      { program: [program], args: { first: `^(reset|push|clean|sub${i})$` }, anyFlag: ['--hard', '--force', '-f'] },
      { program: [program], writesTo: { path: { under: [`/etc/${i}`], cwd: '/work' } } },
      { program: [program], args: { path: { under: [`/var/lib/${i}`], cwd: '/work' } } },
    ];
    return {
      id: `r${i}`,
      tools: ['bash'],
      when: [{ arg: 'command', shell: shapes[i % shapes.length] }],
      verdict: i % 3 === 0 ? ('ask' as const) : ('deny' as const),
    };
  });
}

function regexRules(): PolicyInput['rules'] {
  return Array.from({ length: 100 }, (_, i) => ({
    id: `x${i}`,
    tools: ['bash'],
    when: [
      {
        arg: 'command',
        matches: `(^|[;&|]\\s*)${PROGRAMS[i % PROGRAMS.length] ?? 'rm'}\\s+-[a-zA-Z]*r[a-zA-Z]*\\s+/(etc|srv${i})`,
      },
    ],
    verdict: i % 3 === 0 ? ('ask' as const) : ('deny' as const),
  }));
}

function requestOf(command: string): ToolCallRequest {
  return {
    toolUseId: 'u',
    toolName: 'bash',
    input: { mode: 'execute', command },
    agentId: 'bench',
    agentName: 'bench',
    path: ['bench'],
    paths: [['bench']],
    toolKind: 'function',
  };
}

/** The bench's line, each time with another number in it (`head -n N`): a different text per call. */
function variants(command: string, count: number): ToolCallRequest[] {
  return Array.from({ length: count }, (_, i) => requestOf(command.replace('head -n 5', `head -n ${5 + i}`)));
}

const requests = variants(COMMAND, 4096);

/** A line of about 10 KB: the bench's line repeated, joined by `;`. */
export const LONG_COMMAND = Array.from({ length: Math.ceil(10_240 / (COMMAND.length + 2)) }, () => COMMAND).join('; ');

/** CPU microseconds per decision over a batch. */
function cpuBatch(gate: Gate, calls: number, from: readonly ToolCallRequest[] = requests): () => number {
  let next = 0;
  return () => {
    const started = process.cpuUsage();
    for (let i = 0; i < calls; i += 1) {
      void gate.decide(from[next % from.length] as ToolCallRequest);
      next += 1;
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / calls;
  };
}

/**
 * Measures the row.
 *
 * @param pairs - how many pairs to keep
 */
export async function shellDecision(pairs: number): Promise<Row> {
  // Batches long enough (about 50 ms) that the collector's work between sides is a small part of each, and a
  // young-generation collection between sides (a full one flushes compiled code: see settleYoung).
  return decisionRow(pairs, {
    name: 'shell-decision',
    requests,
    warmup: 5,
    batch: 2000,
    bound: 150,
    digits: 1,
    note: `a ${COMMAND.length}-character command against 100 shell rules (parsed and judged per part) vs 100 regex-only rules`,
  });
}

/** What a pair row of decisions measures: its requests, batches, bound (µs CPU) and note. */
interface DecisionRowSpec {
  readonly name: string;
  readonly requests: readonly ToolCallRequest[];
  readonly warmup: number;
  readonly batch: number;
  readonly bound: number;
  readonly digits: number;
  readonly note: string;
}

/** The 100 shell rules against the 100 regex-only rules on the same requests, median CPU per decision. */
async function decisionRow(pairs: number, spec: DecisionRowSpec): Promise<Row> {
  const shell = policyGate({ version: 1, default: 'allow', rules: shellRules() });
  const regex = policyGate({ version: 1, default: 'allow', rules: regexRules() });
  for (const gate of [shell, regex]) {
    const decision = gate.decide(spec.requests[0] as ToolCallRequest) as { verdict: string };
    if (decision.verdict !== 'allow')
      throw new Error(`the ${spec.name} line should be allowed, got ${decision.verdict}`);
  }
  const samples = await alternate(
    pairs,
    spec.warmup,
    cpuBatch(shell, spec.batch, spec.requests),
    cpuBatch(regex, spec.batch, spec.requests),
    settleYoung,
  );
  const ratios = samples.measured.map((m, i) => m / (samples.baseline[i] ?? m));
  const value = round(median(samples.measured), spec.digits);
  return {
    name: spec.name,
    value,
    unit: 'µs CPU/decision',
    baseline: round(median(samples.baseline), 1),
    ratio: round(median(ratios), 2),
    spread: [round(quantile(ratios, 0.25), 2), round(quantile(ratios, 0.75), 2)],
    pairs: samples.measured.length,
    target: `median ≤ ${spec.bound} µs CPU`,
    met: value <= spec.bound,
    note: spec.note,
  };
}

/**
 * The 99th percentile of single decisions on the bench's line (wall time per call, so one slow call shows),
 * against the regex-only gate's 99th percentile; reported only.
 *
 * @param calls - how many single decisions to time on each side
 */
export function shellDecisionP99(calls: number): Row {
  const shell = policyGate({ version: 1, default: 'allow', rules: shellRules() });
  const regex = policyGate({ version: 1, default: 'allow', rules: regexRules() });
  const timed = (gate: Gate, request: ToolCallRequest): number => {
    const started = process.hrtime.bigint();
    void gate.decide(request);
    return Number(process.hrtime.bigint() - started) / 1000;
  };
  for (let i = 0; i < 500; i += 1)
    for (const gate of [shell, regex]) timed(gate, requests[i % requests.length] as ToolCallRequest);
  const measured: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const request = requests[i % requests.length] as ToolCallRequest;
    measured.push(timed(shell, request));
    baseline.push(timed(regex, request));
  }
  const p99 = quantile(measured, 0.99);
  const base = quantile(baseline, 0.99);
  return {
    name: 'shell-decision-p99',
    value: round(p99, 1),
    unit: 'µs wall/decision (p99)',
    baseline: round(base, 1),
    ratio: round(p99 / base, 2),
    spread: [
      round(quantile(measured, 0.95) / quantile(baseline, 0.95), 2),
      round(quantile(measured, 0.999) / quantile(baseline, 0.999), 2),
    ],
    pairs: calls,
    target: 'reported only',
    note: `99th percentile of ${calls} single decisions of the shell-decision line, each side (spread: the ratios at p95 and p99.9)`,
  };
}

/**
 * A 10 KB line judged against the same 100 shell rules, median CPU per decision; target at most 3 ms.
 *
 * @param pairs - how many pairs to keep
 */
export async function shellDecisionLong(pairs: number): Promise<Row> {
  return decisionRow(pairs, {
    name: 'shell-decision-10kb',
    requests: variants(LONG_COMMAND, 64),
    warmup: 3,
    batch: 50,
    bound: 3000,
    digits: 0,
    note: `a ${LONG_COMMAND.length}-character line (the shell-decision line repeated) against 100 shell rules vs 100 regex-only rules`,
  });
}
