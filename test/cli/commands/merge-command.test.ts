/**
 * Reports from many jobs (issue 22 §4): `gate-audit --shard i/n` and `gate-audit merge`, through the built
 * command (`dist/`, `npm test` builds it) in its own process, on real fixture modules re-exported from a
 * scratch folder inside the project (so their project-relative paths, and so their shards, are fixed).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateAudit, reportOf as json, scratchFolder } from '../../helpers/built-command.js';
import { shardOf } from '../../../src/cli/run.js';
import { type CoverageReport, CoverageReportSchema } from '../../../src/index.js';

const { scratch, at, rel } = scratchFolder('merge');

const read = (name: string): CoverageReport => CoverageReportSchema.parse(JSON.parse(readFileSync(at(name), 'utf8')));
/** Every node as "module#export › path inside the module: status", independent of the report's layout. */
function statuses(report: CoverageReport): string[] {
  return report.nodes
    .map((node) => {
      const source = report.sources.find((s) => s.path.every((segment, i) => node.path[i] === segment));
      const inner = report.root.id === 'gate-audit' ? node.path.slice(source?.path.length ?? 0) : node.path;
      return `${source?.projectModule ?? '?'}#${source?.export ?? '?'} › ${inner.join('/')}: ${node.status}`;
    })
    .sort();
}

const GATED = 'export { graph } from "../../../fixtures/graphs/gated-app.js";\n';
const MIXED = 'export { graph } from "../../../fixtures/graphs/mixed-graph.js";\n';
const SWARM = 'export { swarm } from "../../../fixtures/graphs/support-swarm.js";\n';
const THREE = [rel('gated.ts'), rel('mixed.ts'), rel('swarm.ts')];

beforeAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'partners'), { recursive: true });
  writeFileSync(at('gated.ts'), GATED);
  writeFileSync(at('mixed.ts'), MIXED);
  writeFileSync(at('swarm.ts'), SWARM);
  mkdirSync(join(scratch, 'empty'));
  writeFileSync(at('empty/retry.ts'), 'export const retries = 3;\n');
  writeFileSync(at('empty/format.ts'), 'export const money = (n: number): string => n.toFixed(2);\n');
  writeFileSync(at('flaky.ts'), GATED);
  writeFileSync(at('partners/mixed.ts'), `export { graph } from "../../../../fixtures/graphs/mixed-graph.js";\n`);
  writeFileSync(
    at('partners/remote.ts'),
    `export { graph } from "../../../../fixtures/apps/partners/src/sourcing.js";\n`,
  );
  // The shards these paths hash to, which the tests below rely on.
  expect(THREE.map((p) => shardOf(p, 2))).toEqual([2, 1, 2]);
  expect(THREE.map((p) => shardOf(p, 3))).toEqual([3, 1, 1]);
  expect([rel('partners/mixed.ts'), rel('partners/remote.ts')].map((p) => shardOf(p, 2))).toEqual([1, 2]);
  // Shared by several tests: the unsharded run, its two shards, and three shards (shard 2/3 gets nothing).
  const runs = await Promise.all([
    gateAudit([...THREE, '--format', 'json', '--output-file', at('whole.json')]),
    gateAudit([...THREE, '--shard', '1/2', '--format', 'json', '--output-file', at('s1of2.json')]),
    gateAudit([...THREE, '--shard', '2/2', '--format', 'json', '--output-file', at('s2of2.json')]),
    gateAudit([...THREE, '--shard', '1/3', '--format', 'json', '--output-file', at('s1of3.json')]),
    gateAudit([...THREE, '--shard', '2/3', '--format', 'json', '--output-file', at('s2of3.json')]),
    gateAudit([...THREE, '--shard', '3/3', '--format', 'json', '--output-file', at('s3of3.json')]),
  ]);
  for (const run of runs) expect(run.stderr).not.toMatch(/unexpected error/);
  expect(runs.map((r) => r.status)).toEqual([1, 1, 1, 1, 0, 0]);
}, 240_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.concurrent('gate-audit --shard i/n', { timeout: 240_000 }, () => {
  describe('when the selected modules are split into shards', () => {
    it('splits the selected modules by a hash of their project-relative path: each once, none lost', () => {
      const shards = [read('s1of2.json'), read('s2of2.json')];
      expect(shards.map((s) => s.sources.map((source) => source.projectModule))).toEqual([
        [rel('mixed.ts')],
        [rel('gated.ts'), rel('swarm.ts')],
      ]);
      expect(shards.map((s) => s.shard?.index)).toEqual([1, 2]);
      expect(shards.map((s) => s.shard?.count)).toEqual([2, 2]);
      // One digest of the whole selected list, the same in every shard.
      expect(shards[0]?.shard?.modulesDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(shards[1]?.shard?.modulesDigest).toBe(shards[0]?.shard?.modulesDigest);
      expect(read('whole.json').shard).toBeUndefined();
    });

    it('a shard that gets no module writes an empty report and exits 0', () => {
      const empty = read('s2of3.json');
      expect(empty.nodes).toEqual([]);
      expect(empty.sources).toEqual([]);
      expect(empty.shard).toMatchObject({ index: 2, count: 3 });
      expect(empty.summary.total).toBe(0);
    });
  });

  describe('when --shard is malformed', () => {
    it('refuses a malformed --shard with exit 2', async () => {
      const run = await gateAudit([rel('gated.ts'), '--shard', '3/2']);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/--shard <i\/n>.*expected i\/n with 1 <= i <= n/);
    });
  });
});

