/**
 * The `gate-audit` command: a thin shell. Parse arguments → load modules → audit → render → exit code.
 * `check-policy` and `verify-log` as the first argument dispatch to the policy subcommands.
 * Exit codes: 0 every node gated, 1 a coverage finding, 2 usage, config or load error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ensureSdk, sdkStatus } from '../enforce/sdk-check.js';
import { GateAuditError, messageOf } from '../errors.js';
import { audit, plan, summarize } from '../report/audit.js';
import { FORMAT_NAMES, isFormatName, RENDERERS } from '../report/render/index.js';
import { exitCodeOf, minCoverageProblem } from '../report/exit.js';
import { mergeGenerators } from '../report/generator.js';
import { type CoverageReport, SCHEMA_VERSION } from '../report/schema.js';
import { type FoundOrchestrator, loadModules } from './load.js';
import { checkPolicyCommand, verifyLogCommand } from './policy-commands.js';

/** Where the command writes. */
export interface CliStreams {
  readonly stdout: { write(chunk: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(chunk: string): unknown };
  /** The terminal's input, for the interactive view; without a TTY here the view is not used. */
  readonly stdin?: { readonly isTTY?: boolean };
}

/** What the command may read from its surroundings. */
export interface CliContext {
  readonly cwd?: string;
  /** The environment (for `CI`); no interactive view runs in CI. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const FORMATS = [...FORMAT_NAMES, 'tui'] as const;

interface Options {
  export?: string;
  format?: (typeof FORMATS)[number];
  outputFile?: string;
  minCoverage?: number;
  exitZero: boolean;
  plan: boolean;
  timeout: number;
  debug: boolean;
  requireTestedSdk: boolean;
}

/** gate-audit's own version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** What `--version` prints: gate-audit's version, the SDK it found and where, and the tested range. */
function versionText(): string {
  const sdk = sdkStatus();
  const verdict = sdk.tested ? 'inside the tested range' : 'OUTSIDE the tested range';
  return [
    `gate-audit ${version()}`,
    `@strands-agents/sdk ${sdk.version} (${sdk.where}): ${verdict}`,
    `tested range: @strands-agents/sdk ${sdk.range}`,
  ].join('\n');
}

function percentArg(value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  const problem = minCoverageProblem(n);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return n;
}

function msArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError('expected a positive whole number of milliseconds');
  return n;
}

function program(streams: CliStreams): Command {
  return new Command('gate-audit')
    .description(
      'Show which nodes of Strands Graph/Swarm orchestrators run under a policy gate; fail CI when any does not.',
    )
    .argument(
      '<module...>',
      'TypeScript or JavaScript modules (or globs) exporting a Graph, a Swarm, or a factory of one',
    )
    .option('--export <name>', 'audit only this export of each module')
    .addOption(
      new Option('--format <format>', 'output format (default: tui on a terminal, text elsewhere)').choices(FORMATS),
    )
    .option('--output-file <path>', 'write the report to a file instead of stdout')
    .option(
      '--min-coverage <pct>',
      'a ratchet: fail only when coverage of tool-running nodes is under this percent (0-100), or an orchestrator is not gated',
      percentArg,
    )
    .option('--exit-zero', 'report without failing on coverage findings', false)
    .option('--plan', 'audit what installMultiagent would leave, instead of the module as it stands', false)
    .option('--timeout <ms>', 'how long an exported factory may take', msArg, 30_000)
    .option('--debug', 'print stack traces of errors', false)
    .option(
      '--require-tested-sdk',
      'refuse (exit 2) when @strands-agents/sdk is outside the tested range, instead of warning and self-testing',
      false,
    )
    .version(versionText(), '-v, --version', 'print the versions of gate-audit and the SDK, and the tested range')
    .addHelpText(
      'after',
      '\nCommands:\n' +
        "  gate-audit check-policy <policy> <module...>  what a policy says about each agent's tools\n" +
        '  gate-audit verify-log <file>                  check a hash-chained decision log\n' +
        '\nExit codes: 0 clean · 2 usage, config or load error · 1 a node is ungated, ungateable or blocked, or an\n' +
        'orchestrator is not gated (attested and accepted never fail); with --min-coverage the node condition is\n' +
        'replaced by the ratio (gated + attested) / (tool-running nodes - accepted); --exit-zero never fails on coverage',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void streams.stdout.write(s),
      writeErr: (s) => void streams.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? `gate-audit: ${s.slice('error: '.length)}` : s),
    });
}

/** A nesting cycle is bad input, not a coverage finding: such an orchestrator cannot run at all. */
function refuseCycles(found: FoundOrchestrator, report: CoverageReport): void {
  const cycles = report.nodes.filter((n) => n.problem === 'cycle');
  const [first] = cycles;
  if (first === undefined) return;
  const more = cycles.length > 1 ? ` (and ${cycles.length - 1} more)` : '';
  throw new GateAuditError(
    'INVALID_ARGUMENT',
    `cannot audit "${found.module}#${found.exportName}": "${first.path.join(' › ')}" ${first.reason}${more} | ` +
      (first.fix ?? 'remove the nesting cycle'),
  );
}

