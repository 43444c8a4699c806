/**
 * The audit, `gate-audit [module...]`: the default command. Parse arguments and the configuration → load modules
 * once → audit → every report → exit code. Exit codes: 0 every node gated, 1 a coverage finding, 2 usage,
 * config or load error.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { REPORTER_FORMATS } from '../../config.js';
import { LANGGRAPH_TESTED, installedVersion } from '../../frameworks/langgraph/version.js';
import { inTestedRange } from '../../frameworks/versions.js';
import { SDK_PACKAGE, strandsSdkInstalled } from '../../frameworks/strands/sdk-package.js';
import { testedRange } from '../../frameworks/strands/sdk-version.js';
import type * as SdkCheckModule from '../../frameworks/strands/sdk-check.js';
import { GateAuditError, missingPackageOf } from '../../errors.js';
import { notesSummary } from '../../report/render/notes.js';
import { visible } from '../../escape.js';
import type { renderCoverageTui } from '../../tui/index.js';
import { collect, msArg, percentArg, shardArg } from '../args.js';
import { commandOutput } from '../command-output.js';
import { findConfig, type LoadedConfig, loadConfig } from '../config.js';
import { failed, printError } from '../failure.js';
import { readConfigSupervised } from '../load-supervised.js';
import {
  Inputs,
  isReporterFormat,
  type ReporterSpec,
  refuseOverwrites,
  renderReport,
  writeReport,
} from '../outputs.js';
import { parseReporter, reporterOf, reportersOf } from '../reporters.js';
import { type RunOutcome, type RunSettings, runAudit } from '../run.js';
import type { Pattern } from '../select.js';
import { gateAuditVersion } from '../../report/own-version.js';
import { watchRuns } from '../watch.js';
import type { CliStreams, CommandShell } from './command.js';
import { SUBCOMMANDS } from './index.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_ENTRY_SETTLE_MS = 2_000;

interface Options {
  config?: string;
  export?: string;
  format?: (typeof REPORTER_FORMATS)[number];
  outputFile?: string;
  reporter?: { format: (typeof REPORTER_FORMATS)[number]; outputFile?: string }[];
  minCoverage?: number;
  exitZero?: boolean;
  plan?: boolean;
  timeout?: number;
  debug?: boolean;
  ignore?: string[];
  errorOnUnmatchedPattern: boolean;
  callFactories?: boolean;
  failOnUnaudited?: boolean;
  requireGate?: string;
  quiet?: boolean;
  watch?: boolean;
  requireTestedSdk?: boolean;
  shard?: { index: number; count: number };
  entry?: string[];
  entryArgs?: string[];
  entrySettle?: number;
  requireProcessGuard?: boolean;
}

function program(streams: CliStreams, sdk: SdkCheck | undefined): Command {
  return new Command('gate-audit')
    .description(
      'Show which nodes of Strands Graph/Swarm orchestrators run under a policy gate; fail CI when any does not.',
    )
    .argument(
      '[module...]',
      "modules, folders or globs (a leading ! excludes) exporting a Graph, Swarm or Agent; default: the config's include",
    )
    .option('--config <file>', 'read this configuration instead of looking for gate-audit.config.* upwards')
    .option('--export <name>', 'audit only this export of each module (a function named here is called)')
    .option(
      '--call-factories',
      'call every exported zero-argument function and audit what it returns (off: only gatedFactory ones)',
    )
    .addOption(
      new Option('--format <format>', 'one report: its format (default: tui on a terminal, text elsewhere)').choices(
        REPORTER_FORMATS,
      ),
    )
    .option('--output-file <path>', 'one report: write it to this file instead of stdout')
    .option(
      '--reporter <name[=file]>',
      'a report of this run, to stdout or a file (repeatable: one load, several reports)',
      collect(parseReporter),
    )
    .option(
      '--entry <file>',
      'run this entry point as the app runs and audit each tree it invokes (repeatable; the invocation is stopped, nothing runs)',
      collect(String),
    )
    .option(
      '--entry-args <args>',
      "the arguments an entry gets after its path (split on spaces; repeatable; default: the config's entryArgs)",
      collect((value: string) => value.split(/\s+/).filter((a) => a !== '')),
    )
    .option(
      '--entry-settle <ms>',
      `how long an entry run waits for another invocation after one (default ${DEFAULT_ENTRY_SETTLE_MS})`,
      msArg,
    )
    .option(
      '--require-process-guard',
      'with --entry: fail (exit 1) when an entry invokes an agent before the process guard stands (guardProcess, or config processGuard)',
    )
    .option('--ignore <glob>', 'leave out files that folders and globs reach (repeatable)', collect(String))
    .option('--no-error-on-unmatched-pattern', 'pass over a pattern that matches no module instead of exit 2')
    .option(
      '--min-coverage <pct>',
      'a ratchet: fail only when coverage of tool-running nodes is under this percent (0-100), or an orchestrator is not gated',
      percentArg,
    )
    .option('--require-gate <name>', 'fail when any gated node runs under a gate with another name')
    .option('--fail-on-unaudited', 'fail when an exported function was not called (what it builds was not audited)')
    .option('--no-fail-on-unaudited', "override the config's failOnUnaudited")
    .option('--exit-zero', 'report without failing on coverage findings')
    .option('--plan', 'audit what installMultiagent would leave, instead of the module as it stands')
    .option('--quiet', 'show only nodes that are not gated, and the summary')
    .option('--watch', 'audit again when a loaded module or anything it imports changes')
    .option(
      '--shard <i/n>',
      'audit only part i of n of the selected modules (by a hash of each path); join the parts with gate-audit merge',
      shardArg,
    )
    .option(
      '--timeout <ms>',
      `how long importing a module, or a factory call, may take; under --entry, the whole run of one entry (default ${DEFAULT_TIMEOUT_MS})`,
      msArg,
    )
    .option('--debug', "print stack traces of errors, the module's own first")
    .option(
      '--require-tested-sdk',
      'refuse (exit 2) when @strands-agents/sdk is outside the tested range, instead of warning and self-testing',
    )
    .version(versionText(sdk), '-v, --version', 'print the versions of gate-audit and the SDK, and the tested range')
    .addHelpText(
      'after',
      `\nCommands:\n${SUBCOMMANDS.flatMap((command) => command.help.map((line) => `${line}\n`)).join('')}` +
        '\nExit codes:\n' +
        '  0  clean: every node gated, attested or accepted (attested and accepted never fail)\n' +
        '  1  a node is ungated, ungateable or blocked, or an orchestrator is not gated; with --min-coverage the\n' +
        '     node condition is replaced by the ratio (gated + attested) / (tool-running nodes - accepted);\n' +
        '     also a tree the module refused at import, --require-gate and --fail-on-unaudited\n' +
        '  2  usage, config or load error (a module or entry that exited, crashed or hung while it loaded: also\n' +
        '     with --exit-zero, and over exit 1), or a run that audited nothing\n' +
        '  --exit-zero never fails on coverage',
    )
    .exitOverride()
    .configureOutput(commandOutput(streams, 'gate-audit'));
}

/** The reporters of the run: flags (`--reporter`, `--format`/`--output-file`) win over the config's. */
function auditReporters(options: Options, loaded: LoadedConfig, cwd: string, terminal: boolean): ReporterSpec[] {
  return reportersOf(options, {
    cwd,
    writes: isReporterFormat,
    refuse: (format) =>
      new GateAuditError('USAGE', `format=<${visible(format)}> | not a format | choose ${REPORTER_FORMATS.join(', ')}`),
    otherwise: () => {
      const fromConfig = (loaded.config.reporters ?? []).map((r) => reporterOf(r, loaded.dir));
      return fromConfig.length > 0 ? fromConfig : [terminal ? { format: 'tui', byDefault: true } : { format: 'text' }];
    },
  });
}