describe.concurrent('gate-audit merge', { timeout: 240_000 }, () => {
  describe('when it merges the shards of one run', () => {
    it('writes the merged report as an HTML page too, with every merged node in its data', async () => {
      const run = await gateAudit(['merge', at('s1of2.json'), at('s2of2.json'), '--format', 'html']);
      expect(run.status).toBe(1);
      const data = /<script type="application\/json" id="gate-audit-report">([^<]*)<\/script>/.exec(run.stdout);
      const page = CoverageReportSchema.parse(JSON.parse(data?.[1] ?? 'null'));
      expect(statuses(page)).toEqual(statuses(read('whole.json')));
      expect(run.stdout).toContain('<svg');
    });

    it('joins the shards into the report the unsharded run writes, and exits by the same rule', async () => {
      const run = await gateAudit(['merge', at('s1of2.json'), at('s2of2.json'), '--format', 'json']);
      expect(run.status).toBe(1);
      const merged = json(run);
      const whole = read('whole.json');
      expect(statuses(merged)).toEqual(statuses(whole));
      expect(merged.summary).toEqual(whole.summary);
      expect(merged.shard).toBeUndefined();
      expect(run.stderr).toContain('2 reports (all 2 shards)');
      // Three shards, one of them empty, give the same.
      const three = await gateAudit([
        'merge',
        at('s3of3.json'),
        at('s1of3.json'),
        at('s2of3.json'),
        '--format',
        'json',
      ]);
      expect(three.status).toBe(1);
      expect(statuses(json(three))).toEqual(statuses(whole));
    });

    it('honours --exit-zero and --min-coverage (the exact ratio)', async () => {
      const shards = [at('s1of2.json'), at('s2of2.json')];
      // The support Swarm and the pricing Graph are not guarded: orchestrators fail even under a ratio.
      const [zero, ratio] = await Promise.all([
        gateAudit(['merge', ...shards, '--exit-zero', '--format', 'json']),
        gateAudit(['merge', ...shards, '--min-coverage', '0', '--format', 'json']),
      ]);
      expect(zero.status).toBe(0);
      expect(ratio.status).toBe(1);
    });

    it('exits 0 when every merged node is gated, and --min-coverage passes and fails on the exact ratio', async () => {
      const [half, gatedOnly] = await Promise.all([
        gateAudit(['fixtures/graphs/late-node-graph.ts', '--format', 'json', '--output-file', at('half.json')]),
        gateAudit([rel('gated.ts'), '--format', 'json', '--output-file', at('gated-only.json')]),
      ]);
      expect([half.status, gatedOnly.status]).toEqual([1, 0]);
      const [clean, plain, atRatio, aboveRatio] = await Promise.all([
        gateAudit(['merge', at('gated-only.json'), '--format', 'json']),
        gateAudit(['merge', at('half.json')]),
        gateAudit(['merge', at('half.json'), '--min-coverage', '50']),
        gateAudit(['merge', at('half.json'), '--min-coverage', '50.01']),
      ]);
      expect(clean.status).toBe(0);
      expect(plain.status).toBe(1);
      expect(atRatio.status).toBe(0);
      expect(aboveRatio.status).toBe(1);
    });
  });

  describe('when a shard is missing, disagrees or is given twice', () => {
    it('exits 2 when a shard is missing, naming it', async () => {
      const run = await gateAudit(['merge', at('s1of3.json'), at('s3of3.json')]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/shards=<2\/3> \| missing/);
      expect(run.stdout).toBe('');
    });

    it('exits 2 when shards disagree on the selected modules, or on the shard count', async () => {
      const other = await gateAudit([
        rel('gated.ts'),
        rel('mixed.ts'),
        '--shard',
        '2/2',
        '--format',
        'json',
        '--output-file',
        at('other-2of2.json'),
      ]);
      expect(other.status).toBe(0);
      const [list, count] = await Promise.all([
        gateAudit(['merge', at('s1of2.json'), at('other-2of2.json')]),
        gateAudit(['merge', at('s1of2.json'), at('s2of2.json'), at('s3of3.json')]),
      ]);
      expect(list.status).toBe(2);
      expect(list.stderr).toMatch(/other-2of2\.json> \| the shards disagree: it selected another module list/);
      expect(count.status).toBe(2);
      expect(count.stderr).toMatch(/the shards disagree: it is shard 3\/3/);
    });

    it('exits 2 for a shard given twice', async () => {
      const run = await gateAudit(['merge', at('s1of2.json'), at('s2of2.json'), at('s2of2.json')]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/shard 2\/2 is given twice/);
    });
  });

  describe('when jobs ran in different folders or disagree on a node', () => {
    it('keys by the module path from the project root, whatever folder a job ran in; identical duplicates collapse', async () => {
      const [fromRoot, fromScratch] = await Promise.all([
        gateAudit([rel('gated.ts'), '--format', 'json', '--output-file', at('job-a.json')]),
        gateAudit(['gated.ts', '--format', 'json', '--output-file', at('job-b.json')], scratch),
      ]);
      expect([fromRoot.status, fromScratch.status]).toEqual([0, 0]);
      expect(read('job-a.json').sources[0]?.module).toBe(rel('gated.ts'));
      expect(read('job-b.json').sources[0]?.module).toBe('gated.ts');
      expect(read('job-b.json').sources[0]?.projectModule).toBe(rel('gated.ts'));
      const [pair, same] = await Promise.all([
        gateAudit(['merge', at('job-a.json'), at('job-b.json'), '--format', 'json']),
        gateAudit(['merge', at('job-a.json'), at('job-a.json'), '--format', 'json']),
      ]);
      const once = read('job-a.json');
      for (const run of [pair, same]) {
        expect(run.status).toBe(0);
        expect(run.stderr).not.toContain('warning');
        const merged = json(run);
        expect(merged.sources).toHaveLength(1);
        expect(merged.nodes).toHaveLength(once.nodes.length);
        expect(statuses(merged)).toEqual(statuses(once));
      }
    });

    it('keeps the worse status where two jobs disagree on a node, with a warning', async () => {
      const before = await gateAudit([rel('flaky.ts'), '--format', 'json', '--output-file', at('flaky-gated.json')]);
      expect(before.status).toBe(0);
      // The same module, as another job's checkout has it: the Graph without its gate.
      writeFileSync(
        at('flaky.ts'),
        'import { buildResearchGraph } from "../../../fixtures/graphs/research-graph.js";\nexport const graph = buildResearchGraph();\n',
      );
      const after = await gateAudit([rel('flaky.ts'), '--format', 'json', '--output-file', at('flaky-ungated.json')]);
      expect(after.status).toBe(1);
      for (const order of [
        [at('flaky-gated.json'), at('flaky-ungated.json')],
        [at('flaky-ungated.json'), at('flaky-gated.json')],
      ]) {
        const run = await gateAudit(['merge', ...order, '--format', 'json']);
        expect(run.status).toBe(1);
        const merged = json(run);
        expect(merged.nodes.map((n) => n.status)).toEqual(read('flaky-ungated.json').nodes.map((n) => n.status));
        expect(merged.summary).toEqual(read('flaky-ungated.json').summary);
        expect(run.stderr).toMatch(
          /warning: reports disagree on "test\/\.generated\/merge\/flaky\.ts#graph › research\/planner": (gated|ungated) in .*; kept ungated, the worse/,
        );
      }
    });
  });

  describe('when the reports are of different kinds or schema versions', () => {
    it('refuses audit and plan reports together, and reports of another schema version, with exit 2', async () => {
      const plan = await gateAudit([rel('mixed.ts'), '--plan', '--format', 'json', '--output-file', at('plan.json')]);
      // The mixed graph's agents carry two gates (allow-all, deny-all): install would refuse it (GATE_CONFLICT),
      // and the plan says so.
      expect(plan.status).toBe(1);
      expect((JSON.parse(readFileSync(at('plan.json'), 'utf8')) as { mode: string }).mode).toBe('plan');
      const future = { ...read('whole.json'), schemaVersion: 3 };
      writeFileSync(at('future.json'), JSON.stringify(future));
      writeFileSync(at('broken.json'), '{"schemaVersion": 2, "mode": "audit"');
      const [mixed, version, broken] = await Promise.all([
        gateAudit(['merge', at('whole.json'), at('plan.json')]),
        gateAudit(['merge', at('whole.json'), at('future.json')]),
        gateAudit(['merge', at('broken.json')]),
      ]);
      expect(mixed.status).toBe(2);
      expect(mixed.stderr).toMatch(/plan\.json> \| it is a plan report, .*whole\.json an audit report/);
      expect(version.status).toBe(2);
      expect(version.stderr).toMatch(/future\.json> \| schemaVersion 3, this gate-audit reads 2/);
      expect(broken.status).toBe(2);
      expect(broken.stderr).toMatch(/broken\.json> \| cannot read it as JSON/);
    });
  });

  describe('when asked for SARIF, or to overwrite a report it reads', () => {
    it('writes one SARIF run pointing at the modules, and refuses to overwrite a report it reads', async () => {
      const run = await gateAudit([
        'merge',
        at('s1of2.json'),
        at('s2of2.json'),
        '--format',
        'sarif',
        '--output-file',
        at('merged.sarif'),
      ]);
      expect(run.status).toBe(1);
      const sarif = JSON.parse(readFileSync(at('merged.sarif'), 'utf8')) as {
        runs: { results: { locations: { physicalLocation?: { artifactLocation: { uri: string } } }[] }[] }[];
      };
      expect(sarif.runs).toHaveLength(1);
      const uris = new Set(
        sarif.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation?.artifactLocation.uri ?? '?'),
      );
      expect([...uris].sort()).toEqual([rel('mixed.ts'), rel('swarm.ts')]);
      const overwrite = await gateAudit([
        'merge',
        at('s1of2.json'),
        at('s2of2.json'),
        '--output-file',
        at('s1of2.json'),
      ]);
      expect(overwrite.status).toBe(2);
      expect(overwrite.stderr).toMatch(/it is a report this merge reads/);
      expect(read('s1of2.json').shard?.index).toBe(1);
    });
  });

  describe('when a run-wide check spans the shards', () => {
    it('says sdkTested only when every shard does', async () => {
      const untested = read('s1of2.json');
      writeFileSync(
        at('s1of2-untested.json'),
        JSON.stringify({ ...untested, generator: { ...untested.generator, sdkTested: false } }),
      );
      const [tested, mixed] = await Promise.all([
        gateAudit(['merge', at('s1of2.json'), at('s2of2.json'), '--format', 'json']),
        gateAudit(['merge', at('s1of2-untested.json'), at('s2of2.json'), '--format', 'json']),
      ]);
      expect(json(tested).generator?.sdkTested).toBe(true);
      expect(json(mixed).generator?.sdkTested).toBe(false);
    });

    it('runs "nothing audited" over all shards: empty shards alone exit 2, not 0', async () => {
      // A folder of modules with nothing to audit: skipped, so every shard is empty.
      const shards = await Promise.all(
        ['1/2', '2/2'].map((s, i) =>
          gateAudit([rel('empty'), '--shard', s, '--format', 'json', '--output-file', at(`helper-${i + 1}.json`)]),
        ),
      );
      expect(shards.flatMap((s) => s.stderr.match(/shard \d\/2: \d of 2/g) ?? [])).toHaveLength(2);
      expect(shards.map((s) => s.status)).toEqual([0, 0]);
      const run = await gateAudit(['merge', at('helper-1.json'), at('helper-2.json')]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/nothing was audited in any report/);
    });

    it('runs the stale-accept check over all shards: an entry some shard used is not stale, one no shard matched is', async () => {
      const dir = join(scratch, 'partners');
      writeFileSync(
        join(dir, 'gate-audit.config.json'),
        JSON.stringify({
          include: ['mixed.ts', 'remote.ts'],
          accept: [
            // No module: only the shard with remote.ts can use it; the other shard sees it unused.
            { path: 'procurement/partner-agent', reason: 'gated on the partner server' },
            { module: 'mixed.ts', path: 'pricing/publishr', reason: 'a typo' },
          ],
        }),
      );
      const shards = await Promise.all(
        ['1/2', '2/2'].map((s, i) =>
          gateAudit(['--shard', s, '--format', 'json', '--output-file', join(dir, `a${i + 1}.json`)], dir),
        ),
      );
      // A shard cannot tell, so neither exits 2 (both Graphs are unguarded: 1).
      expect(shards.map((s) => s.status)).toEqual([1, 1]);
      const stale = await gateAudit(['merge', join(dir, 'a1.json'), join(dir, 'a2.json')]);
      expect(stale.status).toBe(2);
      expect(stale.stderr).toMatch(
        /config=<gate-audit\.config\.json>, field=<accept\[1\]\.path> \| "pricing\/publishr" matches no node .* in any of the 2 shards \| did you mean "pricing\/publisher"\?/,
      );
      writeFileSync(
        join(dir, 'gate-audit.config.json'),
        JSON.stringify({
          include: ['mixed.ts', 'remote.ts'],
          accept: [{ path: 'procurement/partner-agent', reason: 'gated on the partner server' }],
        }),
      );
      await Promise.all(
        ['1/2', '2/2'].map((s, i) =>
          gateAudit(['--shard', s, '--format', 'json', '--output-file', join(dir, `b${i + 1}.json`)], dir),
        ),
      );
      const fine = await gateAudit(['merge', join(dir, 'b1.json'), join(dir, 'b2.json'), '--format', 'json']);
      expect(fine.status).toBe(1); // the pricing Graph is not gated
      expect(json(fine).nodes.find((n) => n.id === 'partner-agent')?.status).toBe('accepted');
    });
  });
});
