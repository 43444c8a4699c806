/**
 * The import rules of `.dependency-cruiser.cjs` fire: every rule refuses an import it is there to refuse (each
 * whitelist of a folder or top-level file beside the pipeline one it does not name, each leaf any file of gate-audit,
 * each stage of the pipeline a later one, a cycle), and the whitelists let one they name through. Run in a scratch
 * tree (the importers and what they import), with the repository's own rules, so a rule whose path pattern no longer
 * matches (a folder renamed, a typo) fails here instead of passing every import silently; and every rule of the
 * config must have a case here, so a new rule cannot go untested.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'gate-audit-import-rules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * An import from one file of `src/` to another, or to a package (a name not under `src/`: `node:path`,
 * `@strands-agents/sdk`, left unresolved in the scratch tree); `type` imports it with `import type`.
 */
type Import = readonly [from: string, to: string, only?: 'type'];

/**
 * Cruises a scratch tree holding exactly these imports (each file exports `x` and imports what it is said to), with
 * the repository's rules, and gives the rules each import breaks, by `from -> to` (a rule that follows imports, as
 * `reachable` does, names the file it reached as `to`).
 */
function cruise(imports: readonly Import[]): Map<string, string[]> {
  const dir = mkdtempSync(join(scratch, 'tree-'));
  const lines = new Map<string, string[]>();
  for (const [from, to, only] of imports) {
    const local = to.startsWith('src/');
    let spec = local ? relative(dirname(from), to).replace(/\.ts$/, '.js') : to;
    if (local && !spec.startsWith('.')) spec = `./${spec}`;
    lines.set(from, [
      ...(lines.get(from) ?? []),
      `import ${only === 'type' ? 'type ' : ''}{ x as _${String(lines.get(from)?.length ?? 0)} } from '${spec}';`,
    ]);
    if (local) lines.set(to, lines.get(to) ?? []);
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

/**
 * Imports each rule refuses, with the rule that must fire: one case a rule at least, one for each file a rule's `from`
 * names one by one. `imports`, when given, is what the tree holds for the case instead of the import `from → to`
 * itself: the way a reachable rule follows to `to`, the way back of a cycle. All of them are cruised in one tree,
 * which must break no rule but these, on no import but these.
 */
const REFUSED: readonly (readonly [rule: string, from: string, to: string, imports?: readonly Import[]])[] = [
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
  // The walker's own import of a later stage is refused twice: a direct import is reached too.
  ['walker-is-the-bottom', 'src/walker/classify.ts', 'src/enforce/gate.ts'],
  ['walker-reaches-no-later-stage', 'src/walker/classify.ts', 'src/enforce/gate.ts'],
  [
    'walker-reaches-no-later-stage',
    'src/walker/declare.ts',
    'src/enforce/settle.ts',
    [
      ['src/walker/declare.ts', 'src/frameworks/strands/sdk-shape.ts'],
      ['src/frameworks/strands/sdk-shape.ts', 'src/enforce/settle.ts'],
    ],
  ],
  ['enforce-before-report', 'src/enforce/judge.ts', 'src/policy/policy-gate.ts'],
  ['policy-before-report', 'src/policy/truth.ts', 'src/report/audit.ts'],
  ['renderers-without-sdk', 'src/report/render/json.ts', '@strands-agents/sdk'],
  ['renderers-without-sdk', 'src/tui/app.ts', '@strands-agents/sdk'],
  ['program-tables-are-data', 'src/policy/shell/programs/git.ts', 'src/policy/shell/analyze.ts'],
  ['seam-is-a-leaf', 'src/frameworks/seam.ts', 'src/enforce/decision.ts'],
  ['tree-paths-is-a-leaf', 'src/tree-paths.ts', 'src/walker/marks.ts'],
  ['sdk-version-is-a-leaf', 'src/frameworks/strands/sdk-version.ts', 'src/errors.ts'],
  ['sdk-version-is-a-leaf', 'src/frameworks/versions.ts', 'src/errors.ts'],
  ['sdk-package-is-a-leaf', 'src/frameworks/strands/sdk-package.ts', 'src/errors.ts'],
  ['sdk-package-is-a-leaf', 'src/frameworks/strands/run-steps.ts', 'src/errors.ts'],
  ['sdk-package-is-a-leaf', 'src/frameworks/strands/sdk-input.ts', 'src/errors.ts'],
  ['auditing-whitelist', 'src/auditing.ts', 'src/errors.ts'],
  ['vitest-whitelist', 'src/vitest.ts', 'src/enforce/gate.ts'],
  ['langgraph-entry-whitelist', 'src/langgraph.ts', 'src/tui/view.ts'],
  [
    'no-circular',
    'src/report/lines.ts',
    'src/report/merge.ts',
    [
      ['src/report/lines.ts', 'src/report/merge.ts'],
      ['src/report/merge.ts', 'src/report/lines.ts'],
    ],
  ],
];

/** Imports the rules let through: what the whitelists name, what a leaf or a stage may import. */
const ALLOWED: readonly Import[] = [
  ['src/stores/log.ts', 'src/policy/approval.ts'],
  ['src/otel/spans.ts', 'src/walker/marks.ts'],
  ['src/tui/view.ts', 'src/report/coverage.ts'],
  ['src/errors.ts', 'src/escape.ts'],
  ['src/report/render/text.ts', 'src/report/schema.ts'],
  ['src/frameworks/strands/adapter.ts', 'src/enforce/gate.ts'],
  ['src/frameworks/langgraph/adapter.ts', 'src/frameworks/seam.ts'],
  ['src/config.ts', 'src/report/render/index.ts'],
  ['src/index.ts', 'src/frameworks/strands/process-guard.ts'],
  ['src/cli/main.ts', 'src/report/coverage.ts'],
  ['src/walker/classify.ts', 'src/frameworks/strands/sdk-internals.ts'],
  ['src/frameworks/strands/sdk-internals.ts', 'src/walker/safe-read.ts'],
  ['src/enforce/judge.ts', 'src/walker/safe-read.ts'],
  ['src/policy/load.ts', 'src/enforce/gate.ts'],
  ['src/policy/shell/programs/git.ts', 'src/policy/shell/programs/options.ts'],
  ['src/policy/shell/programs/git.ts', 'src/policy/own-entry.ts'],
  ['src/frameworks/seam.ts', 'src/errors.ts', 'type'],
  ['src/frameworks/strands/sdk-version.ts', 'src/frameworks/versions.ts'],
  ['src/frameworks/strands/sdk-package.ts', 'node:path'],
  ['src/auditing.ts', 'src/walker/marks.ts'],
  ['src/vitest.ts', 'src/report/audit.ts'],
  ['src/vitest.ts', 'vitest'],
  ['src/langgraph.ts', 'src/frameworks/langgraph/install.ts'],
  ['src/langgraph.ts', 'src/policy/load.ts'],
];

/** The names of the rules `npm run lint` checks. */
const RULES = (
  createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] }
).forbidden.map((rule) => rule.name);

