/**
 * Where in the source a finding is: the line that defines a node's agent or orchestrator (`id: 'writer'`)
 * in the module or a project file it imports, when exactly one line does; else the line of the export;
 * else the module's first line. Read-only: source text is searched, nothing is run.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const nodeRequire = createRequire(import.meta.url);

/** A place in a file. */
export interface SourceLocation {
  /** The file, absolute. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
}

/**
 * The project root SARIF URIs are relative to: the folder holding `.git` above `cwd` (what code scanning
 * resolves against), else the configuration's folder, else the nearest folder with a `package.json`, else `cwd`.
 *
 * @param cwd - the working directory
 * @param configDir - the folder of the configuration file, if there is one
 */
export function projectRoot(cwd: string, configDir?: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) break;
  }
  if (configDir !== undefined) return configDir;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

/**
 * The project files a module imports, itself first (from Node's module cache, where jiti records what it
 * loads; `node_modules` left out).
 *
 * @param absolute - the module
 */
export function importClosure(absolute: string): string[] {
  const seen = new Set<string>([absolute]);
  const queue = [absolute];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const child of nodeRequire.cache[file]?.children ?? []) {
      const name = child.filename;
      if (seen.has(name) || name.includes(`${sep}node_modules${sep}`)) continue;
      seen.add(name);
      queue.push(name);
    }
  }
  return [...seen];
}

/**
 * A SARIF artifact URI: relative to the project root (forward slashes, each segment percent-encoded), or an
 * absolute `file:` URI for a file outside it.
 *
 * @param file - the file, absolute
 * @param root - the project root
 */
export function artifactUri(file: string, root: string): { uri: string; underRoot: boolean } {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return { uri: pathToFileURL(file).href, underRoot: false };
  return { uri: rel.split(sep).map(encodeURIComponent).join('/'), underRoot: true };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The raw id of a path segment: the `#2` sibling suffix dropped, `%2F`, `%23`, `%25` decoded. */
export function idOfSegment(segment: string): string {
  return segment.replace(/#\d+$/, '').replace(/%2F/g, '/').replace(/%23/g, '#').replace(/%25/g, '%');
}

/** Finds lines in source files, with each file read once. */
export class SourceIndex {
  private readonly _lines = new Map<string, string[]>();

  private _linesOf(file: string): string[] {
    let lines = this._lines.get(file);
    if (lines === undefined) {
      try {
        lines = statSync(file).size > 2_000_000 ? [] : readFileSync(file, 'utf8').split(/\r?\n/);
      } catch {
        lines = [];
      }
      this._lines.set(file, lines);
    }
    return lines;
  }

  /** Every 1-based line of `file` matching `pattern`. */
  private _matches(file: string, pattern: RegExp): number[] {
    const found: number[] = [];
    this._linesOf(file).forEach((line, i) => {
      if (pattern.test(line)) found.push(i + 1);
    });
    return found;
  }

  /**
   * The line that defines an agent or orchestrator with this id (`id: 'writer'`), when exactly one line of
   * the searched files does.
   *
   * @param id - the raw id
   * @param files - the module first, then the project files it imports
   */
  definition(id: string, files: readonly string[]): SourceLocation | undefined {
    if (id === '') return undefined;
    const pattern = new RegExp(`\\bid\\s*:\\s*(['"\`])${escapeRegExp(id)}\\1`);
    const [module, ...rest] = files;
    if (module !== undefined) {
      const lines = this._matches(module, pattern);
      if (lines.length === 1) return { file: module, line: lines[0]! };
      if (lines.length > 1) return undefined;
    }
    const hits = rest.flatMap((file) => this._matches(file, pattern).map((line) => ({ file, line })));
    return hits.length === 1 ? hits[0] : undefined;
  }

  /**
   * The line that exports `name` from a module, if it can be found.
   *
   * @param module - the module, absolute
   * @param name - the export name (`default` for the default export)
   */
  exportLine(module: string, name: string): number | undefined {
    const id = escapeRegExp(name);
    const patterns =
      name === 'default'
        ? [/^\s*export\s+default\b/, /^\s*module\.exports\s*=/, /\bas\s+default\b/]
        : [
            new RegExp(
              `^\\s*export\\s+(?:declare\\s+)?(?:async\\s+)?(?:const|let|var|function\\s*\\*?|class)\\s+${id}\\b`,
            ),
            new RegExp(`^\\s*export\\s*\\{[^}]*\\b${id}\\b`),
            new RegExp(`^\\s*(?:module\\.)?exports\\.${id}\\s*=`),
          ];
    for (const pattern of patterns) {
      const [line] = this._matches(module, pattern);
      if (line !== undefined) return line;
    }
    return undefined;
  }
}
