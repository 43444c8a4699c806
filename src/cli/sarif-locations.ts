/**
 * Where a SARIF report's findings are in the source, for the audit and for `merge` alike: a module's finding at
 * the line of its export, a node's at the one line that defines it (`id: 'writer'`) in its module or a project
 * file the module imports, else at its export's line. URIs are relative to the project root.
 */
import type { SarifLocation, SarifOptions } from '../report/render/sarif.js';
import type { CoverageReport } from '../report/schema.js';
import { artifactUri, idOfSegment, SourceIndex } from './locate.js';

/** What a command knows of the report's files. */
export interface SarifSources {
  /** The project root: URIs are relative to it. */
  readonly root: string;
  /** The file of a module as the report names it, or undefined when the command does not know it. */
  readonly fileOf: (module: string) => string | undefined;
  /**
   * The files a node's definition is searched in, its module first (the audit knows what each module imports);
   * without it, a node's finding is at its export's line.
   */
  readonly closureOf?: (file: string) => readonly string[];
}

/** The variable an export names: `team` of `team.graph`, `items[0]` or `build(…)`. */
function exportVariable(exportName: string): string {
  return exportName.replace(/\(.*$/s, '').replace(/[.[].*$/s, '');
}

/**
 * The SARIF locations of a report's findings.
 *
 * @param report - the report
 * @param sources - the project root, each module's file and, when known, what it imports
 */
export function sarifLocations(report: CoverageReport, sources: SarifSources): SarifOptions {
  const index = new SourceIndex();
  const at = (file: string, line: number): SarifLocation => ({ ...artifactUri(file, sources.root), startLine: line });
  const locateModule = (module: string, exportName?: string): SarifLocation | undefined => {
    const file = sources.fileOf(module);
    if (file === undefined) return undefined;
    const line = exportName === undefined ? undefined : index.exportLine(file, exportVariable(exportName));
    return at(file, line ?? 1);
  };
  return {
    locateModule,
    locate: (node) => {
      const source = report.sources.find((s) => s.path.every((segment, i) => node.path[i] === segment));
      if (source === undefined) return undefined;
      const file = sources.fileOf(source.module);
      if (file === undefined) return undefined;
      const found =
        sources.closureOf === undefined ? undefined : index.definition(idOfSegment(node.id), sources.closureOf(file));
      return found === undefined ? locateModule(source.module, source.export) : at(found.file, found.line);
    },
  };
}
