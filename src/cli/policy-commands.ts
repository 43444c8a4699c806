/**
 * The policy subcommands: `gate-audit check-policy <policy> <module...>` shows what a policy says about
 * every agent's tools before anything runs; `gate-audit verify-log <file>` checks a chained decision log.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { checkPolicy } from '../policy/check-policy.js';
import type { StaticVerdict } from '../policy/compile.js';
import { verifyLog } from '../policy/decision-log.js';
import { loadCompiledPolicy } from '../policy/load.js';
import { loadModules } from './load.js';

/** Where a subcommand writes. */
export interface Streams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

function msArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError('expected a positive whole number of milliseconds');
  return n;
}

function subcommand(name: string, streams: Streams): Command {
  return new Command(`gate-audit ${name}`).exitOverride().configureOutput({
    writeOut: (s) => void streams.stdout.write(s),
    writeErr: (s) => void streams.stderr.write(s),
    outputError: (s, write) => write(s.startsWith('error:') ? `gate-audit ${name}: ${s.slice('error: '.length)}` : s),
  });
}

function describe(verdict: StaticVerdict): string {
  if (verdict.verdict !== 'depends') {
    return verdict.rule === 'default' ? 'default: no rule covers it' : `rule ${verdict.rule}`;
  }
  const conditional = verdict.conditional.map((c) => `${c.verdict} if ${c.rule} matches`).join(', ');
  const otherwise =
    verdict.rule === 'default'
      ? `${verdict.otherwise ?? '?'} (default)`
      : `${verdict.otherwise ?? '?'} (${verdict.rule})`;
  return `${conditional}, else ${otherwise}`;
}

/**
 * `gate-audit check-policy <policy> <module...>`.
 *
 * @returns the exit code: 0, or 2 for an invalid policy or a module that cannot be loaded
 */
export async function checkPolicyCommand(argv: readonly string[], streams: Streams, cwd: string): Promise<number> {
  const command = subcommand('check-policy', streams)
    .description('Show, per agent, each tool and the verdict the policy gives it before any input is known.')
    .argument('<policy>', 'the policy file (YAML or JSON)')
    .argument('<module...>', 'modules exporting a Graph, a Swarm, or a factory of one')
    .option('--export <name>', 'check only this export of each module')
    .option('--timeout <ms>', 'how long an exported factory may take', msArg, 30_000)
    .addHelpText('after', '\nExit codes: 0 checked · 2 invalid policy, usage or load error');
  command.parse([...argv], { from: 'user' });
  const [policyPath, ...modules] = command.args as [string, ...string[]];
  const options = command.opts<{ export?: string; timeout: number }>();
  const compiled = loadCompiledPolicy(resolve(cwd, policyPath));
  const found = await loadModules(modules, {
    ...(options.export === undefined ? {} : { exportName: options.export }),
    timeoutMs: options.timeout,
    cwd,
    noise: (chunk) => void streams.stderr.write(chunk),
  });
  const { policy } = compiled;
  const lines = [
    `gate-audit check-policy: ${policyPath} (${policy.rules.length} rule${policy.rules.length === 1 ? '' : 's'}, default ${policy.default})`,
  ];
  let atDefault = 0;
  for (const source of found) {
    lines.push('', `${source.module}#${source.exportName}`);
    for (const agent of checkPolicy(compiled, source.orchestrator)) {
      lines.push(`  ${agent.path.join(' › ')}`);
      if (agent.tools.length === 0) lines.push('    (no tools)');
      const width = Math.max(0, ...agent.tools.map((t) => t.tool.length));
      for (const tool of agent.tools) {
        if (tool.verdict !== 'depends' && tool.rule === 'default') atDefault += 1;
        lines.push(`    ${tool.tool.padEnd(width)}  ${tool.verdict.padEnd(7)}  ${describe(tool)}`);
      }
    }
  }
  lines.push(
    '',
    `${atDefault} tool${atDefault === 1 ? '' : 's'} fall${atDefault === 1 ? 's' : ''} to the default (${policy.default})`,
  );
  streams.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/**
 * `gate-audit verify-log <file>`.
 *
 * @returns the exit code: 0 the chain is intact, 1 a record is broken or missing, 2 the file cannot be read
 */
export function verifyLogCommand(argv: readonly string[], streams: Streams, cwd: string): number {
  const command = subcommand('verify-log', streams)
    .description('Check a hash-chained decision log: report the first broken or missing record.')
    .argument('<file>', 'the decision log (JSON lines)')
    .addHelpText(
      'after',
      '\nExit codes: 0 intact · 1 a record is broken or missing · 2 usage error or unreadable file',
    );
  command.parse([...argv], { from: 'user' });
  const [file] = command.args as [string];
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (error) {
    const why = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    streams.stderr.write(`gate-audit verify-log: cannot read "${file}" (${why}) | check the path\n`);
    return 2;
  }
  const result = verifyLog(text);
  if (result.ok) {
    streams.stdout.write(
      `gate-audit verify-log: ${file} OK, ${result.records} records, chain intact, last hash ${result.lastHash ?? '(none)'}\n`,
    );
    return 0;
  }
  streams.stdout.write(
    `gate-audit verify-log: ${file} BROKEN at line ${result.line}: the record ${result.problem} ` +
      `(${result.records} record${result.records === 1 ? '' : 's'} before it intact)\n`,
  );
  return 1;
}