function settingsOf(
  options: Options,
  args: readonly string[],
  loaded: LoadedConfig,
  cwd: string,
  noise: (chunk: string) => void,
): RunSettings {
  const { config } = loaded;
  const fromArgs = args.length > 0;
  const entries =
    options.entry !== undefined
      ? options.entry.map((file) => resolve(cwd, file))
      : (config.entry ?? []).map((file) => resolve(loaded.dir, file));
  const patterns: Pattern[] = fromArgs
    ? args.map((pattern) => ({ pattern, base: cwd }))
    : options.entry !== undefined
      ? []
      : (config.include ?? []).map((pattern) => ({ pattern, base: loaded.dir }));
  for (const entry of entries) {
    if (!existsSync(entry) || statSync(entry).isDirectory()) {
      throw new GateAuditError(
        'USAGE',
        `entry=<${relative(cwd, entry) || entry}> | no such file | name the file your app starts from (its bin or start script)`,
      );
    }
  }
  if (options.requireProcessGuard === true && entries.length === 0) {
    throw new GateAuditError(
      'USAGE',
      'flag=<--require-process-guard> | only an entry run shows whether the app starts the process guard | add --entry <file> (or entry in the configuration)',
    );
  }
  if (patterns.length === 0 && entries.length === 0) {
    throw new GateAuditError(
      'USAGE',
      loaded.file === undefined
        ? "missing required argument 'module' | name the modules to audit, or write a config with include (gate-audit init)"
        : `config=<${loaded.shown ?? ''}>, field=<include> | no modules to audit | list them in include, or name them as arguments`,
    );
  }
  const minCoverage = options.minCoverage ?? config.minCoverage;
  const requireGate = options.requireGate ?? config.requireGate;
  const exportName = options.export;
  return {
    cwd,
    config: loaded,
    patterns,
    explicitFiles: fromArgs,
    ignore: [
      ...(config.exclude ?? []).map((pattern) => ({ pattern, base: loaded.dir })),
      ...(options.ignore ?? []).map((pattern) => ({ pattern, base: cwd })),
    ],
    errorOnUnmatched: options.errorOnUnmatchedPattern,
    ...(exportName === undefined ? {} : { exportName }),
    callFactories: options.callFactories === true,
    ...(minCoverage === undefined ? {} : { minCoverage }),
    exitZero: options.exitZero === true,
    ...(requireGate === undefined ? {} : { requireGate }),
    failOnUnaudited: options.failOnUnaudited ?? config.failOnUnaudited ?? false,
    timeoutMs: options.timeout ?? config.timeout ?? DEFAULT_TIMEOUT_MS,
    entries,
    entryArgs: options.entryArgs?.flat() ?? config.entryArgs ?? [],
    entrySettleMs: options.entrySettle ?? config.entrySettle ?? DEFAULT_ENTRY_SETTLE_MS,
    requireProcessGuard: options.requireProcessGuard === true,
    plan: options.plan === true,
    noise,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
  };
}

