/**
 * Bench row `shell-decision`: one 200-character bash command line judged against 100 rules with `shell`
 * conditions (parsed into parts, each part judged), against the same line judged by 100 regex-only rules
 * (`matches` on `command`). Measured in CPU time of the process (`process.cpuUsage`), median per decision;
 * the target is absolute: at most 150 µs per decision.
 */
import { type Gate, type PolicyInput, policyGate, type ToolCallRequest } from '../dist/index.js';
import { alternate, median, quantile, type Row, round } from './stats.js';

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

const request: ToolCallRequest = {
  toolUseId: 'u',
  toolName: 'bash',
  input: { mode: 'execute', command: COMMAND },
  agentId: 'bench',
  agentName: 'bench',
  path: ['bench'],
  paths: [['bench']],
  toolKind: 'function',
};

/** CPU microseconds per decision over a batch. */
function cpuBatch(gate: Gate, calls: number): () => number {
  return () => {
    const started = process.cpuUsage();
    for (let i = 0; i < calls; i += 1) void gate.decide(request);
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
  const shell = policyGate({ version: 1, default: 'allow', rules: shellRules() });
  const regex = policyGate({ version: 1, default: 'allow', rules: regexRules() });
  for (const gate of [shell, regex]) {
    const decision = gate.decide(request) as { verdict: string };
    if (decision.verdict !== 'allow') throw new Error(`the bench line should be allowed, got ${decision.verdict}`);
  }
  const samples = await alternate(pairs, 5, cpuBatch(shell, 200), cpuBatch(regex, 200));
  const ratios = samples.measured.map((m, i) => m / (samples.baseline[i] ?? m));
  const value = round(median(samples.measured), 1);
  return {
    name: 'shell-decision',
    value,
    unit: 'µs CPU/decision',
    baseline: round(median(samples.baseline), 1),
    ratio: round(median(ratios), 2),
    spread: [round(quantile(ratios, 0.25), 2), round(quantile(ratios, 0.75), 2)],
    pairs: samples.measured.length,
    target: 'median ≤ 150 µs CPU',
    met: value <= 150,
    note: `a ${COMMAND.length}-character command against 100 shell rules (parsed and judged per part) vs 100 regex-only rules`,
  };
}
