/**
 * The import rules of `.dependency-cruiser.cjs` fire: each whitelist of a folder or top-level file beside the
 * pipeline refuses an import it does not name, and lets one it names through. Run in a scratch tree of two files (the
 * importer and what it imports), with the repository's own rules, so a rule whose path pattern no longer matches
 * (a folder renamed, a typo) fails here instead of passing every import silently.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'gate-audit-import-rules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An import from one file of `src/` to another. */
type Import = readonly [from: string, to: string];

/**
 * Cruises a scratch tree holding exactly these imports (each file exports `x` and imports what it is said to), with
 * the repository's rules, and gives the rules each import breaks, by `from -> to`.
 */
function cruise(imports: readonly Import[]): Map<string, string[]> {
  const dir = mkdtempSync(join(scratch, 'tree-'));
  const lines = new Map<string, string[]>();
  for (const [from, to] of imports) {
    let spec = relative(dirname(from), to).replace(/\.ts$/, '.js');
    if (!spec.startsWith('.')) spec = `./${spec}`;
    lines.set(from, [
      ...(lines.get(from) ?? []),
      `import { x as _${String(lines.get(from)?.length ?? 0)} } from '${spec}';`,
    ]);
    lines.set(to, lines.get(to) ?? []);
  }
  for (const [file, imported] of lines) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    writeFileSync(join(dir, file), `${imported.join('\n')}\nexport const x = 1;\n`);
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext' } }));
  const run = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      'src',
      '--config',
      join(root, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  const output = JSON.parse(run.stdout) as {
    summary: { violations: { from: string; to: string; rule: { name: string } }[] };
  };
  const byImport = new Map<string, string[]>();
  for (const v of output.summary.violations) {
    const key = `${v.from} -> ${v.to}`;
    byImport.set(key, [...(byImport.get(key) ?? []), v.rule.name].sort());
  }
  return byImport;
}

/** Imports each whitelist refuses, with the rule that must fire. */
const REFUSED: readonly (readonly [rule: string, from: string, to: string])[] = [
  ['stores-whitelist', 'src/stores/log.ts', 'src/report/coverage.ts'],
  ['otel-whitelist', 'src/otel/spans.ts', 'src/report/coverage.ts'],
  ['tui-whitelist', 'src/tui/view.ts', 'src/policy/load.ts'],
  ['render-whitelist', 'src/report/render/text.ts', 'src/enforce/gate.ts'],
  ['strands-whitelist', 'src/frameworks/strands/adapter.ts', 'src/report/coverage.ts'],
  ['langgraph-whitelist', 'src/frameworks/langgraph/adapter.ts', 'src/frameworks/strands/sdk-internals.ts'],
  ['escape-is-a-leaf', 'src/escape.ts', 'src/errors.ts'],
  ['errors-whitelist', 'src/errors.ts', 'src/tree-paths.ts'],
  ['config-whitelist', 'src/config.ts', 'src/enforce/gate.ts'],
  ['index-whitelist', 'src/index.ts', 'src/tui/view.ts'],
  ['no-import-cli', 'src/report/coverage.ts', 'src/cli/main.ts'],
];

/** Imports the whitelists name. */
const ALLOWED: readonly Import[] = [
  ['src/stores/log.ts', 'src/policy/approval.ts'],
  ['src/otel/spans.ts', 'src/walker/marks.ts'],
  ['src/tui/view.ts', 'src/report/coverage.ts'],
  ['src/errors.ts', 'src/escape.ts'],
];

describe('the import rules', () => {
  const refused = cruise(REFUSED.map(([, from, to]) => [from, to] as const));
  const allowed = cruise(ALLOWED);

  describe('when a folder or file beside the pipeline imports what its whitelist does not name', () => {
    it.each(REFUSED)('%s: refuses %s importing %s', (rule, from, to) => {
      expect(refused.get(`${from} -> ${to}`)).toContain(rule);
    });
  });

  describe('when it imports what its whitelist names', () => {
    it('breaks no rule', () => {
      expect([...allowed.keys()]).toEqual([]);
    });
  });
});