async function render(
  reporter: ReporterSpec,
  outcome: RunOutcome,
  quiet: boolean,
  streams: CliStreams,
): Promise<string> {
  return await renderReport(reporter.format, outcome.report, {
    version: gateAuditVersion(),
    exitRule: outcome.exitRule,
    quiet,
    sarif: outcome.sarif,
    warn: (line) => streams.stderr.write(`gate-audit: ${visible(line)}\n`),
  });
}

/** Where the reports of a run go, and whether the interactive view can be shown there. */
interface View {
  readonly streams: CliStreams;
  readonly cwd: string;
  readonly ci: boolean;
  readonly tty: boolean;
}

/** Writes every report of one run; returns the run's exit code. */
async function writeReports(
  outcome: RunOutcome,
  reporters: readonly ReporterSpec[],
  inputs: Inputs,
  options: Options,
  view: View,
): Promise<number> {
  const { streams } = view;
  refuseOverwrites(reporters, inputs, view.cwd);
  for (const line of outcome.messages) streams.stderr.write(`gate-audit: ${line}\n`);
  const rendered: { reporter: ReporterSpec; text: string }[] = [];
  for (const reporter of reporters) {
    rendered.push({
      reporter,
      text: reporter.format === 'tui' ? '' : await render(reporter, outcome, options.quiet === true, streams),
    });
  }
  const s = outcome.report.summary;
  for (const { reporter, text } of rendered) {
    if (reporter.file === undefined) continue;
    writeReport({ ...reporter, file: reporter.file }, text);
    streams.stderr.write(
      `gate-audit: wrote ${reporter.format} report to ${reporter.shown ?? reporter.file} (${s.gated}/${s.total} nodes gated)\n`,
    );
  }
  const toStdout = rendered.find((r) => r.reporter.file === undefined);
  const counted = notesSummary(outcome.report);
  if (counted !== '' && toStdout?.reporter.format !== 'text' && toStdout?.reporter.format !== 'markdown') {
    streams.stderr.write(`gate-audit: ${counted} (the text report lists them, with the fix)\n`);
  }
  if (toStdout === undefined) return outcome.exitCode;
  if (toStdout.reporter.format === 'tui') {
    if (view.tty && !view.ci && options.watch !== true) {
      const view = await loadView();
      if (typeof view !== 'string') {
        return await view.renderCoverageTui(outcome.report, {
          exitCode: outcome.exitCode,
          stdout: streams.stdout as NodeJS.WriteStream,
          stdin: streams.stdin as NodeJS.ReadStream,
        });
      }
      // ink and React are not runtime dependencies: without them a view asked for is a usage error, and the view
      // chosen by default becomes the text report (the exit code stays the run's).
      streams.stderr.write(
        `gate-audit: the interactive view needs ${view}, which is not installed | ${VIEW_INSTALL}\n`,
      );
      if (toStdout.reporter.byDefault !== true) return 2;
    } else {
      streams.stderr.write(
        `gate-audit: ${view.tty ? 'in CI or watching' : 'not a terminal'}, printing the text report\n`,
      );
    }
    streams.stdout.write(await render({ format: 'text' }, outcome, options.quiet === true, streams));
    return outcome.exitCode;
  }
  streams.stdout.write(toStdout.text);
  return outcome.exitCode;
}

