/**
 * Which reports a command writes: `--reporter <name>[=<file>]` (repeatable), the one-report shorthand
 * `--format`/`--output-file`, else what the command falls back on (the audit: its configuration's `reporters`,
 * then the interactive view on a terminal or text; `merge` and `observed`: text). One function serves the audit,
 * `merge` and `observed`; what differs between them (the formats each writes, the words of a refusal, the
 * fallback) is given to it.
 */
import { InvalidArgumentError } from 'commander';
import { REPORTER_FORMATS } from '../config.js';
import { GateAuditError } from '../errors.js';
import { visible } from '../escape.js';
import { checkReporters, isReporterFormat, type ReporterFormat, type ReporterSpec, resolveOutput } from './outputs.js';

/** One report as a flag or the configuration names it: a format, and a file as written (stdout without one). */
export interface ReporterChoice {
  readonly format: string;
  readonly outputFile?: string;
}

/** The reporter flags of a command. */
export interface ReporterFlags {
  /** `--format`: the one-report shorthand's format. */
  readonly format?: string;
  /** `--output-file`: the one-report shorthand's file. */
  readonly outputFile?: string;
  /** `--reporter`, in the order given. */
  readonly reporter?: readonly ReporterChoice[];
}

/** What differs between the commands that write reports. */
export interface ReportersRules {
  /** The folder the flags' files are relative to. */
  readonly cwd: string;
  /** Whether the command writes reports in this format. */
  readonly writes: (format: string) => format is ReporterFormat;
  /** The refusal of a format the command does not write. */
  readonly refuse: (format: string) => GateAuditError;
  /** The reporters when no flag names one (the configuration's, a default). */
  readonly otherwise: () => readonly ReporterSpec[];
}

/**
 * Splits one `--reporter` value, `json` or `sarif=out/gate-audit.sarif`, without judging it.
 *
 * @param value - as given
 */
export function splitReporter(value: string): ReporterChoice {
  const at = value.indexOf('=');
  return at === -1 ? { format: value } : { format: value.slice(0, at), outputFile: value.slice(at + 1) };
}

/**
 * Parses one `--reporter` value of the audit or `merge` while commander reads the arguments.
 *
 * @param value - `json`, or `sarif=out/gate-audit.sarif`
 * @throws InvalidArgumentError for an unknown format, an empty file name, or the interactive view to a file
 */
export function parseReporter(value: string): { format: ReporterFormat; outputFile?: string } {
  const { format, outputFile } = splitReporter(value);
  if (!isReporterFormat(format)) {
    throw new InvalidArgumentError(`unknown format "${format}"; formats are ${REPORTER_FORMATS.join(', ')}`);
  }
  if (outputFile !== undefined && outputFile.trim() === '') {
    throw new InvalidArgumentError(`give a file after "${format}="`);
  }
  if (format === 'tui' && outputFile !== undefined) {
    throw new InvalidArgumentError('the interactive view cannot be written to a file');
  }
  return outputFile === undefined ? { format } : { format, outputFile };
}

/**
 * A reporter from a format and a file as written.
 *
 * @param choice - the format, and the file as written
 * @param base - the folder the file is relative to (the working directory for flags, the config's folder)
 */
export function reporterOf(
  choice: { readonly format: ReporterFormat; readonly outputFile?: string },
  base: string,
): ReporterSpec {
  return choice.outputFile === undefined
    ? { format: choice.format }
    : { format: choice.format, file: resolveOutput(choice.outputFile, base), shown: choice.outputFile };
}

/**
 * The reporters of one run, checked: the flags' (`--reporter` in order, then the shorthand), else the command's
 * fallback; at most one to stdout, no file named twice.
 *
 * @param flags - the command's reporter flags
 * @param rules - the formats the command writes, its refusal, its fallback
 * @throws GateAuditError `USAGE` for a format the command does not write, an empty file name, the interactive
 *   view to a file, two reports to stdout or one file named twice
 */
export function reportersOf(flags: ReporterFlags, rules: ReportersRules): ReporterSpec[] {
  const chosen = [...(flags.reporter ?? [])];
  if (flags.format !== undefined || flags.outputFile !== undefined) {
    chosen.push({
      format: flags.format ?? 'text',
      ...(flags.outputFile === undefined ? {} : { outputFile: flags.outputFile }),
    });
  }
  const reporters = chosen.map((choice) => {
    const { format, outputFile } = choice;
    if (!rules.writes(format)) throw rules.refuse(format);
    if (outputFile !== undefined && outputFile.trim() === '') {
      throw new GateAuditError('USAGE', `reporter=<${visible(format)}=> | give a file after "${visible(format)}="`);
    }
    if (format === 'tui' && outputFile !== undefined) {
      throw new GateAuditError('USAGE', 'the interactive view cannot be written to a file | drop --output-file');
    }
    return reporterOf({ format, ...(outputFile === undefined ? {} : { outputFile }) }, rules.cwd);
  });
  const result = reporters.length > 0 ? reporters : [...rules.otherwise()];
  checkReporters(result);
  return result;
}
