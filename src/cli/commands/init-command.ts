/**
 * `gate-audit init`: writes a starter configuration next to the project's `package.json` (or in the
 * working directory) and prints the CI step. It proposes the app's entry point (a `bin` file, or the file a `start`
 * script runs) when `package.json` names one, else the modules found by reading source text for
 * `new Graph(`/`new Swarm(`: nothing is imported or run.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Command, CommanderError } from 'commander';
import { CONFIG_FILES, findConfig } from '../config.js';
import { commandOutput } from '../command-output.js';

/** Where `init` writes. */
export interface InitStreams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

const SKIP = new Set(['node_modules', 'dist', 'coverage', 'build', 'test', 'tests', '__tests__']);
const MODULE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const TEST = /\.(test|spec)\.[^.]+$|\.d\.[cm]?ts$/;
const BUILDS = /\bnew\s+(Graph|Swarm)\s*\(/;

/** Modules under `dir` whose text builds a Graph or Swarm, relative and sorted (at most 2000 files read). */
function findOrchestratorModules(cwd: string, dir: string): string[] {
  const found: string[] = [];
  let budget = 2000;
  const visit = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (budget <= 0 || name.startsWith('.') || SKIP.has(name)) continue;
      const path = join(folder, name);
      let stat;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) visit(path);
      else if (
        MODULE.test(name) &&
        !TEST.test(name) &&
        stat.size < 1_000_000 &&
        !name.startsWith('gate-audit.config')
      ) {
        budget -= 1;
        if (BUILDS.test(readFileSync(path, 'utf8'))) found.push(relative(cwd, path).split(sep).join('/'));
      }
    }
  };
  visit(dir);
  return found;
}

/** The CI step that runs gate-audit with every report, and uploads the SARIF even when the step fails. */
export const CI_SNIPPET = `# A job step in .github/workflows/*.yml (after actions/checkout and npm ci):
- name: gate coverage
  run: >-
    npx gate-audit
    --reporter text
    --reporter markdown="$GITHUB_STEP_SUMMARY"
    --reporter sarif=gate-audit.sarif
- uses: github/codeql-action/upload-sarif@v3
  if: always()
  with:
    sarif_file: gate-audit.sarif
`;

const SCRIPT_FILE = /(?:^|\s)((?:\.\/)?[\w@./-]+\.(?:ts|tsx|mts|cts|js|mjs|cjs))(?=\s|$)/;

/**
 * The entry points `package.json` names: each `bin` file, and the file a `start` script runs (`node dist/main.js`,
 * `tsx src/main.ts`), when it exists. A library's `main` is not an entry: importing it runs nothing.
 *
 * @param cwd - the project folder
 */
export function proposedEntries(cwd: string): string[] {
  let pkg: { bin?: unknown; scripts?: { start?: unknown } };
  try {
    pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    return [];
  }
  const candidates: string[] = [];
  if (typeof pkg.bin === 'string') candidates.push(pkg.bin);
  else if (typeof pkg.bin === 'object' && pkg.bin !== null) {
    for (const value of Object.values(pkg.bin)) if (typeof value === 'string') candidates.push(value);
  }
  const start = pkg.scripts?.start;
  if (typeof start === 'string') {
    const file = SCRIPT_FILE.exec(start)?.[1];
    if (file !== undefined) candidates.push(file);
  }
  const entries: string[] = [];
  for (const candidate of candidates) {
    const path = join(cwd, candidate);
    if (!existsSync(path) || statSync(path).isDirectory()) continue;
    const shown = relative(cwd, path).split(sep).join('/');
    if (!entries.includes(shown)) entries.push(shown);
  }
  return entries;
}

