import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cli, root } from '../helpers/cli.js';
import { CoverageReportSchema } from '../../src/index.js';
import { sdkCopy } from '../helpers/sdk-copy.js';

const scratch = join(root, 'test/.generated/cli');

const modules: Record<string, string> = {
  'syntax-error.ts':
    "import { Graph } from '@strands-agents/sdk/multiagent';\nexport const graph = new Graph({ nodes: [ };\n",
  'throws.ts': "throw new Error('database is down');\n",
  'no-orchestrator.ts': 'export const answer = 42;\nexport function helper(x: number) { return x; }\n',
  'factory-throws.ts': "export function buildGraph() { throw new Error('missing API key'); }\n",
  'factory-hangs.ts': 'export function buildGraph() { return new Promise(() => undefined); }\n',
  'noisy.ts': [
    "import { Agent } from '@strands-agents/sdk';",
    "import { Graph } from '@strands-agents/sdk/multiagent';",
    "console.log('starting up, connecting to things');",
    "process.stdout.write('raw noise\\n');",
    "export const graph = new Graph({ id: 'noisy', nodes: [new Agent({ id: 'a', printer: false })], edges: [] });",
  ].join('\n'),
  'paths/tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@agents/*': ['./agents/*'] } } }),
  'paths/agents/writer.ts':
    "import { Agent } from '@strands-agents/sdk';\nexport const writer = new Agent({ id: 'aliased-writer', printer: false });\n",
  'paths/graph.ts': [
    "import { Graph } from '@strands-agents/sdk/multiagent';",
    "import { writer } from '@agents/writer';",
    "export const graph = new Graph({ id: 'aliased', nodes: [writer], edges: [] });",
  ].join('\n'),
};
const at = (name: string): string => `test/.generated/cli/${name}`;

