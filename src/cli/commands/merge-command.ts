/**
 * `gate-audit merge <report.json...>`: joins the JSON reports of several CI jobs, or of the shards of one
 * `--shard i/n` run, into one report in any format, and exits by the one exit rule. For a sharded run it also
 * runs the checks a single run makes and a shard cannot: that something was audited at all, and that every
 * `accept` entry of the configuration matched a node in some shard.
 * Exit codes: 0 every node gated, 1 a coverage finding, 2 a report that cannot be read or merged.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { REPORTER_FORMATS } from '../../config.js';
import { GateAuditError, messageOf } from '../../errors.js';
import { type ExitRule, judgeRun } from '../../report/exit.js';
import { gateAuditVersion } from '../../report/own-version.js';
import { type MergeInput, mergeReports } from '../../report/merge.js';
import { FORMAT_NAMES, isFormatName } from '../../report/render/index.js';
import type { SarifOptions } from '../../report/render/sarif.js';
import { type CoverageReport, CoverageReportSchema, SCHEMA_VERSION } from '../../report/schema.js';
import { quoted, visible } from '../../escape.js';
import { collect, percentArg } from '../args.js';
import { closest } from '../did-you-mean.js';
import { projectRoot } from '../locate.js';
import { sarifLocations } from '../sarif-locations.js';
import { isObservedReportFile, mergeObservedCommand } from './observed-command.js';
import { Inputs, type ReporterSpec, refuseOverwrites, renderReport, writeReport } from '../outputs.js';
import { parseReporter, reportersOf } from '../reporters.js';
import type { Streams } from './policy-commands.js';
import { commandOutput } from '../command-output.js';

interface MergeOptions {
  format?: (typeof REPORTER_FORMATS)[number];
  outputFile?: string;
  reporter?: { format: (typeof REPORTER_FORMATS)[number]; outputFile?: string }[];
  minCoverage?: number;
  exitZero?: boolean;
  quiet?: boolean;
}

function program(streams: Streams): Command {
  return new Command('gate-audit merge')
    .description('Join the JSON reports of several jobs, or of the shards of one --shard run, into one report.')
    .argument(
      '<report...>',
      'JSON reports written by gate-audit --format json (or --reporter json=<file>), or by gate-audit observed of many hosts',
    )
    .addOption(
      new Option('--format <format>', 'the merged report: its format (default text)').choices(REPORTER_FORMATS),
    )
    .option('--output-file <path>', 'write the merged report to this file instead of stdout')
    .option('--reporter <name[=file]>', 'a merged report, to stdout or a file (repeatable)', collect(parseReporter))
    .option(
      '--min-coverage <pct>',
      'fail only when coverage of tool-running nodes is under this percent (0-100), or an orchestrator is not gated',
      percentArg,
    )
    .option('--exit-zero', 'report without failing on coverage findings')
    .option('--quiet', 'show only nodes that are not gated, and the summary')
    .addHelpText(
      'after',
      '\nExit codes: 0 clean, 1 a node not gated (the same rule as the audit), 2 a report that cannot be read,\n' +
        'reports of another kind or schema version, a shard missing, or shards that selected different modules',
    )
    .exitOverride()
    .configureOutput(commandOutput(streams, 'gate-audit merge'));
}

/** Reads and validates one report. */
function readReport(file: string, shown: string): CoverageReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new GateAuditError(
      'USAGE',
      `report=<${visible(shown)}> | cannot read it as JSON: ${visible(messageOf(error))} | give the JSON reports the audit writes (--format json or --reporter json=<file>)`,
      { cause: error },
    );
  }
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== SCHEMA_VERSION) {
    throw new GateAuditError(
      'USAGE',
      `report=<${visible(shown)}> | schemaVersion ${visible(JSON.stringify(version) ?? 'missing')}, this gate-audit reads ${SCHEMA_VERSION} | merge reports written by one gate-audit version`,
    );
  }
  const parsed = CoverageReportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue === undefined ? '' : issue.path.map(String).join('.');
    throw new GateAuditError(
      'USAGE',
      `report=<${visible(shown)}>, field=<${visible(at)}> | not a gate-audit coverage report: ${visible(issue?.message ?? 'invalid')} | give the JSON reports the audit writes`,
    );
  }
  return parsed.data;
}

/** The reporters of a merge: every format of the map (the interactive view shows one run), text by default. */
function mergeReporters(options: MergeOptions, cwd: string): ReporterSpec[] {
  return reportersOf(options, {
    cwd,
    writes: isFormatName,
    refuse: (format) =>
      new GateAuditError(
        'USAGE',
        `format=<${visible(format)}> | merge writes reports, not the interactive view | choose ${FORMAT_NAMES.join(', ')}`,
      ),
    otherwise: () => [{ format: 'text' }],
  });
}