const quote = (p: string): string => `'${p.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

function starter(
  kind: 'ts' | 'mjs' | 'json',
  include: readonly string[],
  guessed: boolean,
  entries: readonly string[],
): string {
  if (kind === 'json') {
    const config = entries.length > 0 ? { entry: entries } : { include, factories: [], failOnUnaudited: false };
    return `${JSON.stringify(config, null, 2)}\n`;
  }
  const list = include.map((p) => `    ${quote(p)},`).join('\n');
  const head =
    kind === 'ts'
      ? "import type { GateAuditConfig } from 'gate-audit';\n\n"
      : "/** @type {import('gate-audit').GateAuditConfig} */\n";
  const tail = kind === 'ts' ? ' satisfies GateAuditConfig;' : ';';
  const includeNote = guessed
    ? '  // The modules that export your Graph, Swarm or Agent. Every module in a folder is imported (as your app\n' +
      '  // imports it): narrow this to the modules that build your orchestrators.\n'
    : '  // The modules that export your Graph, Swarm or Agent (found by reading the source for `new Graph(` and\n' +
      '  // `new Swarm(`). Files, folders or globs; a leading "!" excludes.\n';
  const what =
    '  // What to audit: an ENTRY point runs as your app starts, and every tree it invokes is audited as it\n' +
    '  // stands (after your own installMultiagent), then stopped before any model or tool runs. MODULES are\n' +
    '  // imported and what they export is audited: a module that only builds the tree reads 0% when your entry\n' +
    '  // gates it. FACTORIES are exported functions gate-audit may call (a tree built per request).\n';
  if (entries.length > 0) {
    return (
      `${head}export default {\n${what}` +
      `  // Found in package.json (bin, or the file the start script runs).\n  entry: [${entries.map(quote).join(', ')}],\n` +
      '  // Its arguments (process.argv.slice(2)), if it needs any: entryArgs: [],\n' +
      `  // Modules that build a Graph or Swarm (imported, not run): include: [${include.map(quote).join(', ')}],\n` +
      `}${tail}\n`
    );
  }
  return (
    `${head}export default {\n${what}${includeNote}  include: [\n${list}\n  ],\n` +
    '  // No entry point found in package.json (bin, or a start script naming a file). If your app invokes its\n' +
    "  // tree at startup, audit that instead: entry: ['src/main.ts'],\n" +
    '  // Exported functions gate-audit may call to build what it audits ("module#export"); nothing else is called.\n' +
    "  // With arguments: { 'src/app.ts#buildForTenant': [['acme']] }. gatedFactory() exports are called anyway.\n" +
    '  factories: [],\n' +
    '  // true: fail when an exported function was not called (what it builds was not audited).\n' +
    '  failOnUnaudited: false,\n' +
    `}${tail}\n`
  );
}

/**
 * `gate-audit init`.
 *
 * @returns the exit code: 0 written, 2 a configuration already exists or a usage error
 */
export function initCommand(argv: readonly string[], streams: InitStreams, cwd: string): number {
  const command = new Command('gate-audit init')
    .description('Write a starter gate-audit configuration and print the CI step.')
    .option('--json', 'write gate-audit.config.json (default: .ts when tsconfig.json exists, else .mjs)', false)
    .exitOverride()
    .configureOutput(commandOutput(streams, 'gate-audit init'));
  try {
    command.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const { json } = command.opts<{ json: boolean }>();
  const existing = findConfig(cwd);
  if (existing !== undefined && !relative(cwd, existing.file).startsWith('..')) {
    streams.stderr.write(
      `gate-audit init: config=<${relative(cwd, existing.file)}${existing.packageKey ? '#gate-audit' : ''}> | a configuration already exists here | edit it, or remove it first\n`,
    );
    return 2;
  }
  const kind = json ? 'json' : existsSync(join(cwd, 'tsconfig.json')) ? 'ts' : 'mjs';
  const file = CONFIG_FILES.find((name) => name.endsWith(`.${kind}`)) ?? 'gate-audit.config.json';
  const searchIn = existsSync(join(cwd, 'src')) ? join(cwd, 'src') : cwd;
  const found = findOrchestratorModules(cwd, searchIn);
  const include = found.length > 0 ? found : [existsSync(join(cwd, 'src')) ? 'src' : '.'];
  const entries = proposedEntries(cwd);
  writeFileSync(join(cwd, file), starter(kind, include, found.length === 0, entries));
  streams.stderr.write(
    `gate-audit init: wrote ${file} (${
      entries.length > 0
        ? `entry: ${entries.join(', ')}`
        : `include: ${
            found.length > 0
              ? `${found.length} module${found.length === 1 ? '' : 's'} that build a Graph or Swarm`
              : `the folder ${include[0]}`
          }`
    }); run npx gate-audit, then add this step to CI:\n`,
  );
  streams.stdout.write(CI_SNIPPET);
  return 0;
}
