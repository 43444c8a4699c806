/**
 * `gate-audit/langgraph` serves apps without `@strands-agents/sdk`: in a process where the SDK cannot be resolved
 * (a resolve hook refuses it, as in an app that never installed it), the built entry loads, gates a `createAgent`
 * agent and audits it, while the main entry cannot load there; the command audits LangGraph trees there (exports,
 * entries, policies) and says what to install for anything else.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CoverageReportSchema } from '../src/report/schema.js';
import { root } from './helpers/cli.js';

const register = pathToFileURL(join(root, 'test/helpers/no-strands-register.mjs')).href;

function runWithoutStrands(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return runWithoutStrandsIn(root, ...args);
}

function runWithoutStrandsIn(
  cwd: string,
  ...args: string[]
): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', register, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const app = join(root, 'fixtures/apps/langgraph-only/deny.mjs');

/** The built command where the SDK cannot be resolved, in its own process and in every process it starts. */
function commandWithoutStrands(
  args: readonly string[],
  cwd = root,
): { status: number | null; stdout: string; stderr: string } {
  const hidden = pathToFileURL(join(root, 'test/helpers/no-strands-register.mjs')).href;
  const run = spawnSync(process.execPath, [join(root, 'bin/gate-audit.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1', NODE_OPTIONS: `--import "${hidden}"` },
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('gate-audit/langgraph', () => {
  describe('when imported', () => {
    it('exports a small, pinned surface', async () => {
      const entry = await import('../src/langgraph.js');
      expect(Object.keys(entry).sort()).toEqual([
        'CoverageError',
        'CoverageReportSchema',
        'GateAuditError',
        'GateConflictError',
        'GateFailedError',
        'NoGateError',
        'PolicyError',
        'UngateableError',
        'allowAll',
        'approve',
        'assertFullyGated',
        'audit',
        'configureGate',
        'denyAll',
        'guardProcess',
        'installMultiagent',
        'loadPolicy',
        'openDecisionLog',
        'plan',
        'policyGate',
      ]);
    });
  });

  describe('when given something other than a LangGraph graph or agent', () => {
    it('names what it takes', async () => {
      const entry = await import('../src/langgraph.js');
      expect(() => entry.audit({})).toThrow(/not a LangGraph compiled graph or createAgent agent/);
      expect(() => entry.installMultiagent({}, { gate: entry.allowAll() })).toThrow(/not a LangGraph compiled graph/);
    });
  });

  describe('when loaded in an app without @strands-agents/sdk', () => {
    it('loads, gates a createAgent agent (a denied tool never runs) and audits it', () => {
      const run = runWithoutStrands(app);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ before: 2, ran: 0, refused: true, coverage: 1, turns: 2 });
    });

    it('loads gate-audit/otel (its span processor and the LangGraph tracer)', () => {
      const run = runWithoutStrands(
        '--input-type=module',
        '-e',
        "const otel = await import('gate-audit/otel'); console.log(Object.keys(otel).join(','));",
      );
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('gateSpanProcessor,langGraphTracer');
    });

    it('where the main entry cannot load (the hook really hides the SDK)', () => {
      const run = runWithoutStrands('--input-type=module', '-e', "await import('gate-audit');");
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/Cannot find package '@strands-agents\/sdk/);
    });
  });

  describe('when the command reads files in an app without @strands-agents/sdk', () => {
    const scratch = join(root, 'test/.generated/no-strands-cli');
    const bin = join(root, 'bin/gate-audit.js');
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('reads reports, traces and logs (merge, observed, verify-log), which never load the SDK', () => {
      mkdirSync(scratch, { recursive: true });
      // A report and a decision log, made where the SDK is installed.
      const report = join(scratch, 'report.json');
      const audited = spawnSync(process.execPath, [bin, 'fixtures/graphs/gated-app.ts', '--format', 'json'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NODE_NO_WARNINGS: '1' },
      });
      expect(audited.status, audited.stderr).toBe(0);
      writeFileSync(report, audited.stdout);
      let prev: string | null = null;
      const lines: string[] = [];
      for (let seq = 0; seq < 3; seq += 1) {
        const body: string = `{"seq":${seq},"prev":${prev === null ? 'null' : `"${prev}"`},"gate":"g","verdict":"deny"}`;
        prev = createHash('sha256').update(body).digest('hex');
        lines.push(`${body.slice(0, -1)},"hash":"${prev}"}\n`);
      }
      const log = join(scratch, 'decisions.jsonl');
      writeFileSync(log, lines.join(''));
      const traces = join(scratch, 'traces.jsonl');
      writeFileSync(traces, '');

      const merged = runWithoutStrands(bin, 'merge', report, '--format', 'json');
      expect(merged.status, merged.stderr).toBe(0);
      const { summary } = JSON.parse(audited.stdout) as { summary: unknown };
      expect(JSON.parse(merged.stdout)).toMatchObject({ summary });
      const verified = runWithoutStrands(bin, 'verify-log', log);
      expect(verified.status, verified.stderr).toBe(0);
      expect(verified.stdout).toMatch(/OK, 3 records, chain intact/);
      // An empty trace file is a usage error of its own, not a missing SDK.
      const observed = runWithoutStrands(bin, 'observed', traces);
      expect(observed.status).toBe(2);
      expect(observed.stderr).toMatch(/no tool-execution span/);
      expect(`${merged.stderr}${verified.stderr}${observed.stderr}`).not.toMatch(/strands-agents/);
    });
  });

  describe('when the command audits in an app without @strands-agents/sdk', () => {
    const agents = 'fixtures/apps/langgraph-only/agents.mjs';

    it('audits LangGraph exports: the ungated one fails the run, the gated one alone passes', () => {
      const run = commandWithoutStrands([agents, '--format', 'json']);
      expect(run.status, run.stderr).toBe(1);
      const report = CoverageReportSchema.parse(JSON.parse(run.stdout));
      const statuses = Object.fromEntries(report.nodes.map((n) => [n.path.slice(1).join('/'), n.status]));
      expect(statuses).toEqual({
        gated: 'gated',
        'gated/tools': 'gated',
        ungated: 'ungated',
        'ungated/tools': 'ungated',
      });
      expect(report.nodes.every((n) => n.framework === 'langgraph')).toBe(true);
      // The run's generator names the framework its trees belong to, not a Strands SDK that is not there.
      expect(report.generator?.sdk).toMatch(/^@langchain\/langgraph@\d+\.\d+\.\d+$/);
      const gated = commandWithoutStrands([agents, '--export', 'gated']);
      expect(gated.status, gated.stderr).toBe(0);
      expect(gated.stdout).toMatch(/coverage 100%/);
      expect(`${run.stderr}${gated.stderr}`).not.toMatch(/strands-agents/);
    });

    it('runs an entry point and audits the graph it invokes, stopped before it runs', () => {
      const run = commandWithoutStrands(['--entry', 'fixtures/apps/lg-runner/src/main.ts', '--format', 'json']);
      expect(run.status, run.stderr).toBe(0);
      const report = CoverageReportSchema.parse(JSON.parse(run.stdout));
      expect(report.summary).toMatchObject({ gated: 5, attested: 1, ungated: 0 });
    });

    it('checks a policy against LangGraph tool nodes', () => {
      const run = commandWithoutStrands(['check-policy', 'fixtures/policies/app-policy.yaml', agents]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/gated › tools\n\s+wipe\s+deny\s+default: no rule covers it/);
    });

    it('--version says the SDK is not installed, and which LangGraph.js packages are', () => {
      const run = commandWithoutStrands(['--version']);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^@strands-agents\/sdk: not installed$/m);
      expect(run.stdout).toMatch(/^@langchain\/langgraph \d+\.\d+\.\d+: inside the tested range/m);
    });

    it('a Strands tree says what to install (exit 2), nothing half-run', () => {
      // The fixture's SDK loads through the TypeScript loader (outside the hook), so the audit itself meets it.
      const strands = commandWithoutStrands(['fixtures/graphs/gated-app.ts']);
      expect(strands.status).toBe(2);
      expect(strands.stderr).toMatch(
        /cannot audit "fixtures\/graphs\/gated-app\.ts#graph": it is not a LangGraph .* \| npm i -D @strands-agents\/sdk/,
      );
    });

    it('gate-audit/register guards the LangGraph graphs: an ungated one is refused before it runs, a gated one runs', () => {
      const scratch = join(root, 'test/.generated/no-strands-guard');
      mkdirSync(scratch, { recursive: true });
      writeFileSync(join(scratch, 'gate-audit.config.json'), '{"processGuard":{"gates":"./gates.mjs"}}');
      for (const file of ['gates.mjs', 'guarded.mjs']) {
        copyFileSync(join(root, 'fixtures/apps/langgraph-only', file), join(scratch, file));
      }
      try {
        const guarded = runWithoutStrandsIn(scratch, '--import', join(root, 'dist/cli/register.js'), 'guarded.mjs');
        expect(guarded.stderr).toBe('');
        expect(JSON.parse(guarded.stdout)).toEqual({ loose: 'GATE_FAILED', allowed: 'ran', ran: ['gated'] });
        // Without a configuration, register still ends the process before the app runs.
        rmSync(join(scratch, 'gate-audit.config.json'));
        const unconfigured = runWithoutStrandsIn(
          scratch,
          '--import',
          join(root, 'dist/cli/register.js'),
          'guarded.mjs',
        );
        expect(unconfigured.status).toBe(2);
        expect(unconfigured.stdout).toBe('');
        expect(unconfigured.stderr).toMatch(/no gate-audit configuration from here upwards/);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  });
});
