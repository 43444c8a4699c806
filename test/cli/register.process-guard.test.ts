/**
 * The audit of an entry that starts the process guard: the report says whether it stood before the entry's
 * first invocation and which, judges the trees as they run under it, and `--require-process-guard` fails an
 * entry that runs without it. The entries are written here; they build their agents from the guard
 * scenarios' kit (`fixtures/guard/kit.mjs`).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { markedRuns } from '../helpers/marked-runs.js';

const generated = join(root, 'test/.generated/guard-entry');
const { gateAudit, json } = markedRuns();
afterAll(() => rmSync(generated, { recursive: true, force: true }));

function write(name: string, text: string): string {
  mkdirSync(generated, { recursive: true });
  writeFileSync(join(generated, name), text);
  return `test/.generated/guard-entry/${name}`;
}

const kit = JSON.stringify(join(root, 'fixtures/guard/kit.mjs'));

/** An entry: a gated Graph (one custom node that declares what it runs), then a helper agent nobody gated. */
function entry(name: string, guard: string): string {
  return write(
    name,
    [
      "import { Graph, Node } from '@strands-agents/sdk/multiagent';",
      "import { GOVERNS, guardProcess, installMultiagent } from 'gate-audit';",
      `import { agent } from ${kit};`,
      "const gate = { name: 'house', id: 'house-v1', decide: () => ({ verdict: 'allow' }) };",
      guard,
      "const worker = agent('worker').agent;",
      'class Step extends Node {',
      "  constructor() { super('step', { description: 'runs worker' }); }",
      '  [GOVERNS]() { return { agents: [worker] }; }',
      "  async *handle() { return { content: (await worker.invoke('go')).lastMessage.content }; }",
      '}',
      "const flow = new Graph({ id: 'flow', nodes: [agent('writer').agent, new Step()], edges: [], maxSteps: 5 });",
      'installMultiagent(flow, { gate });',
      "await flow.invoke('go').catch(() => undefined);",
      "await agent('helper').agent.invoke('go').catch(() => undefined);",
      '',
    ].join('\n'),
  );
}

describe('gate-audit --entry under the process guard', () => {
  describe('when the entry starts the guard', () => {
    it('says the entry started the guard, marks custom nodes processGuarded, and blocks the agent that carries no gate', () => {
      const file = entry('refuse.mjs', 'guardProcess({ gates: gate });');
      const { status, report } = json(['--entry', file, '--entry-settle', '500']);
      expect(report.entries?.[0]?.processGuard).toEqual({
        installed: true,
        by: 'guardProcess',
        onUngated: 'refuse',
        gates: [{ name: 'house', id: 'house-v1' }],
      });
      const byId = new Map(report.nodes.map((n) => [n.id, n]));
      expect(byId.get('flow')).toMatchObject({ status: 'gated', gate: { name: 'house', id: 'house-v1' } });
      expect(byId.get('writer')).toMatchObject({ status: 'gated' });
      expect(byId.get('step')).toMatchObject({ status: 'attested', processGuarded: true });
      expect(byId.get('helper')).toMatchObject({ status: 'blocked' });
      expect(byId.get('helper')?.reason).toContain('refused by the process guard');
      // A blocked node fails the run, as every blocked node does.
      expect(status).toBe(1);
    });

    it("with onUngated: 'install', the agent that carries no gate is gated, by the guard", () => {
      const file = entry('install.mjs', "guardProcess({ gates: gate, onUngated: 'install' });");
      const { status, report } = json(['--entry', file, '--entry-settle', '500']);
      expect(report.entries?.[0]?.processGuard).toMatchObject({ installed: true, onUngated: 'install' });
      const helper = report.nodes.find((n) => n.id === 'helper');
      expect(helper).toMatchObject({
        status: 'gated',
        reason: 'installed by the process guard',
        gate: { name: 'house', id: 'house-v1' },
      });
      expect(report.nodes.find((n) => n.id === 'step')?.processGuarded).toBeUndefined();
      expect(status, JSON.stringify(report.nodes.map((n) => [n.path.join('/'), n.status, n.reason]))).toBe(0);
    });
  });

  describe('when the entry lacks the guard or starts it late', () => {
    it('--require-process-guard fails an entry without the guard, or one that starts it after its first invocation', () => {
      const without = entry('without.mjs', '');
      const plain = json(['--entry', without, '--entry-settle', '500']);
      expect(plain.report.entries?.[0]?.processGuard).toEqual({ installed: false });
      const required = json(['--entry', without, '--entry-settle', '500', '--require-process-guard']);
      expect(required.status).toBe(1);
      expect(required.report.notes).toEqual([
        expect.objectContaining({ kind: 'process-guard', module: without, fails: true }),
      ]);
      const late = write(
        'late.mjs',
        [
          "import { guardProcess } from 'gate-audit';",
          `import { agent } from ${kit};`,
          "await agent('early').agent.invoke('go').catch(() => undefined);",
          "guardProcess({ gates: { name: 'house', decide: () => ({ verdict: 'allow' }) } });",
          '',
        ].join('\n'),
      );
      const started = json(['--entry', late, '--require-process-guard']);
      expect(started.report.entries?.[0]?.processGuard).toEqual({ installed: false });
      expect(started.status).toBe(1);
      const text = gateAudit(['--entry', late, '--require-process-guard', '--format', 'text']);
      expect(text.stdout).toContain('no process guard:');
      expect(text.stdout).toContain('no process guard before its first invocation');
    });
  });

  describe('when the configuration names the guard', () => {
    it('starts the guard of the configuration before the entry, as --import gate-audit/register would', () => {
      write(
        'gates.mjs',
        "export const gates = [{ name: 'house', id: 'house-v1', decide: () => ({ verdict: 'allow' }) }];\n",
      );
      const config = write(
        'guard.config.json',
        JSON.stringify({ processGuard: { gates: './gates.mjs' }, entry: ['./registered.mjs'] }),
      );
      entry('registered.mjs', '');
      const { report } = json(['--config', config, '--entry-settle', '500', '--require-process-guard']);
      expect(report.entries?.[0]?.processGuard).toMatchObject({ installed: true, by: 'register', onUngated: 'refuse' });
      expect(report.notes ?? []).toEqual([]);
      expect(report.nodes.find((n) => n.id === 'helper')).toMatchObject({ status: 'blocked' });
      // Gates that are no gates: the audit stops with exit 2, as the app would before it ran.
      write('gates.mjs', 'export const gates = [];\n');
      const broken = gateAudit(['--config', config, '--entry-settle', '500']);
      expect(broken.status).toBe(2);
      expect(broken.stderr).toContain('is not a gate or a list of gates');
    });
  });

  describe('when --require-process-guard is given without an entry', () => {
    it('--require-process-guard without an entry is a usage error', () => {
      const run = gateAudit(['fixtures/graphs/gated-app.ts', '--require-process-guard']);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('flag=<--require-process-guard> | only an entry run shows');
    });
  });
});
