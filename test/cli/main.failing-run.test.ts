/**
 * Every reason a run fails is visible in every format (issue 37, item 11), through the built command
 * (`dist/`) in its own process: a run that fails for `--require-gate`, `--fail-on-unaudited`, a module that
 * failed to load, an entry that invoked no agent, `--require-process-guard`, or a tree its module's own
 * `installMultiagent` refused (under `--min-coverage`, whose ratio it passes) writes an `::error` for it in
 * `github`, a failing result in SARIF and JUnit, the reason in text, Markdown, HTML and JSON, and no heading
 * or summary that says the run is fully gated or has nothing to fix.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateAudit, type Run, scratchFolder } from '../helpers/built-command.js';
import { CoverageReportSchema } from '../../src/report/schema.js';

const { scratch, at, rel } = scratchFolder('failing-run');

const FROM = '../../../fixtures';
const FORMATS = ['json', 'markdown', 'sarif', 'junit', 'github', 'html'] as const;

/** One run with the text report on stdout and every other format in a file of its own. */
async function everyFormat(name: string, args: string[]): Promise<Run & { files: Record<string, string> }> {
  const run = await gateAudit([
    ...args,
    '--reporter',
    'text',
    ...FORMATS.flatMap((f) => ['--reporter', `${f}=${at(`${name}/report.${f}`)}`]),
  ]);
  const files: Record<string, string> = {};
  for (const format of FORMATS) files[format] = readFileSync(at(`${name}/report.${format}`), 'utf8');
  return { ...run, files };
}

interface Sarif {
  runs: { results: { ruleId: string; level: string }[] }[];
}

/**
 * Checks that every format shows the run failing for a note of `kind` (`reason` the words the verdict uses),
 * and that none says the run is fully gated.
 */
function expectFailureShown(run: Run & { files: Record<string, string> }, kind: string, reason: RegExp): void {
  const { files } = run;
  // github: an ::error for the note, and a summary naming the reason.
  const github = files.github!.trimEnd().split('\n');
  expect(github.filter((l) => l.startsWith('::error ') && l.includes(`title=gate-audit%3A `)).length).toBeGreaterThan(
    0,
  );
  const notice = github.find((l) => l.startsWith('::notice ')) ?? '';
  expect(notice).toMatch(/the run fails: /);
  expect(notice).toMatch(reason);
  // SARIF: a failing result of the note's rule.
  const sarif = JSON.parse(files.sarif!) as Sarif;
  expect(
    sarif.runs[0]?.results.filter((r) => r.ruleId === `gate-audit/${kind}` && r.level === 'error').length,
  ).toBeGreaterThan(0);
  // JUnit: a failing case of the note's kind.
  const junit = new XMLParser({ ignoreAttributes: false }).parse(files.junit!) as {
    testsuites: { '@_failures': string };
  };
  expect(Number(junit.testsuites['@_failures'])).toBeGreaterThan(0);
  expect(files.junit).toMatch(new RegExp(`<failure type="${kind}"`));
  // JSON: the note, failing the run.
  const json = CoverageReportSchema.parse(JSON.parse(files.json!));
  expect(json.notes?.filter((n) => n.kind === kind && (n.fails === true || n.kind === 'load')).length).toBeGreaterThan(
    0,
  );
  // Text: the summary names the reason; Markdown and HTML: the heading says the run fails, and why.
  const summary = run.stdout.trimEnd().split('\n').at(-1) ?? '';
  expect(summary).toMatch(/the run fails: /);
  expect(summary).toMatch(reason);
  const heading = files.markdown!.split('\n')[0] ?? '';
  expect(heading).toMatch(/✘ the run fails: /);
  expect(heading).toMatch(reason);
  const verdict = /<span class="verdict" id="verdict">([^<]*)<\/span>/.exec(files.html!)?.[1] ?? '';
  expect(verdict).toMatch(/^✘ the run fails: /);
  for (const [format, output] of Object.entries({ text: run.stdout, ...files })) {
    expect(output, `${format} says the failing run is fully gated`).not.toMatch(/✔ (fully gated|nothing to fix)/);
    expect(output, `${format} says nothing is left to fix`).not.toMatch(/nothing to fix(?! in them)/);
  }
}

beforeAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  writeFileSync(
    at('factory.ts'),
    `import { graph } from "${FROM}/graphs/gated-app.js";\nexport { graph };\nexport const buildAnother = () => graph;\n`,
  );
  writeFileSync(at('quiet-entry.ts'), "console.log('started, invoked nothing');\n");
  writeFileSync(
    at('runs-ungarded.ts'),
    `import { graph } from "${FROM}/graphs/gated-app.js";\nawait graph.invoke('go');\n`,
  );
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('main (the gate-audit command)', () => {
  describe.concurrent('when a run fails for a reason outside its nodes', { timeout: 240_000 }, () => {
    it('--require-gate: every node gated, by another gate', async () => {
      const run = await everyFormat('require-gate', [
        'fixtures/graphs/gated-app.ts',
        '--require-gate',
        'another-policy',
      ]);
      expect(run.status).toBe(1);
      expectFailureShown(run, 'gate-mismatch', /nodes under another gate \(--require-gate\)/);
    });

    it('--fail-on-unaudited: an exported function not called', async () => {
      const run = await everyFormat('unaudited', [rel('factory.ts'), '--fail-on-unaudited']);
      expect(run.status).toBe(1);
      expectFailureShown(run, 'unaudited-export', /1 export not audited \(--fail-on-unaudited\)/);
    });

    it('a module that failed to load beside a fully gated one', async () => {
      const run = await everyFormat('load', [
        'fixtures/graphs/gated-app.ts',
        'fixtures/apps/unruly/exits-at-import.ts',
      ]);
      expect(run.status).toBe(2);
      expectFailureShown(run, 'load', /1 module or entry that failed to load/);
    });

    it('an entry that invoked no agent', async () => {
      const run = await everyFormat('no-agent', ['--entry', rel('quiet-entry.ts'), '--entry-settle', '300']);
      expect(run.status).toBe(2);
      expectFailureShown(run, 'load', /1 module or entry that failed to load/);
      expect(run.stdout).toMatch(/invoked no agent or orchestrator/);
    });

    it('--require-process-guard: an entry that runs its gated tree without the process guard', async () => {
      const run = await everyFormat('process-guard', [
        '--entry',
        rel('runs-ungarded.ts'),
        '--entry-settle',
        '300',
        '--require-process-guard',
      ]);
      expect(run.status).toBe(1);
      expectFailureShown(run, 'process-guard', /1 entry without the process guard \(--require-process-guard\)/);
    });

    it('a tree its module refused at import, under a --min-coverage its ratio passes', async () => {
      const run = await everyFormat('refused', [
        'fixtures/apps/partners/src/procurement.ts',
        'fixtures/graphs/gated-app.ts',
        '--min-coverage',
        '50',
      ]);
      expect(run.status).toBe(1);
      expectFailureShown(run, 'refused-tree', /1 tree installMultiagent refused/);
    });
  });

  describe.concurrent('when merge reads the shards of a failing run: it keeps what fails it (item 9)', {
    timeout: 240_000,
  }, () => {
    const modules = [
      'fixtures/apps/partners/src/procurement.ts',
      'fixtures/graphs/gated-app.ts',
      'fixtures/apps/unruly/exits-at-import.ts',
    ];

    it("exits as the single run over the same modules, for every reason, with the shards' refusal rows and load notes", async () => {
      // The shard each module lands in does not matter: two shards hold the three between them.
      const cases: [string, string[]][] = [
        ['refused under a ratio', [modules[0]!, modules[1]!, '--min-coverage', '50']],
        ['refused', [modules[0]!, modules[1]!]],
        ['refused under --exit-zero', [modules[0]!, modules[1]!, '--exit-zero']],
        ['load', [modules[1]!, modules[2]!, '--min-coverage', '50']],
        ['unaudited', [rel('factory.ts'), modules[0]!, '--fail-on-unaudited', '--min-coverage', '10']],
        ['require-gate', [modules[1]!, rel('factory.ts'), '--require-gate', 'another-policy', '--min-coverage', '10']],
      ];
      for (const [name, args] of cases) {
        const rule = args.filter(
          (a, i) => a === '--min-coverage' || a === '--exit-zero' || args[i - 1] === '--min-coverage',
        );
        const [whole, ...shards] = await Promise.all([
          gateAudit([...args, '--format', 'json', '--output-file', at(`merge/${name}/whole.json`)]),
          ...['1/2', '2/2'].map((s, i) =>
            gateAudit([...args, '--shard', s, '--format', 'json', '--output-file', at(`merge/${name}/s${i + 1}.json`)]),
          ),
        ]);
        if (!args.includes('--exit-zero')) expect(whole?.status, `${name}: the single run`).not.toBe(0);
        expect(shards.map((s) => s.stderr)).not.toContain('unexpected error');
        const merged = await gateAudit([
          'merge',
          at(`merge/${name}/s1.json`),
          at(`merge/${name}/s2.json`),
          ...rule,
          '--format',
          'json',
        ]);
        expect(merged.status, `${name}: merge exits as the single run`).toBe(whole?.status);
        const single = CoverageReportSchema.parse(JSON.parse(readFileSync(at(`merge/${name}/whole.json`), 'utf8')));
        const joined = CoverageReportSchema.parse(JSON.parse(merged.stdout));
        const kinds = (notes: typeof single.notes): string[] =>
          (notes ?? []).map((n) => `${n.kind}:${n.fails === true}`).sort();
        expect(kinds(joined.notes), `${name}: the notes`).toEqual(kinds(single.notes));
        expect(joined.refusals.map((r) => `${r.kind}:${r.path.at(-1)}`).sort()).toEqual(
          single.refusals.map((r) => `${r.kind}:${r.path.at(-1)}`).sort(),
        );
        expect(joined.nodes.map((n) => `${n.id}:${n.status}`).sort()).toEqual(
          single.nodes.map((n) => `${n.id}:${n.status}`).sort(),
        );
      }
    });
  });
});