/** What installs the interactive view's packages (they are development dependencies of gate-audit). */
const VIEW_INSTALL = 'npm i -D ink@^6 react@^19';

/**
 * The interactive view, loaded only when it is shown (so --help and the other formats never pay for React and
 * ink), or the name of its package that is not installed.
 */
async function loadView(): Promise<{ renderCoverageTui: typeof renderCoverageTui } | string> {
  try {
    return await import('../../tui/index.js');
  } catch (error) {
    const missing = missingPackageOf(error, ['ink', 'react']);
    if (missing === undefined) throw error;
    return missing;
  }
}

/**
 * Runs the audit.
 *
 * @param argv - every argument
 * @param shell - streams (stderr through the final pass), working directory, context
 * @returns the exit code
 */
export async function audit(argv: readonly string[], shell: CommandShell): Promise<number> {
  const { streams, cwd, context } = shell;
  let debug = argv.includes('--debug');
  const inputs = new Inputs();
  let reporters: ReporterSpec[] = [];
  try {
    // The Strands SDK check, when the SDK is installed (an optional peer: a LangGraph.js-only app has none).
    const sdk = strandsSdkInstalled() ? await import('../../frameworks/strands/sdk-check.js') : undefined;
    const command = program(streams, sdk);
    command.parse([...argv], { from: 'user' });
    const options = command.opts<Options>();
    debug = options.debug === true;
    if (options.shard !== undefined && options.watch === true) {
      throw new GateAuditError('USAGE', 'shard=<--shard> | --shard and --watch cannot be combined | drop one of them');
    }
    // Before any user module runs: an SDK gate-audit cannot read (or, with the flag, one it was not tested
    // on) is exit 2 here, with the same line `install` would throw.
    sdk?.ensureSdk({ requireTested: options.requireTestedSdk === true });
    for (const arg of command.args) {
      if (!arg.startsWith('!')) inputs.add(isAbsolute(arg) ? arg : resolve(cwd, arg), 'a module of this run');
    }
    if (options.config !== undefined) inputs.add(resolve(cwd, options.config), 'the configuration');
    const noise = (chunk: string): void => void streams.stderr.write(chunk);
    const ci =
      context.env?.CI !== undefined && context.env.CI !== '' && context.env.CI !== '0' && context.env.CI !== 'false';
    const tty = streams.stdout.isTTY === true && streams.stdin?.isTTY === true;
    const view: View = { streams, cwd, ci, tty };
    // The configuration, the reporters and the settings of one run (read again by each run of --watch).
    const prepare = async (into: Inputs, watched?: Set<string>): Promise<RunSettings> => {
      if (watched !== undefined) {
        // Watched before it is read, so fixing a configuration that fails to load runs again.
        try {
          const file = options.config === undefined ? findConfig(cwd)?.file : resolve(cwd, options.config);
          if (file !== undefined) watched.add(file);
        } catch {
          // Two configurations in one folder: the load below says so.
        }
      }
      const loaded = await loadConfig({
        cwd,
        ...(options.config === undefined ? {} : { file: options.config }),
        timeoutMs: options.timeout ?? DEFAULT_TIMEOUT_MS,
        noise,
        ...(context.inChild === true
          ? {}
          : {
              readModule: (file: string) =>
                readConfigSupervised(file, cwd, options.timeout ?? DEFAULT_TIMEOUT_MS, noise),
            }),
      });
      if (loaded.file !== undefined) {
        into.add(loaded.file, 'the configuration');
        watched?.add(loaded.file);
      }
      reporters = auditReporters(options, loaded, cwd, tty && !ci && options.watch !== true);
      return settingsOf(options, command.args, loaded, cwd, noise);
    };
    if (options.watch === true) {
      return await watchRuns({
        run: async (watched) => {
          const runInputs = new Inputs();
          const outcome = await runAudit(await prepare(runInputs, watched), runInputs, watched);
          return writeReports(outcome, reporters, runInputs, options, view);
        },
        report: (error) => printError(error, streams, debug),
        streams,
        ...(context.signal === undefined ? {} : { signal: context.signal }),
      });
    }
    const settings = await prepare(inputs);
    return await writeReports(await runAudit(settings, inputs), reporters, inputs, options, view);
  } catch (error) {
    return failed(error, { argv, streams, cwd, debug, inputs, reporters });
  }
}

