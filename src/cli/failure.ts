/**
 * How a command that failed ends, whichever it was: help and version are exit 0; any other error is exit 2,
 * printed on stderr with its controls escaped (with `--debug`, the stacks, the module's own first), and each
 * SARIF report the run names still gets a file naming the error (an `upload-sarif` step finds it), unless the
 * error is an output refused, or the file is an input of the run.
 */
import { CommanderError } from 'commander';
import { GateAuditError, messageOf } from '../errors.js';
import { renderSarifError } from '../report/render/sarif.js';
import { visible } from '../escape.js';
import type { CliStreams } from './commands/command.js';
import { InvalidConfigError } from './config.js';
import { type Inputs, OutputRefusedError, type ReporterSpec, resolveOutput, writeReport } from './outputs.js';
import { reporterOf } from './reporters.js';
import { gateAuditVersion } from '../report/own-version.js';

/** What a failed run knew when it failed. */
export interface FailedRun {
  /** Every argument, the subcommand's name included. */
  readonly argv: readonly string[];
  readonly streams: CliStreams;
  readonly cwd: string;
  /** `--debug`: print the stacks. */
  readonly debug: boolean;
  /** The inputs known so far: no error file overwrites one. */
  readonly inputs: Inputs;
  /** The reporters known so far (none before the configuration is read). */
  readonly reporters: readonly ReporterSpec[];
}

/** The text an error prints: its own message, or an unexpected error's. */
export function describeError(error: unknown): string {
  return error instanceof GateAuditError ? error.message : `unexpected error: ${messageOf(error)}`;
}

/**
 * Prints an error on stderr, every line escaped; with `debug`, the stacks of its `cause` chain, innermost first.
 *
 * @param error - the error
 * @param streams - where to print
 * @param debug - print the stacks
 */
export function printError(error: unknown, streams: Pick<CliStreams, 'stderr'>, debug: boolean): void {
  // A module's own error text can hold anything: every line is shown with its controls escaped.
  for (const line of describeError(error).split('\n')) streams.stderr.write(`gate-audit: ${visible(line)}\n`);
  if (!debug) return;
  // The user's own stack first: the innermost cause is where their module threw.
  const chain: unknown[] = [];
  for (let e: unknown = error; e !== undefined && chain.length < 8; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
    if (!(e instanceof Error)) break;
  }
  for (const e of chain.reverse()) {
    const stack = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : messageOf(e);
    streams.stderr.write(`${e === error ? '' : 'caused: '}${stack.split('\n').map(visible).join('\n')}\n`);
  }
}

/** The reporters a failed run can still learn of from its arguments, for the error SARIF file. */
function sarifTargetsOf(argv: readonly string[], cwd: string): ReporterSpec[] {
  const targets: ReporterSpec[] = [];
  let format: string | undefined;
  let outputFile: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--reporter') {
      const spec = value();
      if (spec?.startsWith('sarif=') === true && spec.length > 'sarif='.length) {
        const file = spec.slice('sarif='.length);
        targets.push({ format: 'sarif', file: resolveOutput(file, cwd), shown: file });
      }
    } else if (flag === '--format') format = value();
    else if (flag === '--output-file') outputFile = value();
  }
  if (format === 'sarif' && outputFile !== undefined) {
    targets.push({ format: 'sarif', file: resolveOutput(outputFile, cwd), shown: outputFile });
  }
  return targets;
}

/** Writes a SARIF file naming the error for every SARIF reporter whose file is not an input. */
function writeErrorSarif(reporters: readonly ReporterSpec[], inputs: Inputs, message: string): void {
  for (const reporter of reporters) {
    if (reporter.format !== 'sarif' || reporter.file === undefined) continue;
    if (inputs.find(reporter.file) !== undefined) continue;
    try {
      writeReport({ ...reporter, file: reporter.file }, renderSarifError(message, gateAuditVersion()));
    } catch {
      // The error itself is what the run reports; a file that cannot be written adds nothing to it.
    }
  }
}

/**
 * Ends a failed run: prints the error, writes the error SARIF files, and gives the exit code.
 *
 * @param error - what the run threw
 * @param run - what the run knew
 * @returns 0 for help and version, else 2
 */
export function failed(error: unknown, run: FailedRun): number {
  const { argv, cwd, inputs } = run;
  if (error instanceof CommanderError) {
    if (error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version') {
      return 0;
    }
    writeErrorSarif(sarifTargetsOf(argv, cwd), inputs, error.message.replace(/^error: /, ''));
    return 2;
  }
  // A refused output writes nothing, the error file included.
  if (!(error instanceof OutputRefusedError)) {
    let reporters = run.reporters.length === 0 ? sarifTargetsOf(argv, cwd) : run.reporters;
    const flagged = argv.some((a) => /^--(reporter|format|output-file)(=|$)/.test(a));
    if (!flagged && error instanceof InvalidConfigError && error.reporters !== undefined) {
      const dir = error.dir ?? cwd;
      reporters = error.reporters.map((r) => reporterOf(r, dir));
    }
    writeErrorSarif(reporters, inputs, describeError(error));
  }
  printError(error, run.streams, run.debug);
  return 2;
}