describe('the import rules', () => {
  const refused = cruise(REFUSED.flatMap(([, from, to, imports]) => imports ?? [[from, to] as const]));
  const allowed = cruise(ALLOWED);

  describe('when a file imports what a rule refuses', () => {
    it.each(REFUSED.map(([rule, from, to]) => [rule, from, to] as const))(
      '%s: refuses %s importing %s',
      (rule, from, to) => {
        expect(refused.get(`${from} -> ${to}`)).toContain(rule);
      },
    );

    it('breaks no rule but the one named, on no import but these', () => {
      const expected = new Map<string, string[]>();
      for (const [rule, from, to] of REFUSED) {
        const key = `${from} -> ${to}`;
        expected.set(key, [...(expected.get(key) ?? []), rule].sort());
      }
      expect(Object.fromEntries(refused)).toEqual(Object.fromEntries(expected));
    });
  });

  describe('when it imports what its whitelist names', () => {
    it('breaks no rule', () => {
      expect([...allowed.keys()]).toEqual([]);
    });
  });

  describe('when the config holds a rule', () => {
    it('has an import here that breaks it, and every rule named here is one of the config', () => {
      expect([...new Set(REFUSED.map(([rule]) => rule))].sort()).toEqual([...RULES].sort());
    });
  });
});