/** SARIF locations of a merged report: its modules are paths from the project root, where their files are. */
function mergedLocations(report: CoverageReport, cwd: string): SarifOptions {
  const root = projectRoot(cwd);
  return sarifLocations(report, { root, fileOf: (module) => join(root, module) });
}

/**
 * Runs `gate-audit merge`.
 *
 * @param argv - the arguments after `merge`
 * @param streams - stdout for the report, stderr for messages
 * @param cwd - the working directory
 * @returns the exit code
 */
export async function mergeCommand(argv: readonly string[], streams: Streams, cwd: string): Promise<number> {
  const command = program(streams);
  command.parse([...argv], { from: 'user' });
  const options = command.opts<MergeOptions>();
  const reporters = mergeReporters(options, cwd);
  // Observed reports (gate-audit observed) of many hosts are joined by their own rules; a mix is refused there.
  for (const arg of command.args) {
    if (await isObservedReportFile(resolve(cwd, arg)))
      return await mergeObservedCommand(command.args, options, streams, cwd);
  }
  const inputs = new Inputs();
  const parts: MergeInput[] = command.args.map((arg) => {
    const file = resolve(cwd, arg);
    inputs.add(file, 'a report this merge reads');
    return { name: arg, report: readReport(file, arg) };
  });
  const merged = mergeReports(parts);
  const { report } = merged;
  if (merged.sharded !== undefined) {
    const [stale] = merged.sharded.staleAccept;
    if (stale !== undefined) {
      const near = closest(stale.path, merged.pathsInModules);
      throw new GateAuditError(
        'USAGE',
        `config=<${visible(stale.config ?? '?')}>, field=<accept[${stale.index}].path> | ${quoted(visible(stale.path))} matches no node of the modules loaded in any of the ${merged.sharded.count} shards${near === undefined ? '' : ` | did you mean ${quoted(visible(near))}?`} | fix the path or remove the entry`,
      );
    }
  }
  if (report.sources.length === 0 && !(report.notes ?? []).some((n) => n.kind === 'load')) {
    const skipped = (report.notes ?? []).filter((n) => n.kind === 'skipped-module').length;
    const unaudited = (report.notes ?? []).filter((n) => n.kind === 'unaudited-export');
    const why = [
      `${parts.length} report${parts.length === 1 ? '' : 's'}`,
      ...(skipped > 0 ? [`${skipped} module${skipped === 1 ? '' : 's'} skipped with nothing to audit`] : []),
      ...(unaudited.length > 0
        ? [`exports not audited: ${unaudited.map((n) => visible(`${n.module}#${n.export ?? '?'}`)).join(', ')}`]
        : []),
    ].join(', ');
    throw new GateAuditError(
      'NO_ORCHESTRATOR',
      `nothing was audited in any report (${why}) | name the modules that export your Graph, Swarm or Agent, or their factories`,
    );
  }
  for (const warning of merged.warnings) streams.stderr.write(`gate-audit merge: warning: ${warning}\n`);
  refuseOverwrites(reporters, inputs, cwd);
  const rule: ExitRule = {
    ...(options.minCoverage === undefined ? {} : { minCoverage: options.minCoverage }),
    ...(options.exitZero === true ? { exitZero: true } : {}),
  };
  const settings = {
    version: gateAuditVersion(),
    exitRule: rule,
    quiet: options.quiet === true,
    // Source locations are looked up only when a SARIF report is written.
    sarif: reporters.some((r) => r.format === 'sarif') ? mergedLocations(report, cwd) : {},
    warn: (line: string): void => {
      streams.stderr.write(`gate-audit merge: ${visible(line)}\n`);
    },
  };
  const s = report.summary;
  for (const reporter of reporters) {
    const text = await renderReport(reporter.format, report, settings);
    if (reporter.file === undefined) {
      streams.stdout.write(text);
      continue;
    }
    writeReport({ ...reporter, file: reporter.file }, text);
    streams.stderr.write(
      `gate-audit merge: wrote ${reporter.format} report to ${visible(reporter.shown ?? relative(cwd, reporter.file))} (${s.gated}/${s.total} nodes gated)\n`,
    );
  }
  const shards = merged.sharded === undefined ? '' : ` (all ${merged.sharded.count} shards)`;
  streams.stderr.write(
    `gate-audit merge: ${parts.length} report${parts.length === 1 ? '' : 's'}${shards}, ${report.sources.length} module export${report.sources.length === 1 ? '' : 's'}, ${s.gated}/${s.total} nodes gated\n`,
  );
  // The run's own rule over the merged report: its nodes, the minimum, and every note a shard kept that fails
  // the run (a refused tree, --require-gate, --fail-on-unaudited, --require-process-guard); a part whose module
  // or entry failed to load makes the merged run exit 2, --exit-zero or not.
  for (const note of (report.notes ?? []).filter((n) => n.kind === 'load')) {
    streams.stderr.write(`gate-audit merge: load failed: ${visible(note.module)}: ${visible(note.message)}\n`);
  }
  return judgeRun(report, rule).exitCode;
}
