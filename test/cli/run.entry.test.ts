/**
 * `gate-audit --entry`: the app's own entry point runs in the audit child; each tree it invokes is audited as
 * it stands at that moment (after the app's own installMultiagent) and the invocation is stopped before any
 * model is called or any tool body runs. Every case runs the built command on the runner app
 * (`fixtures/apps/runner/`), whose tools and model leave a mark when they really run.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { markedRuns } from '../helpers/marked-runs.js';
import { sdkCopy } from '../helpers/sdk-copy.js';

const runner = (name: string): string => `fixtures/apps/runner/src/${name}.ts`;
const generated = join(root, 'test/.generated/entry');

const { marks: marksFolder, ran, gateAudit, json } = markedRuns();
afterAll(() => rmSync(generated, { recursive: true, force: true }));

function write(name: string, text: string): string {
  mkdirSync(generated, { recursive: true });
  const file = join(generated, name);
  writeFileSync(file, text);
  return `test/.generated/entry/${name}`;
}

describe('gate-audit --entry', () => {
  describe('when the entry invokes its tree', () => {
    it('audits the tree main.ts gates and runs (100%), where the module that only builds it says 0%', () => {
      const built = json(['--export', 'buildGraph', 'fixtures/apps/runner/src/graph.ts']);
      expect(built.status).toBe(1);
      expect(built.report.summary.ungated).toBe(7);

      const { status, report } = json(['--entry', runner('main')]);
      expect(status).toBe(0);
      expect(report.summary).toMatchObject({ total: 7, gated: 7 });
      expect(report.nodes.map((n) => n.path.join('/'))).toContain('runner/review/drafter/helper');
      expect(report.sources).toEqual([
        expect.objectContaining({ module: runner('main'), export: '(invoked)', projectModule: runner('main') }),
      ]);
      expect(report.entries).toEqual([
        { module: runner('main'), invocations: 1, ended: 'exit', exitCode: 0, processGuard: { installed: false } },
      ]);
    });

    it('runs nothing real: no model call, no tool body (the stop comes before the model)', () => {
      gateAudit(['--entry', runner('main')]);
      gateAudit(['--entry', runner('main-ungated')]);
      expect(ran()).toEqual([]);
    });

    it('an entry that forgot to gate its tree fails (exit 1)', () => {
      const { status, report } = json(['--entry', runner('main-ungated')]);
      expect(status).toBe(1);
      expect(report.summary.ungated).toBe(7);
    });

    it('main().catch(() => process.exit(1)): the app exits 1 on the stop, the audit still judges the tree', () => {
      const { status, report } = json(['--entry', runner('main-catch')]);
      expect(status).toBe(0);
      expect(report.entries).toEqual([
        {
          module: runner('main-catch'),
          invocations: 1,
          ended: 'exit',
          exitCode: 1,
          processGuard: { installed: false },
        },
      ]);
    });
  });

  describe('when the entry invokes nothing', () => {
    it('an entry that waits for requests: a load failure with the factory fix, exit 2', () => {
      const { status, report } = json(['--entry', runner('server'), '--timeout', '2500']);
      expect(status).toBe(2);
      const [note] = (report.notes ?? []).filter((n) => n.kind === 'load');
      expect(note?.message).toBe(
        `entry ${runner('server')} invoked no agent or orchestrator (it was still running after 2500 ms)`,
      );
      expect(note?.fix).toMatch(/^it waits for requests: audit the module that builds the per-request orchestrator/);
      expect(report.entries?.[0]).toMatchObject({ invocations: 0, ended: 'timeout' });
    });

    it('an entry that invokes nothing and exits: a load failure, exit 2', () => {
      const entry = write('does-nothing.mjs', "console.log('hello');\n");
      const { status, report } = json(['--entry', entry]);
      expect(status).toBe(2);
      expect((report.notes ?? [])[0]?.message).toBe(
        `entry ${entry} invoked no agent or orchestrator (it exited with code 0)`,
      );
    });
  });

  describe('when given --plan', () => {
    it('--plan audits what installMultiagent would leave of the invoked tree', () => {
      const { status, report } = json(['--plan', '--entry', runner('main-ungated')]);
      expect(status).toBe(0);
      expect(report.mode).toBe('plan');
    });
  });

  describe('when the app reaches the SDK another way or runs past the stop', () => {
    it('stops a second invocation after the app catches the first, and audits each tree once (by identity)', () => {
      const entry = write(
        'retries.mjs',
        [
          "import { Agent } from '@strands-agents/sdk';",
          "const a = new Agent({ id: 'solo', printer: false });",
          "for (let i = 0; i < 3; i += 1) { try { await a.invoke('x'); } catch {} }",
          "const b = new Agent({ id: 'solo', printer: false });",
          "try { await b.invoke('x'); } catch {}",
          '',
        ].join('\n'),
      );
      const { report } = json(['--entry', entry, '--entry-settle', '300']);
      expect(report.entries?.[0]?.invocations).toBe(4);
      // Two objects with the same id: two trees, kept apart.
      expect(report.nodes.map((n) => n.path.slice(1).join('/')).sort()).toEqual(['solo', 'solo#2']);
    });

    it('sees the SDK loaded with require() and a second copy of the SDK on disk', () => {
      const cjs = write(
        'required.cjs',
        [
          "const { Agent } = require('@strands-agents/sdk');",
          "new Agent({ id: 'required', printer: false }).invoke('x').catch(() => undefined);",
          '',
        ].join('\n'),
      );
      const copy = pathToFileURL(join(sdkCopy(), 'dist/src/index.js')).href;
      const other = write(
        'copy.mjs',
        [
          `const { Agent } = await import(${JSON.stringify(copy)});`,
          "await new Agent({ id: 'copied', printer: false }).invoke('x').catch(() => undefined);",
          '',
        ].join('\n'),
      );
      const required = json(['--entry', cjs]);
      expect(required.report.entries?.[0]?.invocations).toBe(1);
      expect(required.report.nodes.map((n) => n.id)).toEqual(['required']);
      const copied = json(['--entry', other]);
      expect(copied.report.entries?.[0]?.invocations).toBe(1);
      expect(copied.report.nodes.map((n) => n.id)).toEqual(['copied']);
    });

    it('a subclass that skips stream is stopped by the backstop below it (initialize), and reported ungateable', () => {
      const entry = write(
        'subclass.mjs',
        [
          "import { Agent } from '@strands-agents/sdk';",
          'class Sneaky extends Agent {',
          '  async *stream() { await this.initialize(); yield* []; return undefined; }',
          '}',
          "try { for await (const _ of new Sneaky({ id: 'sneaky', printer: false }).stream('x')) {} } catch {}",
          '',
        ].join('\n'),
      );
      const { status, report } = json(['--entry', entry]);
      expect(status).toBe(1);
      expect(report.entries?.[0]).toMatchObject({ invocations: 1 });
      expect(report.nodes.map((n) => [n.id, n.status])).toEqual([['sneaky', 'ungateable']]);
    });

    it('nothing runs sideways either: a direct tool call, the private model path, a worker, a child process', () => {
      const entry = write(
        'sideways.ts',
        [
          "import { Worker } from 'node:worker_threads';",
          "import { spawn } from 'node:child_process';",
          "import { Agent } from '@strands-agents/sdk';",
          "import { bash, TripwireModel } from '../../../fixtures/apps/runner/src/marks.js';",
          "const agent = () => new Agent({ id: 'side', model: new TripwireModel(), tools: [bash], printer: false });",
          'const attempts: [string, () => unknown][] = [',
          "  ['tool', () => agent().tool.bash.invoke({ command: 'rm -rf /' })],",
          "  ['private', async () => { const a = agent() as unknown as { _streamFromModel: (...x: unknown[]) => AsyncGenerator; model: unknown }; for await (const _ of a._streamFromModel(a.model, [], {}, {})) {} }],",
          "  ['worker', () => new Worker('process.exit(0)', { eval: true, execArgv: [] })],",
          "  ['spawn', () => spawn(process.execPath, ['-e', '0'], { detached: true, stdio: 'inherit' })],",
          '];',
          'for (const [name, attempt] of attempts) {',
          '  try { await attempt(); console.error(`${name}: ran`); } catch (error) { console.error(`${name}: ${String(error)}`); }',
          '}',
          '',
        ].join('\n'),
      );
      const run = gateAudit(['--format', 'json', '--entry', entry]);
      expect(ran()).toEqual([]);
      for (const name of ['tool', 'private', 'worker', 'spawn']) expect(run.stderr).not.toContain(`${name}: ran`);
      expect(run.stderr).toContain('worker: Error: gate-audit: new Worker() is refused while auditing');
      expect(run.stderr).toContain('spawn: Error: gate-audit: child_process.spawn() is refused while auditing');
      // The private model path is an invocation: its tree is audited (ungated), exit 1.
      expect(run.status).toBe(1);
    });

    it('an entry may not register loader hooks of its own (they could load an SDK copy the audit never sees)', () => {
      const entry = write(
        'hooks.mjs',
        "import { register } from 'node:module';\ntry { register('data:text/javascript,export {}'); console.error('registered'); } catch (error) { console.error(String(error)); }\n",
      );
      const run = gateAudit(['--format', 'json', '--entry', entry]);
      expect(run.stderr).toContain('module.register() is refused while auditing');
      expect(run.stderr).not.toContain('registered');
    });
  });

  describe('when the app tries to record decisions', () => {
    it('records nothing even after the app resets process.env', () => {
      const log = join(marksFolder(), 'reset.jsonl');
      const entry = write(
        'env-reset.mjs',
        [
          "import { openDecisionLog } from 'gate-audit';",
          "process.env = { PATH: process.env.PATH ?? '' };",
          `try { openDecisionLog(${JSON.stringify(log)}).append({}, 'x'); } catch (error) { console.error(String(error)); }`,
          '',
        ].join('\n'),
      );
      const run = gateAudit(['--format', 'json', '--entry', entry]);
      expect(run.stderr).toContain('GATE_AUDIT_AUDITING=1');
      expect(existsSync(log)).toBe(false);
    });

    it('records nothing: a decision log the entry opens is never created', () => {
      const log = join(marksFolder(), 'decisions.jsonl');
      const entry = write(
        'logs.mjs',
        [
          "import { openDecisionLog } from 'gate-audit';",
          "import { Agent } from '@strands-agents/sdk';",
          `const log = openDecisionLog(${JSON.stringify(log)});`,
          "try { log.append({}, 'x'); } catch (error) { console.error(String(error)); }",
          "await new Agent({ id: 'logged', printer: false }).invoke('x').catch(() => undefined);",
          '',
        ].join('\n'),
      );
      const run = gateAudit(['--format', 'json', '--entry', entry]);
      expect(run.stderr).toContain('GATE_AUDIT_AUDITING=1');
      expect(existsSync(log)).toBe(false);
    });
  });

  describe("when a configuration or a report names a file of the entry's import closure", () => {
    it("accept under --entry: module names a module of the entry's import closure, path is from the invoked root", () => {
      const entry = write(
        'remote.ts',
        "import { buildRemoteGraph } from '../../../fixtures/graphs/remote-graph.js';\nawait buildRemoteGraph().invoke('go');\n",
      );
      const config = write(
        'accept.config.json',
        JSON.stringify({
          accept: [
            {
              module: '../../../fixtures/graphs/remote-graph.ts',
              path: 'procurement/partner-agent',
              reason: 'gated on its own server',
            },
          ],
        }),
      );
      const { report } = json(['--config', config, '--entry', entry]);
      expect(report.nodes.find((n) => n.id === 'partner-agent')?.status).toBe('accepted');
      // A path that is no node of what the entry invoked is a stale entry: exit 2.
      const stale = write(
        'stale.config.json',
        JSON.stringify({ accept: [{ path: 'procurement/nobody', reason: 'x' }] }),
      );
      const run = gateAudit(['--config', stale, '--entry', entry]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('field=<accept[0].path> | "procurement/nobody" matches no node');
    });

    it("a native ESM entry's import closure is known: a report may not overwrite a file it imports", () => {
      write('ids.mjs', "export const id = 'native';\n");
      const entry = write(
        'native.mjs',
        "import { Agent } from '@strands-agents/sdk';\nimport { id } from './ids.mjs';\nawait new Agent({ id, printer: false }).invoke('x');\n",
      );
      const run = gateAudit(['--format', 'json', '--output-file', 'test/.generated/entry/ids.mjs', '--entry', entry]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('it is a file a loaded module imports of this run');
    });
  });

  describe('when check-policy is given --entry', () => {
    it('check-policy --entry judges the tools of each tree the entry invokes, and runs none of them', () => {
      const run = gateAudit(['check-policy', 'fixtures/policies/app-policy.yaml', '--entry', runner('main')]);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(`${runner('main')}#(invoked runner)`);
      expect(run.stdout).toMatch(/runner › review › drafter › helper\n\s+bash\s+deny/);
      expect(run.stdout).not.toContain('no module given');
      const nothing = gateAudit([
        'check-policy',
        'fixtures/policies/app-policy.yaml',
        '--entry',
        runner('server'),
        '--timeout',
        '1500',
      ]);
      expect(nothing.status).toBe(2);
      expect(nothing.stderr).toContain(`entry=<${runner('server')}> | invoked no agent or orchestrator`);
      expect(ran()).toEqual([]);
    });
  });

  describe('when the entry does not exist', () => {
    it('an entry that does not exist is a usage error naming it', () => {
      const run = gateAudit(['--entry', 'src/nope.ts']);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^gate-audit: entry=<src\/nope\.ts> \| no such file \|/m);
    });
  });
});