function reportFor(found: FoundOrchestrator, planMode: boolean): CoverageReport {
  const report = planMode ? plan(found.orchestrator) : audit(found.orchestrator);
  refuseCycles(found, report);
  return {
    ...report,
    sources: [{ module: found.module, export: found.exportName, path: [report.root.id], factory: found.factory }],
  };
}

/** Combines several orchestrators' reports into one, each under a `module#export` path prefix. */
function combine(reports: readonly CoverageReport[], planMode: boolean): CoverageReport {
  if (reports.length === 1 && reports[0] !== undefined) return reports[0];
  const nodes: CoverageReport['nodes'] = [];
  const edges: CoverageReport['edges'] = [];
  const refusals: CoverageReport['refusals'] = [];
  const sources: CoverageReport['sources'] = [];
  for (const report of reports) {
    const source = report.sources[0];
    const label = source === undefined ? report.root.id : `${source.module}#${source.export}`;
    const under = (path: readonly string[]): string[] => [label, ...path];
    nodes.push(
      ...report.nodes.map((n) => ({ ...n, path: under(n.path), ...(n.sameAs ? { sameAs: under(n.sameAs) } : {}) })),
    );
    edges.push(...report.edges.map((e) => ({ ...e, from: under(e.from), to: under(e.to) })));
    refusals.push(...report.refusals.map((r) => ({ ...r, path: under(r.path) })));
    if (source !== undefined) sources.push({ ...source, path: [label] });
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    mode: planMode ? 'plan' : 'audit',
    root: { id: 'gate-audit', kind: 'bundle' },
    nodes,
    edges,
    summary: summarize(nodes),
    refusals,
    sources,
    generator: mergeGenerators(reports.map((r) => r.generator)),
  };
}

function exitCodeFor(report: CoverageReport, options: Options): number {
  return exitCodeOf(report, {
    exitZero: options.exitZero,
    ...(options.minCoverage === undefined ? {} : { minCoverage: options.minCoverage }),
  });
}

/**
 * Runs the command.
 *
 * @param argv - the arguments after the program name
 * @param streams - where to write results (stdout) and messages (stderr)
 * @param context - the working directory
 * @returns the exit code
 */
export async function main(argv: readonly string[], streams: CliStreams, context: CliContext = {}): Promise<number> {
  const cwd = context.cwd ?? process.cwd();
  const command = program(streams);
  let debug = argv.includes('--debug');
  try {
    if (argv[0] === 'check-policy') return await checkPolicyCommand(argv.slice(1), streams, cwd);
    if (argv[0] === 'verify-log') return verifyLogCommand(argv.slice(1), streams, cwd);
    command.parse([...argv], { from: 'user' });
    const options = command.opts<Options>();
    debug = options.debug;
    // Before any user module runs: an SDK gate-audit cannot read (or, with the flag, one it was not tested
    // on) is exit 2 here, with the same line `install` would throw.
    ensureSdk({ requireTested: options.requireTestedSdk });
    const found = await loadModules(command.args, {
      ...(options.export === undefined ? {} : { exportName: options.export }),
      timeoutMs: options.timeout,
      cwd,
      noise: (chunk) => void streams.stderr.write(chunk),
    });
    const report = combine(
      found.map((f) => reportFor(f, options.plan)),
      options.plan,
    );
    const exitCode = exitCodeFor(report, options);
    // A CI job may have a pseudo-terminal but nobody to press keys: never wait for input there.
    const ci =
      context.env?.CI !== undefined && context.env.CI !== '' && context.env.CI !== '0' && context.env.CI !== 'false';
    const tty = streams.stdout.isTTY === true && streams.stdin?.isTTY === true;
    const terminal = tty && options.outputFile === undefined && !ci;
    if ((options.format === undefined || options.format === 'tui') && terminal) {
      // Loaded only here, so --help and the other formats never pay for React and ink.
      const { renderCoverageTui } = await import('../tui/index.js');
      return await renderCoverageTui(report, {
        exitCode,
        stdout: streams.stdout as NodeJS.WriteStream,
        stdin: streams.stdin as NodeJS.ReadStream,
      });
    }
    if (options.format === 'tui') {
      streams.stderr.write(
        `gate-audit: ${tty ? 'in CI or writing a file' : 'not a terminal'}, printing the text report\n`,
      );
    }
    const name = options.format !== undefined && isFormatName(options.format) ? options.format : 'text';
    const output = RENDERERS[name](report, { version: version() });
    if (options.outputFile !== undefined) {
      writeFileSync(options.outputFile, output);
      const s = report.summary;
      streams.stderr.write(
        `gate-audit: wrote ${name} report to ${options.outputFile} (${s.gated}/${s.total} nodes gated)\n`,
      );
    } else {
      streams.stdout.write(output);
    }
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
        ? 0
        : 2;
    }
    const message = error instanceof GateAuditError ? error.message : `unexpected error: ${messageOf(error)}`;
    streams.stderr.write(`gate-audit: ${message}\n`);
    if (debug && error instanceof Error && error.stack !== undefined) streams.stderr.write(`${error.stack}\n`);
    return 2;
  }
}

/** Runs the command on this process's arguments and streams, then exits (a hung factory cannot keep it alive). */
export async function run(): Promise<void> {
  const streams = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const code = await main(process.argv.slice(2), streams, { env: process.env });
  process.stdout.write('', () => process.exit(code));
}
