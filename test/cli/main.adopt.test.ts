/**
 * The CLI a real project adopts (issue 19), through the built command (`dist/`, `npm test` builds it) in
 * its own process, on the fixture apps in `fixtures/apps/`: a config file, file selection, loading that
 * runs no user function unless asked, one load for every report, SARIF a code-scanning upload can use.
 * Independent runs start together (a few at a time); each test reads its own.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoverageReportSchema } from '../../src/index.js';
import { helpdeskGateAudit, reportOf as json, slot } from '../helpers/built-command.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/gate-audit.js');
const scratch = join(root, 'test/.generated/adopt');
const helpdesk = join(root, 'fixtures/apps/helpdesk');
const partners = join(root, 'fixtures/apps/partners');
const marker = join(scratch, 'jobs-ran.txt');

/** Runs the built command; every run can tell the helpdesk app's jobs where to note that they ran. */
const gateAudit = helpdeskGateAudit(marker);

/** The 1-based line of the first line of `file` that contains `text`. */
function lineOf(file: string, text: string): number {
  const index = readFileSync(join(root, file), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(text));
  expect(index, `${text} in ${file}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/** Runs `gate-audit --watch ...args` in `dir` while `check` looks at its output, then stops it with SIGINT. */
async function watching(
  dir: string,
  args: string[],
  check: (run: {
    stdout: () => string;
    stderr: () => string;
    until: (done: () => boolean) => Promise<void>;
  }) => Promise<void>,
): Promise<void> {
  const release = await slot();
  const child = spawn(process.execPath, [bin, '--watch', ...args], {
    cwd: dir,
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const until = async (done: () => boolean): Promise<void> => {
    for (let i = 0; i < 600 && !done(); i += 1) await new Promise((r) => setTimeout(r, 100));
  };
  try {
    await check({ stdout: () => stdout, stderr: () => stderr, until });
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.on('close', r));
    release();
  }
}

function write(path: string, text: string): string {
  const file = join(scratch, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const sarifOf = (file: string): Sarif => JSON.parse(readFileSync(file, 'utf8')) as Sarif;
interface Sarif {
  runs: {
    results: {
      ruleId: string;
      level: string;
      message: { text: string };
      locations: {
        physicalLocation?: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number } };
        logicalLocations?: { name: string }[];
      }[];
      suppressions?: { justification: string }[];
    }[];
    invocations: { executionSuccessful: boolean; toolExecutionNotifications?: { message: { text: string } }[] }[];
  }[];
}

beforeAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('gate-audit, as a project adopts it', () => {
  describe.concurrent('when it reads a configuration', { timeout: 240_000 }, () => {
    it('gate-audit (no arguments) in fixtures/apps/helpdesk reads gate-audit.config.ts: include, exclude, factories with arguments', async () => {
      const run = await gateAudit(['--format', 'json'], { cwd: helpdesk });
      expect(run.stderr).not.toContain('a test file was imported');
      expect(run.status).toBe(0);
      const report = json(run);
      expect(report.sources.map((s) => `${s.module}#${s.export}`)).toEqual([
        'src/kb-agent.ts#kbAgent',
        'src/support.ts#support',
        'src/tenant.ts#graph',
        "src/tenant.ts#buildTenantGraph('acme')",
      ]);
      // The factory was called with the argument the config gives, and its Graph audited.
      expect(report.nodes.map((n) => n.id)).toContain('tenant-acme');
      // exclude: the legacy Graph (ungated) was never loaded.
      expect(report.nodes.map((n) => n.id)).not.toContain('old-desk');
      expect(report.notes?.filter((n) => n.kind === 'skipped-module').map((n) => n.module)).toEqual([
        'src/jobs.ts',
        'src/policy.ts',
        'src/util/format.ts',
      ]);
    });

    it('gate-audit --config <file> reads that file, with paths relative to it', async () => {
      const run = await gateAudit(['--config', 'fixtures/apps/helpdesk/gate-audit.config.ts', '--format', 'json']);
      expect(run.status).toBe(0);
      expect(json(run).sources.map((s) => s.module)).toContain('fixtures/apps/helpdesk/src/support.ts');
    });

    it('reads the "gate-audit" key of package.json (fixtures/apps/pkg-key)', async () => {
      const run = await gateAudit(['--format', 'json'], { cwd: join(root, 'fixtures/apps/pkg-key') });
      expect(run.status).toBe(1);
      expect(json(run).nodes.map((n) => `${n.id}:${n.status}`)).toEqual(['desk:ungated']);
    });

    it('flags override the config', async () => {
      const dir = join(scratch, 'override');
      write(
        'override/gate-audit.config.json',
        JSON.stringify({
          include: ['../../../../fixtures/graphs/factory-graph.ts'],
          failOnUnaudited: true,
          reporters: [{ format: 'json' }],
        }),
      );
      const fromConfig = await gateAudit([], { cwd: dir });
      expect(fromConfig.status).toBe(1);
      expect(() => JSON.parse(fromConfig.stdout) as unknown).not.toThrow();
      const overridden = await gateAudit(['--no-fail-on-unaudited', '--format', 'text'], { cwd: dir });
      expect(overridden.status).toBe(0);
      expect(overridden.stdout).toContain('1 export not audited');
    });

    describe.concurrent('when the configuration is invalid: exit 2, one line naming the file and the field', {
      timeout: 240_000,
    }, () => {
      const cases: [string, string, unknown, RegExp][] = [
        [
          'an unknown key, with a did-you-mean',
          'gate-audit.config.json',
          { include: ['x.ts'], minCoverag: 80 },
          /^gate-audit: config=<gate-audit\.config\.json>, field=<minCoverag> \| unknown key \| did you mean "minCoverage"\?\n$/,
        ],
        [
          'an unknown key of a reporter',
          'gate-audit.config.json',
          { include: ['x.ts'], reporters: [{ format: 'sarif', outputFlie: 'a.sarif' }] },
          /^gate-audit: config=<gate-audit\.config\.json>, field=<reporters\[0\]\.outputFlie> \| unknown key \| did you mean "outputFile"\?\n$/,
        ],
        [
          'a fraction for a percentage',
          'gate-audit.config.json',
          { include: ['x.ts'], minCoverage: 0.8 },
          /field=<minCoverage> \| expected a percentage from 0 to 100, got the fraction 0\.8 \| write 80 for 80%/,
        ],
        [
          'a wrong type',
          'gate-audit.config.json',
          { include: ['x.ts'], timeout: '5s' },
          /^gate-audit: config=<gate-audit\.config\.json>, field=<timeout> \| .*expected number/,
        ],
        [
          'a factories value of the wrong shape',
          'gate-audit.config.json',
          { include: ['x.ts'], factories: { 'x.ts#build': ['acme'] } },
          /field=<factories(\.x\.ts#build\[0\])?> \| /,
        ],
        [
          'an unknown key in package.json#gate-audit',
          'package.json',
          { name: 'x', 'gate-audit': { includ: ['x.ts'] } },
          /^gate-audit: config=<package\.json#gate-audit>, field=<includ> \| unknown key \| did you mean "include"\?\n$/,
        ],
      ];
      for (const [what, file, content, message] of cases) {
        it(what, async () => {
          const dir = `bad-config/${what.replace(/\W+/g, '-')}`;
          write(`${dir}/${file}`, JSON.stringify(content));
          const run = await gateAudit([], { cwd: join(scratch, dir) });
          expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
          expect(run.stderr).toMatch(message);
          expect(run.stderr).not.toMatch(/\n\s+at /);
        });
      }

      it('invalid JSON, a config module without a default export, two configs in one folder', async () => {
        write('bad-config/json/gate-audit.config.json', '{ "include": [ }');
        write('bad-config/no-default/gate-audit.config.mjs', 'export const include = ["x.ts"];\n');
        write('bad-config/two/gate-audit.config.json', '{}');
        write('bad-config/two/gate-audit.config.mjs', 'export default {};\n');
        const [invalid, noDefault, two] = await Promise.all(
          ['json', 'no-default', 'two'].map((dir) => gateAudit([], { cwd: join(scratch, 'bad-config', dir) })),
        );
        expect(invalid?.status).toBe(2);
        expect(invalid?.stderr).toMatch(
          /^gate-audit: config=<gate-audit\.config\.json> \| invalid JSON: .* \| fix the JSON\n$/,
        );
        expect(noDefault?.status).toBe(2);
        expect(noDefault?.stderr).toMatch(/^gate-audit: config=<gate-audit\.config\.mjs> \| it has no default export/);
        expect(two?.status).toBe(2);
        expect(two?.stderr).toMatch(
          /two configurations in one folder: gate-audit\.config\.mjs and gate-audit\.config\.json \| keep one/,
        );
      });
    });

    it('a bare factory name is a config warning (it applies to every module)', async () => {
      write(
        'bare/gate-audit.config.json',
        JSON.stringify({ include: ['../../../../fixtures/graphs/factory-graph.ts'], factories: ['buildGraph'] }),
      );
      const run = await gateAudit([], { cwd: join(scratch, 'bare') });
      expect(run.stderr).toContain(
        'gate-audit: config=<gate-audit.config.json>, field=<factories[0]> | "buildGraph" names no module, so it is called in every module that exports it',
      );
      expect(run.stdout).toContain('per-request');
      expect(run.status).toBe(1);
    });
  });

  describe.concurrent('when it selects the files to audit', { timeout: 240_000 }, () => {
    it('a folder: every module inside, tests skipped, modules with nothing to audit skipped with a note', async () => {
      const run = await gateAudit(['--format', 'json', 'fixtures/apps/helpdesk/src']);
      expect(run.stderr).not.toContain('a test file was imported');
      // The legacy Graph (no exclude without the config) is ungated: exit 1, not 2.
      expect(run.status).toBe(1);
      const report = json(run);
      expect(report.nodes.find((n) => n.id === 'old-desk')?.status).toBe('ungated');
      expect(report.notes?.filter((n) => n.kind === 'skipped-module').map((n) => n.module)).toEqual([
        'fixtures/apps/helpdesk/src/jobs.ts',
        'fixtures/apps/helpdesk/src/policy.ts',
        'fixtures/apps/helpdesk/src/util/format.ts',
      ]);
    });

    it('negated globs and --ignore leave files out', async () => {
      const run = await gateAudit([
        '--format',
        'json',
        'fixtures/apps/helpdesk/src/**/*.ts',
        '!**/legacy/**',
        '--ignore',
        '**/*.test.ts',
      ]);
      expect(run.status).toBe(0);
      expect(json(run).nodes.map((n) => n.id)).not.toContain('old-desk');
      const unignored = await gateAudit(['fixtures/apps/helpdesk/src/**/*.ts', '!**/legacy/**']);
      expect(unignored.status).toBe(2);
      expect(unignored.stderr).toContain('a test file was imported');
    });

    it('the same file named twice, through a glob and through a symlink, is audited once', async () => {
      symlinkSync(join(helpdesk, 'src/support.ts'), join(scratch, 'support-link.ts'));
      const run = await gateAudit([
        '--format',
        'json',
        'fixtures/apps/helpdesk/src/support.ts',
        './fixtures/apps/helpdesk/src/support.ts',
        'fixtures/apps/helpdesk/src/support.{ts,js}',
        'test/.generated/adopt/support-link.ts',
      ]);
      expect(run.status).toBe(0);
      const report = json(run);
      expect(report.sources).toHaveLength(1);
      expect(report.summary.total).toBe(4);
    });

    it('a file named explicitly that exports no orchestrator is exit 2, with the fix naming its factory', async () => {
      const run = await gateAudit(['fixtures/apps/helpdesk/src/jobs.ts']);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^gate-audit: cannot audit "fixtures\/apps\/helpdesk\/src\/jobs\.ts": it exports no Graph, Swarm or Agent, and its functions main, purgeCache were not called \| name its factory: --export main/,
      );
    });

    it('a pattern that matches nothing is exit 2, unless --no-error-on-unmatched-pattern', async () => {
      const [strict, lenient] = await Promise.all([
        gateAudit(['fixtures/apps/helpdesk/src/kb-agent.ts', 'fixtures/apps/nowhere/**/*.ts']),
        gateAudit([
          '--no-error-on-unmatched-pattern',
          'fixtures/apps/helpdesk/src/kb-agent.ts',
          'fixtures/apps/nowhere/**/*.ts',
        ]),
      ]);
      expect(strict.status).toBe(2);
      expect(strict.stderr).toContain('no module matches "fixtures/apps/nowhere/**/*.ts"');
      expect(lenient.status).toBe(0);
      expect(lenient.stderr).toContain('no module matches "fixtures/apps/nowhere/**/*.ts" (passed over');
    });

    it('a module that exports a single Agent is audited', async () => {
      const run = await gateAudit(['--format', 'json', 'fixtures/apps/helpdesk/src/kb-agent.ts']);
      expect(run.status).toBe(0);
      const report = json(run);
      expect(report.root).toEqual({ id: 'kb', kind: 'agent' });
      expect(report.nodes.map((n) => `${n.id}:${n.status}`)).toEqual(['kb:gated']);
    });
  });

  describe('when a module exports functions: none is called unless asked', { timeout: 240_000 }, () => {
    it('calls no exported function unless asked: the jobs never run, and each is reported as not audited', async () => {
      rmSync(marker, { force: true });
      const run = await gateAudit(['fixtures/apps/helpdesk/src']);
      expect(existsSync(marker)).toBe(false);
      expect(run.stdout).toContain(
        'not audited: fixtures/apps/helpdesk/src/jobs.ts#purgeCache: was not called, so what it builds was not audited | to audit what it builds: --export purgeCache, --call-factories, or factories: ["fixtures/apps/helpdesk/src/jobs.ts#purgeCache"] in the config',
      );
      expect(run.stdout).toMatch(/ · 4 exports not audited · 3 modules skipped\n$/);
    });

    it('--call-factories opts in to calling every zero-argument export; --export names one', async () => {
      rmSync(marker, { force: true });
      const all = await gateAudit(['--call-factories', 'fixtures/apps/helpdesk/src']);
      expect(readFileSync(marker, 'utf8').split('\n').sort()).toEqual(['', 'main', 'purgeCache']);
      expect(all.status).toBe(1);
      const named = await gateAudit(['--export', 'purgeCache', 'fixtures/apps/helpdesk/src/jobs.ts']);
      expect(named.status).toBe(2);
      expect(named.stderr).toContain(
        '"fixtures/apps/helpdesk/src/jobs.ts#purgeCache": it returned undefined, not a Graph, Swarm or Agent',
      );
    });
  });

  describe.concurrent('when it reads what a module exports', { timeout: 240_000 }, () => {
    it('a gated instance beside an ungated factory does not read as 100% with nothing said; --fail-on-unaudited fails it', async () => {
      const [plain, strict] = await Promise.all([
        gateAudit(['fixtures/graphs/factory-graph.ts']),
        gateAudit(['--fail-on-unaudited', 'fixtures/graphs/factory-graph.ts']),
      ]);
      // gatedGraph is a gatedFactory: called (the user declared it a factory); buildGraph is not.
      expect(plain.stdout).toContain('from fixtures/graphs/factory-graph.ts#gatedGraph (factory');
      expect(plain.stdout).toMatch(/coverage 100% of 2 tool-running nodes .* · 1 export not audited\n$/);
      expect(plain.status).toBe(0);
      expect(strict.status).toBe(1);
    });

    it('a factory that takes arguments is listed with the fix to give them', async () => {
      const run = await gateAudit(['fixtures/apps/helpdesk/src/tenant.ts']);
      expect(run.stdout).toContain(
        'not audited: fixtures/apps/helpdesk/src/tenant.ts#buildTenantGraph: takes 1 argument, was not called, so what it builds was not audited | to audit what it builds, give its arguments: factories: { "fixtures/apps/helpdesk/src/tenant.ts#buildTenantGraph": [[…]] }',
      );
    });

    it('a run that audits no orchestrator at all exits 2', async () => {
      const run = await gateAudit(['fixtures/apps/helpdesk/src/util']);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^gate-audit: nothing was audited \(1 module loaded, 1 skipped with nothing to audit, exports not audited: .*format\.ts#formatTicket\) \| /,
      );
    });

    it('a tree the module refuses at import (its own installMultiagent) is rendered as findings, exit 1', async () => {
      const run = await gateAudit(['fixtures/apps/partners/src/procurement.ts']);
      expect(run.status).toBe(1);
      expect(run.stdout).toMatch(
        /⊘ partner-agent +remote +ungateable +is an A2AAgent.*installMultiagent refused the tree while the module loaded/,
      );
      expect(run.stdout).toContain('fix: gate the agent on its own server');
      expect(run.stderr).not.toContain('--export');
    });

    it("--debug shows the module's own stack, not only gate-audit's frames", async () => {
      write(
        'throws-at-import.ts',
        "function connect(): never {\n  throw new Error('database is down');\n}\nconnect();\nexport const x = 1;\n",
      );
      const [plain, debug] = await Promise.all([
        gateAudit(['test/.generated/adopt/throws-at-import.ts']),
        gateAudit(['--debug', 'test/.generated/adopt/throws-at-import.ts']),
      ]);
      expect(plain.stderr).toMatch(/database is down \| fix the module so it loads/);
      expect(plain.stderr).not.toContain('--export');
      expect(debug.stderr).toMatch(/at connect \(.*throws-at-import\.ts:2:\d+\)/);
    });

    it('--timeout bounds the whole import: a top-level await that never settles is a load failure (exit 2)', async () => {
      const run = await gateAudit(['--timeout', '1500', 'fixtures/apps/slow-start/waits-forever.ts']);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        'gate-audit: load failed: fixtures/apps/slow-start/waits-forever.ts: importing it did not finish within 1500 ms',
      );
      expect(run.stdout).toContain('load failed: fixtures/apps/slow-start/waits-forever.ts');
    });

    it('a missing dependency gets its own fix, not --export', async () => {
      write('missing-dep.ts', "import 'left-pad-that-is-not-installed';\nexport const x = 1;\n");
      const run = await gateAudit(['test/.generated/adopt/missing-dep.ts']);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        '| install the missing dependency (npm i left-pad-that-is-not-installed) or fix the import',
      );
    });

    it('a .cts module that requires the SDK is audited with the same classes, not as "a different copy"', async () => {
      const run = await gateAudit(['--format', 'json', 'fixtures/apps/legacy-cjs/graph.cts']);
      expect(run.status).toBe(1);
      expect(json(run).nodes.map((n) => `${n.id}:${n.status}`)).toEqual([
        'legacy-desk:ungated',
        'clerk:ungated',
        'archivist:ungated',
      ]);
    });
  });

  describe.concurrent('when the configuration accepts nodes', { timeout: 240_000 }, () => {
    it('the config entry turns the remote node into accepted, with its reason; an entry for a module not loaded is no error', async () => {
      const run = await gateAudit(['--format', 'json'], { cwd: partners });
      const report = json(run);
      const partner = report.nodes.find((n) => n.id === 'partner-agent');
      expect(partner?.status).toBe('accepted');
      expect(partner?.reason).toContain("gated on the partner's own server (contract P-12)");
      expect(report.summary.accepted).toBe(1);
    });

    it('an entry that matches nothing in the modules of this run is exit 2, with a did-you-mean', async () => {
      write(
        'stale-accept/gate-audit.config.json',
        JSON.stringify({
          include: ['../../../../fixtures/apps/partners/src/sourcing.ts'],
          accept: [{ path: 'procurement/partner-agnt', reason: 'typo' }],
        }),
      );
      const run = await gateAudit([], { cwd: join(scratch, 'stale-accept') });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^gate-audit: config=<gate-audit\.config\.json>, field=<accept\[0\]\.path> \| "procurement\/partner-agnt" matches no node of the modules loaded in this run \| did you mean "procurement\/partner-agent"\?/,
      );
    });
  });

  describe.concurrent('when an accept entry names what may not be accepted', { timeout: 240_000 }, () => {
    it('an entry on a local agent that could be gated is exit 2, naming the config and the module', async () => {
      write(
        'accept-local/gate-audit.config.json',
        JSON.stringify({
          include: ['../../../../fixtures/apps/partners/src/sourcing.ts'],
          accept: [{ path: 'procurement/scout', reason: 'we trust it' }],
        }),
      );
      const run = await gateAudit([], { cwd: join(scratch, 'accept-local') });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^gate-audit: config=<gate-audit\.config\.json>, field=<accept\[0\]> \| in ".*sourcing\.ts#graph": .*procurement\/scout/,
      );
    });
  });

  describe.concurrent('when one run writes its reports', { timeout: 240_000 }, () => {
    describe('when given several reporters', () => {
      it('--reporter (repeatable): one load of the modules, several outputs, output folders created', async () => {
        write(
          'loud.ts',
          "import { buildMixedGraph } from '../../../fixtures/graphs/mixed-graph.js';\nconsole.error('loading loud.ts');\nexport const graph = buildMixedGraph();\n",
        );
        const out = join(scratch, 'reports/nested');
        const run = await gateAudit([
          'test/.generated/adopt/loud.ts',
          '--reporter',
          'text',
          '--reporter',
          `json=${out}/coverage.json`,
          '--reporter',
          `sarif=${out}/deeper/coverage.sarif`,
        ]);
        expect(run.status).toBe(1);
        expect(run.stderr.match(/loading loud\.ts/g)).toHaveLength(1);
        expect(run.stdout).toContain('publisher');
        expect(
          CoverageReportSchema.parse(JSON.parse(readFileSync(`${out}/coverage.json`, 'utf8'))).summary.ungated,
        ).toBe(2);
        expect(sarifOf(`${out}/deeper/coverage.sarif`).runs[0]?.results.length).toBe(2);
      });

      it("the config's reporters", async () => {
        write(
          'config-reporters/gate-audit.config.json',
          JSON.stringify({
            include: ['../../../../fixtures/graphs/mixed-graph.ts'],
            reporters: [{ format: 'markdown' }, { format: 'junit', outputFile: 'out/junit.xml' }],
          }),
        );
        const run = await gateAudit([], { cwd: join(scratch, 'config-reporters') });
        expect(run.status).toBe(1);
        expect(run.stdout).toMatch(/^## gate-audit audit/);
        expect(readFileSync(join(scratch, 'config-reporters/out/junit.xml'), 'utf8')).toContain('<testsuite');
      });

      it('refuses every output that would overwrite an input (the module, a file it imports, the config, through a symlink), and then writes nothing', async () => {
        const module = write(
          'refuse/app.ts',
          "import { tools } from './tools.js';\nimport { buildMixedGraph } from '../../../../fixtures/graphs/mixed-graph.js';\nvoid tools;\nexport const graph = buildMixedGraph();\n",
        );
        const helper = write('refuse/tools.ts', 'export const tools = [];\n');
        const config = write('refuse/gate-audit.config.json', JSON.stringify({ include: ['app.ts'] }));
        symlinkSync(module, join(scratch, 'refuse/link.ts'));
        const before = [module, helper, config].map((f) => readFileSync(f, 'utf8'));
        const targets: [string, string][] = [
          ['app.ts', 'a loaded module'],
          ['tools.ts', 'a file a loaded module imports'],
          ['gate-audit.config.json', 'the configuration'],
          ['link.ts', 'a'],
        ];
        const runs = await Promise.all(
          targets.map(([target]) =>
            gateAudit(['--reporter', 'json=out/first.json', '--reporter', `sarif=${target}`], {
              cwd: join(scratch, 'refuse'),
            }),
          ),
        );
        runs.forEach((run, i) => {
          const [target, what] = targets[i]!;
          expect(run.status).toBe(2);
          expect(run.stderr).toMatch(new RegExp(`output=<${target.replace('.', '\\.')}> \\| it is ${what}`));
        });
        expect([module, helper, config].map((f) => readFileSync(f, 'utf8'))).toEqual(before);
        expect(existsSync(join(scratch, 'refuse/out'))).toBe(false);
      });

      it('two reports to stdout are a usage error', async () => {
        const run = await gateAudit(['--reporter', 'text', '--reporter', 'json', 'fixtures/graphs/gated-app.ts']);
        expect(run.status).toBe(2);
        expect(run.stderr).toContain('more than one report would go to stdout');
      });
    });

    describe('when writing SARIF', () => {
      it('SARIF: URIs relative to the project root under %SRCROOT%, each result at the line that defines its node', async () => {
        const file = join(scratch, 'sarif/mixed.sarif');
        const run = await gateAudit(['../../graphs/mixed-graph.ts', '--reporter', `sarif=${file}`], { cwd: helpdesk });
        expect(run.status).toBe(1);
        const results = sarifOf(file).runs[0]!.results;
        const note = results.find((r) => r.ruleId === 'gate-audit/unaudited-export');
        // The function not called is a result too, at its export.
        expect(note?.locations[0]?.physicalLocation?.region.startLine).toBe(
          lineOf('fixtures/graphs/mixed-graph.ts', 'export function buildMixedGraph'),
        );
        const at = results
          .filter((r) => r !== note)
          .map((r) => ({
            node: r.locations[0]?.logicalLocations?.[0]?.name,
            uri: r.locations[0]?.physicalLocation?.artifactLocation,
            line: r.locations[0]?.physicalLocation?.region.startLine,
          }));
        const uri = { uri: 'fixtures/graphs/mixed-graph.ts', uriBaseId: '%SRCROOT%' };
        expect(at).toEqual([
          { node: 'pricing', uri, line: lineOf('fixtures/graphs/mixed-graph.ts', "id: 'pricing'") },
          { node: 'publisher', uri, line: lineOf('fixtures/graphs/mixed-graph.ts', "id: 'publisher'") },
        ]);
      });

      it('SARIF: a node defined in an imported module points there; without a unique definition, at the export', async () => {
        const file = join(scratch, 'sarif/remote.sarif');
        write(
          'sarif-remote.ts',
          "import { buildRemoteGraph } from '../../../fixtures/graphs/remote-graph.js';\n\n\nexport const procurement = buildRemoteGraph();\n",
        );
        await gateAudit(['test/.generated/adopt/sarif-remote.ts', '--reporter', `sarif=${file}`]);
        const located = sarifOf(file).runs[0]!.results.map((r) => {
          const l = r.locations[0]?.physicalLocation;
          return `${r.locations[0]?.logicalLocations?.[0]?.name} ${l?.artifactLocation.uri}:${l?.region.startLine}`;
        });
        const remote = 'fixtures/graphs/remote-graph.ts';
        expect(located).toEqual([
          `procurement ${remote}:${lineOf(remote, "id: 'procurement'")}`,
          `scout ${remote}:${lineOf(remote, "id: 'scout'")}`,
          `partner-agent ${remote}:${lineOf(remote, "id: 'partner-agent'")}`,
        ]);
        // A node whose id is written nowhere (a default id) falls back to the export's line.
        write(
          'sarif-default-id.ts',
          "import { Agent } from '@strands-agents/sdk';\n\nexport const helper = new Agent({ printer: false });\n",
        );
        const fallback = join(scratch, 'sarif/default-id.sarif');
        await gateAudit(['test/.generated/adopt/sarif-default-id.ts', '--reporter', `sarif=${fallback}`]);
        const [only] = sarifOf(fallback).runs[0]!.results;
        expect(only?.locations[0]?.physicalLocation).toEqual({
          artifactLocation: { uri: 'test/.generated/adopt/sarif-default-id.ts', uriBaseId: '%SRCROOT%' },
          region: { startLine: 3 },
        });
      });

      it('SARIF: a load, usage or config error still writes a SARIF file naming it', async () => {
        write('sarif-throws.ts', "throw new Error('database is down');\n");
        const loadError = join(scratch, 'sarif/load-error.sarif');
        const usageError = join(scratch, 'sarif/usage-error.sarif');
        write(
          'sarif-config/gate-audit.config.json',
          JSON.stringify({ includ: ['x.ts'], reporters: [{ format: 'sarif', outputFile: 'out/config-error.sarif' }] }),
        );
        const [load, usage, config] = await Promise.all([
          gateAudit(['test/.generated/adopt/sarif-throws.ts', '--reporter', `sarif=${loadError}`]),
          gateAudit(['--bogus', '--format', 'sarif', '--output-file', usageError, 'fixtures/graphs/gated-app.ts']),
          gateAudit([], { cwd: join(scratch, 'sarif-config') }),
        ]);
        expect([load.status, usage.status, config.status]).toEqual([2, 2, 2]);
        for (const [file, text] of [
          [loadError, 'database is down'],
          [usageError, "unknown option '--bogus'"],
          [join(scratch, 'sarif-config/out/config-error.sarif'), 'field=<includ> | unknown key'],
        ] as const) {
          const run = sarifOf(file).runs[0]!;
          expect(run.results).toEqual([]);
          expect(run.invocations[0]?.executionSuccessful).toBe(false);
          expect(run.invocations[0]?.toolExecutionNotifications?.[0]?.message.text).toContain(text);
        }
      });
    });

    describe('when given --require-gate', () => {
      it('--require-gate <name>: exit 1 when a gated node runs under another gate (or one it cannot name), and says which', async () => {
        const run = await gateAudit(['--require-gate', 'app-policy', 'fixtures/apps/helpdesk/src/support.ts']);
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(
          /gate-audit: --require-gate "app-policy": \d+ gated nodes not under that gate: .*"support › triage"/,
        );
        expect(run.stdout).toContain('wrong gate: "support › triage": is gated');
      });

      it('--require-gate <name>: exit 0 when every gated node carries that gate, and names the other gate', async () => {
        const [same, other] = await Promise.all([
          gateAudit(['--require-gate', 'helpdesk-policy', 'fixtures/apps/helpdesk/src/support.ts']),
          gateAudit(['--require-gate', 'app-policy', 'fixtures/apps/helpdesk/src/support.ts']),
        ]);
        expect(same.status).toBe(0);
        expect(other.stdout).toContain('wrong gate: "support › triage": is gated by "helpdesk-policy"');
      });
    });

    describe('when given --quiet', () => {
      it('--quiet shows only the nodes that are not gated, and the summary', async () => {
        const run = await gateAudit(['--quiet', 'fixtures/graphs/mixed-graph.ts']);
        expect(run.status).toBe(1);
        expect(run.stdout).toContain('publisher');
        expect(run.stdout).not.toContain('collector');
        expect(run.stdout).toMatch(/coverage 75% of 4 tool-running nodes/);
      });
    });

    describe('when given --watch', () => {
      it('--watch audits again when a loaded module or a file it imports changes', async () => {
        const dir = join(scratch, 'watch');
        write('watch/agents.ts', "export const clerkId = 'clerk';\n");
        write(
          'watch/desk.ts',
          "import { Agent } from '@strands-agents/sdk';\nimport { clerkId } from './agents.js';\nexport const desk = new Agent({ id: clerkId, printer: false });\n",
        );
        await watching(dir, ['desk.ts'], async (run) => {
          await run.until(() => /watching 2 files/.test(run.stderr()));
          expect(run.stdout()).toMatch(/✘ clerk +agent +ungated/);
          writeFileSync(join(dir, 'agents.ts'), "export const clerkId = 'archivist';\n");
          await run.until(() => run.stdout().includes('archivist'));
          // What the watch said (a folder it could not watch, a run that failed) is the reason when this fails.
          expect(run.stdout(), run.stderr()).toMatch(/✘ archivist +agent +ungated/);
          expect(run.stderr()).toContain('a watched file changed, auditing again');
        });
      });

      it('--watch --entry audits again when a file the entry imports changes', async () => {
        const dir = join(scratch, 'watch-entry');
        write('watch-entry/ids.ts', "export const clerkId = 'clerk';\n");
        write(
          'watch-entry/main.ts',
          "import { Agent } from '@strands-agents/sdk';\nimport { clerkId } from './ids.js';\n" +
            "await new Agent({ id: clerkId, printer: false }).invoke('go');\n",
        );
        await watching(dir, ['--entry', 'main.ts'], async (run) => {
          await run.until(() => /watching \d+ files/.test(run.stderr()));
          expect(run.stdout()).toMatch(/✘ clerk +agent +ungated/);
          writeFileSync(join(dir, 'ids.ts'), "export const clerkId = 'archivist';\n");
          await run.until(() => run.stdout().includes('archivist'));
          // What the watch said (a folder it could not watch, a run that failed) is the reason when this fails.
          expect(run.stdout(), run.stderr()).toMatch(/✘ archivist +agent +ungated/);
        });
      });
    });

    describe('when given --output-file', () => {
      it('the output file of --output-file keeps working, in a folder that does not exist yet', async () => {
        const file = join(scratch, 'new/folder/report.md');
        const run = await gateAudit(['--format', 'markdown', '--output-file', file, 'fixtures/graphs/gated-app.ts']);
        expect(run.status).toBe(0);
        expect(statSync(file).size).toBeGreaterThan(0);
      });
    });
  });
});
