/**
 * The reports of one run: `--reporter <name>[=<file>]` (repeatable), `--format`/`--output-file` (the
 * one-output shorthand) or the config's `reporters`. Every output file is checked before anything is
 * written: a path that is an input of the run (a module, a file it imports, the configuration), a folder,
 * or named twice is refused, and then nothing is written at all. Output folders are created.
 */
import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { REPORTER_FORMATS } from '../config.js';
import { GateAuditError } from '../errors.js';
import type { ExitRule } from '../report/exit.js';
import { FORMAT_NAMES, isFormatName, renderFormat } from '../report/render/index.js';
import type { SarifOptions } from '../report/render/sarif.js';
import type { CoverageReport } from '../report/schema.js';
import { visible } from '../escape.js';

/** A report format (`tui` is the interactive view). */
export type ReporterFormat = (typeof REPORTER_FORMATS)[number];

/** One report to produce. */
export interface ReporterSpec {
  readonly format: ReporterFormat;
  /** The file, absolute; stdout when absent. */
  readonly file?: string;
  /** The file as the user wrote it. */
  readonly shown?: string;
  /** Chosen by gate-audit (no flag or config asked for a format): the view falls back to text when it cannot load. */
  readonly byDefault?: true;
}

/** An output refused before anything was written (it would overwrite an input, or it is a folder). */
export class OutputRefusedError extends GateAuditError {
  /** @param message - the refusal, naming the file */
  constructor(message: string) {
    super('USAGE', message);
    this.name = 'OutputRefusedError';
  }
}

/** Whether a name is a reporter format. */
export function isReporterFormat(name: string): name is ReporterFormat {
  return (REPORTER_FORMATS as readonly string[]).includes(name);
}

/**
 * Checks the reporters of a run: at most one writes to stdout, no file is named twice.
 *
 * @param reporters - the reporters
 * @throws GateAuditError `USAGE`
 */
export function checkReporters(reporters: readonly ReporterSpec[]): void {
  const toStdout = reporters.filter((r) => r.file === undefined);
  if (toStdout.length > 1) {
    throw new GateAuditError(
      'USAGE',
      `reporters=<${toStdout.map((r) => r.format).join(', ')}> | more than one report would go to stdout | give all but one a file: --reporter ${toStdout[1]?.format ?? 'json'}=<file>`,
    );
  }
  const seen = new Map<string, ReporterSpec>();
  for (const reporter of reporters) {
    if (reporter.file === undefined) continue;
    const key = canonical(reporter.file).path;
    const before = seen.get(key);
    if (before !== undefined) {
      throw new GateAuditError(
        'USAGE',
        `output=<${reporter.shown ?? reporter.file}> | the ${before.format} and ${reporter.format} reports would both be written there | give each its own file`,
      );
    }
    seen.set(key, reporter);
  }
}

/** The real path of a file (or of its folder, for a file not there yet), and its identity when it exists. */
function canonical(file: string): { path: string; id?: string } {
  try {
    const real = realpathSync.native(file);
    const stat = statSync(real);
    return { path: real, id: `${stat.dev}:${stat.ino}` };
  } catch {
    let dir = dirname(file);
    const tail = [basename(file)];
    while (!existsSync(dir) && dirname(dir) !== dir) {
      tail.unshift(basename(dir));
      dir = dirname(dir);
    }
    try {
      return { path: join(realpathSync.native(dir), ...tail) };
    } catch {
      return { path: file };
    }
  }
}

/** The inputs of a run, compared by real path and by file identity (hard links, case-insensitive disks). */
export class Inputs {
  private readonly _paths = new Map<string, string>();
  private readonly _ids = new Map<string, string>();

  /**
   * @param file - an input, absolute
   * @param what - what it is, for the refusal ("a loaded module", "the configuration"); the last one said wins
   */
  add(file: string, what: string): void {
    const { path, id } = canonical(file);
    this._paths.set(path, what);
    if (id !== undefined) this._ids.set(id, what);
  }

  /** What `file` is among the inputs, or undefined when it is none of them. */
  find(file: string): string | undefined {
    const { path, id } = canonical(file);
    return this._paths.get(path) ?? (id === undefined ? undefined : this._ids.get(id));
  }
}

/**
 * Refuses every output file that would overwrite an input or a folder; returns only when all are safe.
 *
 * @param reporters - the reporters
 * @param inputs - the inputs of the run
 * @param cwd - the working directory, for messages
 * @throws GateAuditError `USAGE` naming the first refused file
 */
export function refuseOverwrites(reporters: readonly ReporterSpec[], inputs: Inputs, cwd: string): void {
  for (const reporter of reporters) {
    if (reporter.file === undefined) continue;
    const shown = reporter.shown ?? (relative(cwd, reporter.file) || reporter.file);
    const what = inputs.find(reporter.file);
    if (what !== undefined) {
      throw new OutputRefusedError(
        `output=<${shown}> | it is ${what} of this run: writing the ${reporter.format} report there would overwrite it, so nothing was written | write the report to another file`,
      );
    }
    if (existsSync(reporter.file) && statSync(reporter.file).isDirectory()) {
      throw new OutputRefusedError(
        `output=<${shown}> | it is a folder, so nothing was written | name a file in it, e.g. ${join(shown, `gate-audit.${reporter.format}`)}`,
      );
    }
  }
}

/** What every rendering of one run's report shares. */
export interface RenderSettings {
  /** gate-audit's version, for the formats that name their tool. */
  readonly version: string;
  /** The exit rule in force, so the formats that mark failures mark exactly the nodes that fail. */
  readonly exitRule: ExitRule;
  /** Only the nodes that are not gated, and the summary. */
  readonly quiet: boolean;
  /** Where findings are in the source, for SARIF. */
  readonly sarif: SarifOptions;
  /** Told what a page left out and why, for a line on stderr. */
  readonly warn?: (line: string) => void;
}

/**
 * Renders a report in one format of the map, the same way for an audit and for `merge`, through the registry
 * and so through its format's final pass. The interactive view is not rendered here.
 *
 * @param format - the reporter's format
 * @param report - the report
 * @param settings - version, exit rule, quiet, SARIF locations
 * @throws GateAuditError `USAGE` for a name the map does not hold (`tui` included), listing the formats
 */
export async function renderReport(format: string, report: CoverageReport, settings: RenderSettings): Promise<string> {
  if (!isFormatName(format)) {
    throw new GateAuditError(
      'USAGE',
      `format=<${visible(format)}> | not a format of the report | choose ${FORMAT_NAMES.join(', ')}`,
    );
  }
  return await renderFormat(format, report, {
    version: settings.version,
    exitRule: settings.exitRule,
    sarif: settings.sarif,
    ...(settings.quiet ? { quiet: true } : {}),
    ...(settings.warn === undefined ? {} : { warn: settings.warn }),
  });
}

/**
 * Writes one report to its file, creating its folder.
 *
 * @param reporter - the reporter (with a file)
 * @param text - the rendered report
 */
export function writeReport(reporter: ReporterSpec & { file: string }, text: string): void {
  mkdirSync(dirname(reporter.file), { recursive: true });
  writeFileSync(reporter.file, text);
}

/**
 * Resolves a file a user wrote, relative to its base (the working directory for flags, the config's folder).
 *
 * @param file - as written
 * @param base - the folder it is relative to
 */
export function resolveOutput(file: string, base: string): string {
  return isAbsolute(file) ? file : resolve(base, file);
}
