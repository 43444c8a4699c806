/**
 * `gate-audit/langgraph` serves apps without `@strands-agents/sdk`: in a process where the SDK cannot be resolved
 * (a resolve hook refuses it, as in an app that never installed it), the built entry loads, gates a `createAgent`
 * agent and audits it, while the main entry cannot load there.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './helpers/cli.js';

const hook = pathToFileURL(join(root, 'test/helpers/no-strands-hook.mjs')).href;
const register = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(hook)});`;

function runWithoutStrands(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', register, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const app = join(root, 'fixtures/apps/langgraph-only/deny.mjs');

describe('gate-audit/langgraph', () => {
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
      'installMultiagent',
      'loadPolicy',
      'openDecisionLog',
      'plan',
      'policyGate',
    ]);
  });

  it('names what it takes when given something else', async () => {
    const entry = await import('../src/langgraph.js');
    expect(() => entry.audit({})).toThrow(/not a LangGraph compiled graph or createAgent agent/);
    expect(() => entry.installMultiagent({}, { gate: entry.allowAll() })).toThrow(/not a LangGraph compiled graph/);
  });

  describe('in an app without @strands-agents/sdk', () => {
    it('loads, gates a createAgent agent (a denied tool never runs) and audits it', () => {
      const run = runWithoutStrands(app);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ before: 2, ran: 0, refused: true, coverage: 1, turns: 2 });
    });

    it('where the main entry cannot load (the hook really hides the SDK)', () => {
      const run = runWithoutStrands('--input-type=module', '-e', "await import('gate-audit');");
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/Cannot find package '@strands-agents\/sdk/);
    });
  });

  describe('the command in an app without @strands-agents/sdk', () => {
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
});
