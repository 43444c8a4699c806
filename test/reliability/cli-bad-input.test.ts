/**
 * The CLI bad-input matrix, through the built command in its own process (as CI runs it): each bad input
 * gives exit 2 (or 1 for a coverage finding) with one line on stderr, no stack trace, and nothing on stdout
 * but a report. The same inputs through `main()` are pinned in `test/cli/main.test.ts`; here the process
 * boundary is real (a hanging factory with live timers must still exit, warnings must not leak, …).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoverageReportSchema } from '../../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = join(root, 'test/.generated/bad-input');
const bin = join(root, 'bin/gate-audit.js');
const at = (name: string): string => `test/.generated/bad-input/${name}`;

const sdk = [
  "import { Agent } from '@strands-agents/sdk';",
  "import { Graph, MultiAgentNode, Swarm } from '@strands-agents/sdk/multiagent';",
  "import { ScriptedModel, say } from '../../../fixtures/support/scripted-model.js';",
  "const agent = (id: string) => new Agent({ id, printer: false, model: new ScriptedModel([say('x')]) });",
].join('\n');

const modules: Record<string, string | Buffer> = {
  'syntax-error.ts': `${sdk}\nexport const graph = new Graph({ nodes: [ };\n`,
  'throws.ts': "throw new Error('database is down');\n",
  'no-orchestrator.ts': 'export const answer = 42;\n',
  'factory-throws.ts': "export function buildGraph() { throw new Error('missing API key'); }\n",
  'factory-hangs.ts':
    'export function buildGraph() { setInterval(() => undefined, 1000); return new Promise(() => undefined); }\n',
  'binary.ts': Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x7b, 0x00, 0x0a, 0xc3, 0x28, 0x00, 0x7d]),
  'cycle.ts': [
    sdk,
    "const inner = new Swarm({ id: 'loop', nodes: [agent('a')], maxSteps: 4 });",
    "export const graph = new Graph({ id: 'outer', nodes: [inner], edges: [], maxSteps: 4 });",
    "(inner.nodes as Map<string, unknown>).set('back', new MultiAgentNode({ orchestrator: graph }));",
  ].join('\n'),
  'ten-thousand.ts': [
    sdk,
    '// 100 swarms of 100 agents in one graph: 10,000 agents, none gated.',
    'const swarms = Array.from({ length: 100 }, (_, s) =>',
    '  new Swarm({ id: `s${s}`, nodes: Array.from({ length: 100 }, (_, i) => agent(`a${s}_${i}`)), maxSteps: 4 }),',
    ');',
    "export const graph = new Graph({ id: 'big', nodes: swarms, edges: [], maxSteps: 4 });",
  ].join('\n'),
  'garbage-policy.bin': Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 151 + 7) % 256)),
};

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the command in its own process; all cells start at once (each spends its time waiting on a load). */
function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NODE_NO_WARNINGS: '1', CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const cells: Record<string, { args: string[]; status: number; line: RegExp }> = {
  'a missing file': {
    args: ['nope/graph.ts'],
    status: 2,
    line: /^gate-audit: cannot load "nope\/graph\.ts": no such file \| check the path$/,
  },
  'a syntax error': {
    args: [at('syntax-error.ts')],
    status: 2,
    line: /^gate-audit: cannot load ".*syntax-error\.ts": SyntaxError at .*syntax-error\.ts:5:\d+.* \| fix the module/,
  },
  'a module that throws': {
    args: [at('throws.ts')],
    status: 2,
    line: /^gate-audit: cannot load ".*throws\.ts": Error: database is down \| fix the module so it loads \(gate-audit imports it as your app does\)$/,
  },
  'binary garbage as a module': {
    args: [at('binary.ts')],
    status: 2,
    line: /^gate-audit: cannot load ".*binary\.ts": .* \| fix the module so it loads \(gate-audit imports it as your app does\)$/,
  },
  'no orchestrator': {
    args: [at('no-orchestrator.ts')],
    status: 2,
    line: /^gate-audit: cannot audit ".*no-orchestrator\.ts": it exports no Graph, Swarm or Agent \| /,
  },
  'a factory that throws': {
    args: ['--export', 'buildGraph', at('factory-throws.ts')],
    status: 2,
    line: /factory "buildGraph" threw Error: missing API key \| fix the factory$/,
  },
  'an orchestrator nested in itself': {
    args: ['--format', 'json', at('cycle.ts')],
    status: 2,
    line: /^gate-audit: cannot audit ".*cycle\.ts#graph": "outer › loop › back" contains itself: .* \| remove the nesting cycle; an orchestrator cannot run inside itself$/,
  },
  'an orchestrator nested in itself, in plan mode': {
    args: ['--plan', at('cycle.ts')],
    status: 2,
    line: /"outer › loop › back" contains itself/,
  },
  'binary garbage as a policy file (check-policy)': {
    args: ['check-policy', at('garbage-policy.bin'), 'fixtures/graphs/gated-app.ts'],
    status: 2,
    line: /^gate-audit: file=<.*garbage-policy\.bin>.* \| /,
  },
};

const results = new Map<string, Run>();
let big: Run;

beforeAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const [name, content] of Object.entries(modules)) writeFileSync(join(scratch, name), content);
  const names = Object.keys(cells);
  const runs = await Promise.all([
    ...names.map((name) => run(cells[name]!.args)),
    run(['--format', 'json', at('ten-thousand.ts')]),
  ]);
  names.forEach((name, i) => results.set(name, runs[i]!));
  big = runs[names.length]!;
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('gate-audit on bad input (the built command)', () => {
  describe('when the input is bad (missing, broken, hostile or hanging)', () => {
    for (const [what, cell] of Object.entries(cells)) {
      it(`${what}: exit ${cell.status}, one line, no stack trace`, () => {
        const result = results.get(what)!;
        expect({ status: result.status, stdout: result.stdout }).toEqual({ status: cell.status, stdout: '' });
        const lines = result.stderr.split('\n');
        expect(lines.at(-1)).toBe('');
        expect(lines.slice(0, -1)).toHaveLength(1);
        expect(lines[0]).toMatch(cell.line);
        expect(result.stderr).not.toMatch(/\n\s+at |node:internal|\.js:\d+:\d+\)/);
      });
    }
  });
  describe('when the module is huge', () => {
    it('a 10,000-node module: exit 1 (a coverage finding), a valid JSON report, no stack trace', () => {
      expect(big.status).toBe(1);
      expect(big.stderr).toBe('');
      const report = CoverageReportSchema.parse(JSON.parse(big.stdout));
      expect(report.summary.total).toBe(1 + 100 + 10_000);
      expect(report.summary.ungated).toBe(10_101);
      expect(report.summary.coverage).toBe(0);
    });
  });
});