beforeAll(() => {
  const copy = sdkCopy();
  modules['foreign-copy.ts'] = [
    `import { Agent } from '${join(copy, 'dist/src/index.js')}';`,
    `import { Graph } from '${join(copy, 'dist/src/multiagent/index.js')}';`,
    "export const graph = new Graph({ id: 'foreign', nodes: [new Agent({ id: 'a', printer: false })], edges: [] });",
  ].join('\n');
  rmSync(scratch, { recursive: true, force: true });
  for (const [name, text] of Object.entries(modules)) {
    mkdirSync(dirname(join(scratch, name)), { recursive: true });
    writeFileSync(join(scratch, name), text);
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  return () => vi.restoreAllMocks();
});

describe('gate-audit <module>', () => {
  describe('when it audits a bundled fixture', () => {
    it('gate-audit fixtures/graphs/gated-app.ts exits 0 and shows every node gated', async () => {
      const { code, out } = await cli('fixtures/graphs/gated-app.ts');
      expect(code).toBe(0);
      expect(out).toContain('✔   research-team  swarm      gated');
      expect(out).toMatch(
        /coverage 100% of 4 tool-running nodes \(4 gated\) · 2 orchestrators \(2 gated\) · 6 nodes, nothing to fix/,
      );
    });

    it('gate-audit fixtures/graphs/mixed-graph.ts exits 1 and names the ungated agent with its fix', async () => {
      const { code, out } = await cli('fixtures/graphs/mixed-graph.ts');
      expect(code).toBe(1);
      expect(out).toMatch(/✘ {3}publisher +agent +ungated +runs its tools without a gate/);
      expect(out).toContain('fix: call installMultiagent(root) at startup, or give the agent a GatePlugin');
    });

    it('gate-audit fixtures/graphs/late-node-graph.ts reports the swapped node as blocked', async () => {
      const { code, out } = await cli('fixtures/graphs/late-node-graph.ts');
      expect(code).toBe(1);
      expect(out).toMatch(/■ {3}drafter +agent +blocked/);
    });

    it('gate-audit fixtures/graphs/remote-graph.ts reports the A2A node as ungateable', async () => {
      const { code, out } = await cli('fixtures/graphs/remote-graph.ts');
      expect(code).toBe(1);
      expect(out).toMatch(/⊘ {3}partner-agent +remote +ungateable +is an A2AAgent/);
    });
  });

  describe('when given --exit-zero', () => {
    it('gate-audit --exit-zero reports without failing', async () => {
      const { code, out } = await cli('--exit-zero', 'fixtures/graphs/mixed-graph.ts');
      expect(code).toBe(0);
      expect(out).toContain('publisher');
    });
  });

  describe('when given --plan', () => {
    it('gate-audit --plan shows what installMultiagent would leave, or what it would refuse', async () => {
      const gated = await cli('--plan', 'fixtures/graphs/research-graph.ts');
      expect(gated.code).toBe(0);
      expect(gated.out).toContain('installMultiagent would install the gate');
      const refused = await cli('--plan', '--format', 'json', 'fixtures/graphs/custom-node-graph.ts');
      expect(refused.code).toBe(1);
      const report = CoverageReportSchema.parse(JSON.parse(refused.out));
      expect(report.mode).toBe('plan');
      expect(report.refusals.map((r) => `${r.path.join('/')}:${r.kind}`)).toEqual(['newsletter/formatter:custom-node']);
    });

    it('gate-audit --plan fixtures/graphs/custom-pipeline.ts exits 0 with the declared custom nodes attested', async () => {
      const planned = await cli('--plan', 'fixtures/graphs/custom-pipeline.ts');
      expect(planned.code).toBe(0);
      expect(planned.out.match(/^◇ +\S+ +custom +attested/gm)).toHaveLength(3);
      expect((await cli('fixtures/graphs/custom-pipeline.ts')).code).toBe(1);
      const undeclared = await cli('--plan', 'fixtures/graphs/custom-node-graph.ts');
      expect(undeclared.code).toBe(1);
      expect(undeclared.out).toContain("[Symbol.for('gate-audit.governs.v1')]() method returning { agents }");
    });
  });

  describe('when given --min-coverage', () => {
    it('gate-audit --min-coverage fails a run under the threshold', async () => {
      expect((await cli('--exit-zero', '--min-coverage', '80', 'fixtures/graphs/mixed-graph.ts')).code).toBe(0);
      expect((await cli('--min-coverage', '80', 'fixtures/graphs/gated-app.ts')).code).toBe(0);
      const run = await cli('--format', 'json', 'fixtures/graphs/mixed-graph.ts');
      expect(CoverageReportSchema.parse(JSON.parse(run.out)).summary.coverage).toBe(0.75);
    });

    it('gate-audit --min-coverage 100 on a run whose nodes are all gated exits 0, and 1 below it', async () => {
      const lateJson = CoverageReportSchema.parse(
        JSON.parse((await cli('--format', 'json', '--exit-zero', 'fixtures/graphs/late-node-graph.ts')).out),
      );
      expect(lateJson.summary.coverage).toBe(0.5);
    });
  });

  describe('when the module exports a factory', () => {
    it('gate-audit on a factory module calls the factory and says it builds per call', async () => {
      const { code, out } = await cli('--export', 'buildGraph', 'fixtures/graphs/factory-graph.ts');
      expect(code).toBe(1);
      expect(out).toContain('from fixtures/graphs/factory-graph.ts#buildGraph (factory: a new orchestrator per call)');
      expect((await cli('--export', 'gatedGraph', 'fixtures/graphs/factory-graph.ts')).code).toBe(0);
    });

    it('gate-audit --export default on an async default-export factory awaits it', async () => {
      const { code, out } = await cli(
        '--format',
        'json',
        '--export',
        'default',
        'fixtures/graphs/async-factory-graph.ts',
      );
      expect(code).toBe(1);
      const report = CoverageReportSchema.parse(JSON.parse(out));
      expect(report.sources).toEqual([
        {
          module: 'fixtures/graphs/async-factory-graph.ts',
          export: 'default',
          path: ['helpdesk'],
          factory: true,
          projectModule: 'fixtures/graphs/async-factory-graph.ts',
        },
      ]);
      expect(report.nodes.map((n) => n.path.join('/'))).toEqual(['helpdesk', 'helpdesk/intake', 'helpdesk/resolver']);
    });
  });

  describe('when given several modules and a glob', () => {
    it('gate-audit on several modules and a glob gives one combined report', async () => {
      const { out } = await cli('--format', 'json', 'fixtures/graphs/gated-app.ts', 'fixtures/graphs/support-*.ts');
      const report = CoverageReportSchema.parse(JSON.parse(out));
      expect(report.root).toEqual({ id: 'gate-audit', kind: 'bundle' });
      // Each root under one escaped segment: `module#export` with `/` and `#` written `%2F` and `%23`.
      expect(report.sources.map((s) => s.path[0])).toEqual([
        'fixtures%2Fgraphs%2Fgated-app.ts%23graph',
        'fixtures%2Fgraphs%2Fsupport-swarm.ts%23swarm',
      ]);
      expect(report.summary.total).toBe(10);
    });
  });

  describe('when an orchestrator comes from another copy of the SDK', () => {
    it('reports an orchestrator from another copy of the SDK as a finding, without crashing', async () => {
      const { code, out } = await cli('--format', 'json', at('foreign-copy.ts'));
      expect(code).toBe(1);
      const report = CoverageReportSchema.parse(JSON.parse(out));
      expect(report.nodes).toEqual([
        expect.objectContaining({ path: ['foreign'], status: 'ungateable', problem: 'sdk-mismatch' }),
      ]);
    });
  });

  describe('when the module imports through tsconfig paths', () => {
    it("gate-audit resolves the module's tsconfig paths", async () => {
      const { code, out } = await cli('--format', 'json', at('paths/graph.ts'));
      expect(code).toBe(1);
      expect(CoverageReportSchema.parse(JSON.parse(out)).nodes.map((n) => n.id)).toEqual(['aliased', 'aliased-writer']);
    });
  });

  describe('when the module prints to stdout', () => {
    it("keeps the module's own stdout output out of --format json", async () => {
      const { out, err } = await cli('--format', 'json', at('noisy.ts'));
      expect(() => JSON.parse(out) as unknown).not.toThrow();
      expect(err).toContain('starting up, connecting to things');
      expect(err).toContain('raw noise');
    });
  });

  describe('when given --output-file', () => {
    it('gate-audit --output-file writes the report there and a one-line note to stderr', async () => {
      const file = join(scratch, 'report.sarif');
      const { code, out, err } = await cli(
        '--format',
        'sarif',
        '--output-file',
        file,
        'fixtures/graphs/mixed-graph.ts',
      );
      expect(code).toBe(1);
      expect(out).toBe('');
      expect(err).toMatch(/wrote sarif report to .*report\.sarif \(3\/5 nodes gated\)/);
      expect((JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version).toBe('2.1.0');
    });
  });

  describe('when the input is bad: exit 2 and one readable line, no stack trace', () => {
    const cases: [string, string[], RegExp][] = [
      [
        'a missing file',
        ['nope/graph.ts'],
        /^gate-audit: cannot load "nope\/graph\.ts": no such file \| check the path\n$/,
      ],
      [
        'a syntax error',
        [at('syntax-error.ts')],
        /^gate-audit: cannot load ".*syntax-error\.ts": SyntaxError at test\/\.generated\/cli\/syntax-error\.ts:2:\d+.* \| fix the module so it loads/,
      ],
      [
        'a module that throws',
        [at('throws.ts')],
        /^gate-audit: cannot load ".*throws\.ts": Error: database is down \| fix the module so it loads \(gate-audit imports it as your app does\)\n$/,
      ],
      [
        'no orchestrator',
        [at('no-orchestrator.ts')],
        /^gate-audit: cannot audit ".*no-orchestrator\.ts": it exports no Graph, Swarm or Agent, and its function helper was not called \| name its factory: --export helper/,
      ],
      [
        'an unknown export',
        ['--export', 'nope', 'fixtures/graphs/gated-app.ts'],
        /has no export "nope" \| exports are: graph, policy/,
      ],
      [
        'a factory that throws',
        ['--export', 'buildGraph', at('factory-throws.ts')],
        /factory "buildGraph" threw Error: missing API key/,
      ],
      ['an unknown option', ['--bogus', 'fixtures/graphs/gated-app.ts'], /^gate-audit: unknown option '--bogus'/],
      [
        'an unknown format',
        ['--format', 'pdf', 'fixtures/graphs/gated-app.ts'],
        /argument 'pdf' is invalid. Allowed choices are text, json, markdown, sarif, junit, mermaid, dot, github, html, tui/,
      ],
      [
        'a bad percentage',
        ['--min-coverage', 'lots', 'fixtures/graphs/gated-app.ts'],
        /expected a percentage from 0 to 100/,
      ],
      ['no module at all', [], /missing required argument 'module'/],
      [
        'a glob matching nothing',
        ['fixtures/graphs/*.nothing.ts'],
        /no module matches "fixtures\/graphs\/\*\.nothing\.ts"/,
      ],
    ];
    for (const [what, argv, message] of cases) {
      it(what, async () => {
        const { code, out, err } = await cli(...argv);
        expect(code).toBe(2);
        expect(out).toBe('');
        expect(err).toMatch(message);
        expect(err).not.toMatch(/\n\s+at /);
      });
    }

    it('prints the stack with --debug', async () => {
      const { code, err } = await cli('--debug', at('throws.ts'));
      expect(code).toBe(2);
      expect(err).toMatch(/\n\s+at /);
    });
  });

  describe('when asked for --help or --version', () => {
    it('gate-audit --help and --version exit 0', async () => {
      const help = await cli('--help');
      expect(help.code).toBe(0);
      expect(help.out).toContain('1  a node is ungated, ungateable or blocked, or an orchestrator is not gated');
      const version = await cli('--version');
      expect(version.code).toBe(0);
      expect(version.out.trim()).toMatch(/^gate-audit \d+\.\d+\.\d+\n@strands-agents\/sdk /);
    });
  });
});