/** The Strands SDK check (`frameworks/strands/sdk-check.ts`), loaded only when the SDK is installed. */
type SdkCheck = typeof SdkCheckModule;

/**
 * What `--version` prints: gate-audit's version, the Strands SDK it found and where (or that it is not installed)
 * and its tested range, then each LangGraph.js package found and whether it lies in its tested range.
 */
function versionText(sdk: SdkCheck | undefined): string {
  const lines = [`gate-audit ${gateAuditVersion()}`];
  if (sdk === undefined) lines.push(`${SDK_PACKAGE}: not installed`);
  else {
    const status = sdk.sdkStatus();
    const verdict = status.tested ? 'inside the tested range' : 'OUTSIDE the tested range';
    lines.push(`${SDK_PACKAGE} ${status.version} (${status.where}): ${verdict}`);
  }
  lines.push(`tested range: ${SDK_PACKAGE} ${testedRange()}`);
  for (const [name, range] of Object.entries(LANGGRAPH_TESTED)) {
    const version = installedVersion(name);
    if (version === undefined) continue;
    const verdict = inTestedRange(version, range) ? 'inside' : 'OUTSIDE';
    lines.push(`${name} ${version}: ${verdict} the tested range (>=${range.min} <=${range.max})`);
  }
  return lines.join('\n');
}
