/**
 * The process guard, each scenario in its own Node process (the guard stands on the SDK's classes for the
 * rest of the process, as it would in production): `fixtures/guard/*.mjs` print one JSON line of what ran and
 * how each attempt ended.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { sdkCopy } from '../helpers/sdk-copy.js';

interface Attempt {
  readonly ok: boolean;
  readonly status?: string;
  readonly name?: string;
  readonly code?: string;
  readonly failure?: string;
  readonly message?: string;
  readonly modelCalls?: number;
  readonly [key: string]: unknown;
}

type Outcome = { readonly ran: readonly string[] } & Record<string, unknown>;

const apps = join(root, 'test/.generated/guard');
const fixture = (name: string): string => join(root, 'fixtures/guard', name);

function scenario(
  script: string,
  options: { cwd?: string; env?: Record<string, string>; register?: boolean } = {},
): { outcome: Outcome | undefined; status: number | null; stderr: string } {
  const run = spawnSync(
    process.execPath,
    [...(options.register === true ? ['--import', 'gate-audit/register'] : []), fixture(script)],
    {
      cwd: options.cwd ?? root,
      env: { ...process.env, ...options.env },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const line = run.stdout.trim().split('\n').pop() ?? '';
  let outcome: Outcome | undefined;
  try {
    outcome = JSON.parse(line) as Outcome;
  } catch {
    outcome = undefined;
  }
  return { outcome, status: run.status, stderr: run.stderr };
}

const attemptOf = (outcome: Outcome | undefined, key: string): Attempt => outcome?.[key] as Attempt;

/** An app folder holding another copy of the SDK in its node_modules (its dependencies resolve above it). */
function appWithCopy(name: string, at = 'node_modules/@strands-agents/sdk'): { dir: string; copyUrl: string } {
  const dir = join(apps, name);
  const copy = join(dir, at);
  if (!existsSync(join(copy, 'package.json'))) {
    mkdirSync(join(copy, '..'), { recursive: true });
    cpSync(join(root, 'node_modules/@strands-agents/sdk'), copy, { recursive: true });
  }
  return { dir, copyUrl: pathToFileURL(join(copy, 'dist/src/index.node.js')).href };
}

/** An app folder holding a package named @strands-agents/sdk that has an Agent and no hook registry. */
function appWithFakeSdk(): { dir: string; fakeUrl: string } {
  const dir = join(apps, 'fake-sdk');
  const fake = join(dir, 'node_modules/@strands-agents/sdk');
  mkdirSync(fake, { recursive: true });
  writeFileSync(
    join(fake, 'package.json'),
    JSON.stringify({ name: '@strands-agents/sdk', version: '1.19.0', type: 'module', exports: './index.js' }),
  );
  writeFileSync(join(fake, 'index.js'), 'export class Agent { async invoke() { return "ran"; } }\n');
  return { dir, fakeUrl: pathToFileURL(join(fake, 'index.js')).href };
}

describe('guardProcess', () => {
  describe("when onUngated is 'refuse'", () => {
    let outcome: Outcome | undefined;
    beforeAll(() => {
      const run = scenario('refuse.mjs');
      outcome = run.outcome;
      if (outcome === undefined) throw new Error(`the scenario printed no result: ${run.stderr}`);
    });

    const unguarded = (id: string): string =>
      `agent "${id}" ("Strands Agent") is unguarded: it carries none of the process guard's gates ("main", "policy"), invoked outside any tree`;

    it('refuses an agent built before the guard, before its model is called, naming it and where it ran', () => {
      const early = attemptOf(outcome, 'early');
      expect(early).toMatchObject({ ok: false, name: 'GateFailedError', code: 'GATE_FAILED', modelCalls: 0 });
      expect(early.failure).toContain(unguarded('early'));
    });

    it('lets an agent carrying one of its gates run: the same object, or a gate declaring the same id', () => {
      expect(attemptOf(outcome, 'gated')).toMatchObject({ ok: true, modelCalls: 2 });
      expect(attemptOf(outcome, 'sameId')).toMatchObject({ ok: true });
      // Only the two gated agents ran their tool.
      expect(outcome?.ran).toEqual(['shell', 'shell']);
    });

    it('refuses a gate that only shares a name with one of its gates (a per-process id matches its own object)', () => {
      expect(attemptOf(outcome, 'sameName')).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
    });

    it('refuses the ungated agent a custom node calls while declaring another (the node fails, its agent never ran)', () => {
      expect(attemptOf(outcome, 'customNode')).toMatchObject({ ok: true, status: 'FAILED', yModelCalls: 0 });
    });

    it('refuses a Graph without a node guard at its first invoke, before any node runs', () => {
      const graph = attemptOf(outcome, 'unguardedGraph');
      expect(graph).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(graph.failure).toContain('Graph "unguarded" is unguarded: it carries no node guard');
    });

    it('covers agents used as tools, agent subclasses, and runs started by a timer after the root run ended', () => {
      expect(attemptOf(outcome, 'asTool')).toMatchObject({ innerModelCalls: 0 });
      // The subclass overrides stream: refused as it initialises, as install would refuse it.
      expect(attemptOf(outcome, 'subclass').failure).toContain(
        'agent "wrapped" ("Strands Agent") is an Agent subclass (Wrapped) that overrides "stream"',
      );
      expect(attemptOf(outcome, 'timer').failure).toContain(unguarded('late'));
    });

    it("cannot be stepped around by assigning a registry's methods or an agent's dispatch, nor by redefining it", () => {
      expect(outcome?.assign).toBe('TypeError');
      expect(outcome?.assignDispatch).toBe('TypeError');
      expect(outcome?.assignLookup).toBe('TypeError');
      const shadowed = attemptOf(outcome, 'shadowed');
      expect(shadowed).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(shadowed.failure).toContain('"_invokeCallbacks" was replaced on the instance');
    });

    it('trusts no forgery: a per-process id declared by another gate, a mark written by hand, a registry reparented', () => {
      const processId = attemptOf(outcome, 'processId');
      expect(processId).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
      expect(processId.message).toContain('declares an id starting with "process:"');
      expect(attemptOf(outcome, 'forgedMark')).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      const reparented = attemptOf(outcome, 'reparented');
      expect(reparented).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(reparented.failure).toContain("has a _hooksRegistry that is not the SDK's own registry");
      expect(attemptOf(outcome, 'replacedRegistry')).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
    });

    it('is a no-op when started again with the same options, and an error with other ones', () => {
      expect(outcome?.guard).toEqual({ by: 'guardProcess', onUngated: 'refuse', gates: ['main', 'policy'] });
      expect(outcome?.again).toBe(true);
      expect(attemptOf(outcome, 'other')).toMatchObject({ ok: false, code: 'GUARD_CONFLICT' });
      expect(attemptOf(outcome, 'otherMode')).toMatchObject({ ok: false, code: 'GUARD_CONFLICT' });
    });
  });

  describe("when onUngated is 'install'", () => {
    it('installs the first gate on an ungated agent and Graph when they are about to run, and refuses one it cannot gate', () => {
      const { outcome, stderr } = scenario('install.mjs');
      expect(outcome, stderr).toBeDefined();
      // deny-shell decided every call: the model ran, the tool never did.
      expect(outcome?.ran).toEqual([]);
      expect(attemptOf(outcome, 'lone')).toMatchObject({ ok: true, modelCalls: 2, gated: true });
      expect(attemptOf(outcome, 'graph')).toMatchObject({
        ok: true,
        status: 'COMPLETED',
        guarded: true,
        nodeGated: true,
      });
      const patched = attemptOf(outcome, 'patched');
      expect(patched).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(patched.failure).toContain('agent "patched" ("Strands Agent") is an Agent whose "stream" was replaced');
    });
  });

  describe('when other copies of the SDK are loaded', () => {
    it('refuses them whole: a copy loaded before the guard (wherever it lies), one imported after it, one required after it', () => {
      const { dir, copyUrl } = appWithCopy('copy-app');
      // The later copies lie where the guard's start does not look (a dot folder): only its hooks can see them.
      const later = pathToFileURL(join(sdkCopy(), 'dist/src/index.node.js')).href;
      // A module deep inside a copy (its Agent's own file) loads the copy's hook registry module: that is enough.
      const deep = pathToFileURL(join(sdkCopy(), 'dist/src/agent/agent.js')).href;
      // pnpm keeps packages under node_modules/.pnpm/<name@version>/node_modules.
      const pnpm = appWithCopy(
        'pnpm-app',
        'node_modules/.pnpm/@strands-agents+sdk@1.19.0/node_modules/@strands-agents/sdk',
      );
      for (const [when, cwd, url] of [
        ['before', dir, copyUrl],
        ['before', pnpm.dir, pnpm.copyUrl],
        // Loaded before the guard from a folder no node_modules lookup reaches: found among the scripts V8 compiled.
        ['before', root, later],
        ['after', root, later],
        ['after', root, deep],
        ['require', root, later],
        ['require', root, deep],
      ] as const) {
        const { outcome, stderr } = scenario('foreign.mjs', { cwd, env: { GUARD_WHEN: when, GUARD_COPY: url } });
        expect(outcome, stderr).toBeDefined();
        expect(attemptOf(outcome, 'started'), when).toMatchObject({ ok: true });
        const foreign = attemptOf(outcome, 'foreign');
        expect(foreign, `${when} ${url}`).toMatchObject({ ok: false, code: 'GATE_FAILED' });
        expect(foreign.failure).toContain('another copy of @strands-agents/sdk');
      }
    });

    it('refuses them with --import gate-audit/register, from its first import', () => {
      const { dir, copyUrl } = appWithCopy('copy-app');
      writeFileSync(
        join(dir, 'gate-audit.config.json'),
        JSON.stringify({ processGuard: { policy: join(root, 'fixtures/policies/app-policy.yaml') } }),
      );
      const { outcome, stderr } = scenario('register-app.mjs', {
        cwd: dir,
        register: true,
        env: { GUARD_COPY: copyUrl, GUARD_POLICY: join(root, 'fixtures/policies/app-policy.yaml') },
      });
      expect(outcome, stderr).toBeDefined();
      // The app's own policy gate is another object with the same policy: the same id, so the same gate.
      expect(attemptOf(outcome, 'gated')).toMatchObject({ ok: true });
      expect(attemptOf(outcome, 'loose')).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(attemptOf(outcome, 'foreign')).toMatchObject({ ok: false, code: 'GATE_FAILED' });
    });

    it('a copy the guard cannot stand on is refused: its import throws SDK_SHAPE, or guardProcess does, naming it', () => {
      const { dir, fakeUrl } = appWithFakeSdk();
      const before = scenario('foreign.mjs', { cwd: dir, env: { GUARD_WHEN: 'before', GUARD_COPY: fakeUrl } });
      const started = attemptOf(before.outcome, 'started');
      expect(started).toMatchObject({ ok: false, code: 'SDK_SHAPE' });
      expect(started.message).toContain(join(dir, 'node_modules/@strands-agents/sdk'));
      const after = scenario('foreign.mjs', {
        cwd: join(root, 'fixtures/guard'),
        env: { GUARD_WHEN: 'after', GUARD_COPY: fakeUrl },
      });
      expect(attemptOf(after.outcome, 'imported')).toMatchObject({ ok: false, code: 'SDK_SHAPE' });
      expect(after.outcome?.foreign).toBeUndefined();
    });
  });

  describe('when a run goes where the process guard cannot see (the README lists each)', () => {
    it("lets through the SDK's private loop driven by hand, a direct tool call, a direct model call, a worker thread, an A2AAgent", () => {
      const { outcome, stderr } = scenario('cannot-cover.mjs');
      expect(outcome, stderr).toBeDefined();
      expect(attemptOf(outcome, 'privateLoop')).toMatchObject({ ok: true, status: 'model calls 2' });
      expect(outcome?.ran).toEqual(['shell', 'direct_shell']);
      expect(attemptOf(outcome, 'directTool')).toMatchObject({ ok: true });
      expect(attemptOf(outcome, 'directModel')).toMatchObject({ ok: true, status: 'model calls 1' });
      // The worker's agent called its model twice: once for the tool call, once after the tool ran.
      expect(attemptOf(outcome, 'worker')).toMatchObject({ ok: true, status: 'model calls 2' });
      // The remote call fails on the network, never on the guard.
      const remote = attemptOf(outcome, 'remote');
      expect(remote.ok).toBe(false);
      expect(remote.code).not.toBe('GATE_FAILED');
    });
  });

  describe('when the app goes around the hooks and the check after the guard started', () => {
    it("refuses loader hooks of the app's own that load the SDK afresh, and a require() of an ES module importing a copy", () => {
      sdkCopy();
      const hooks = scenario('sideways.mjs', { env: { GUARD_WAY: 'hooks' } });
      expect(attemptOf(hooks.outcome, 'fresh'), hooks.stderr).toMatchObject({ ok: false, code: 'GATE_FAILED' });
      const required = scenario('sideways.mjs', { env: { GUARD_WAY: 'require-esm' } });
      expect(attemptOf(required.outcome, 'copied'), required.stderr).toMatchObject({ ok: false, code: 'GATE_FAILED' });
    });

    it("cannot reassign the SDK's methods, swap a gated agent's registry, or run on after its gate was removed", () => {
      const { outcome, stderr } = scenario('sideways.mjs', { env: { GUARD_WAY: 'run' } });
      expect(outcome, stderr).toBeDefined();
      expect(attemptOf(outcome, 'reassign')).toMatchObject({ ok: false, name: 'TypeError' });
      expect(attemptOf(outcome, 'swapRegistry')).toMatchObject({ ok: false, name: 'TypeError' });
      // The swap failed: the run went on under its gate.
      expect(attemptOf(outcome, 'swapped')).toMatchObject({ ok: true, modelCalls: 2 });
      const removed = attemptOf(outcome, 'removedMidRun');
      expect(removed).toMatchObject({ ok: false, code: 'GATE_FAILED' });
      expect(outcome?.ran).toEqual(['shell']);
    });
  });
});

describe('gate-audit/register', () => {
  describe('when the configuration names a gates module', () => {
    it('starts the guard from the configuration, with the very gate objects of its gates module', () => {
      const dir = join(apps, 'register-gates');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'gates.mjs'),
        "export const gates = [{ name: 'house', decide: () => ({ verdict: 'allow' }) }];\n",
      );
      writeFileSync(join(dir, 'gate-audit.config.json'), JSON.stringify({ processGuard: { gates: './gates.mjs' } }));
      const { outcome, stderr } = scenario('register-app.mjs', {
        cwd: dir,
        register: true,
        env: { GUARD_GATES: pathToFileURL(join(dir, 'gates.mjs')).href },
      });
      expect(outcome, stderr).toBeDefined();
      expect(attemptOf(outcome, 'gated')).toMatchObject({ ok: true });
      expect(attemptOf(outcome, 'loose')).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      // A worker thread inherits the --import: the guard stands there too.
      expect(attemptOf(outcome, 'worker')).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
    });
  });

  describe('when there is no configuration, none with processGuard, or bad gates', () => {
    it('ends the process with exit 2 before the app runs', () => {
      const bare = join(apps, 'register-bare');
      rmSync(bare, { recursive: true, force: true });
      mkdirSync(bare, { recursive: true });
      // The repository's own package.json has no gate-audit key: no configuration from here upwards.
      const none = scenario('register-app.mjs', { cwd: bare, register: true });
      expect(none.status).toBe(2);
      expect(none.outcome).toBeUndefined();
      expect(none.stderr).toMatch(
        /^gate-audit\/register: config=<.*> \| no gate-audit configuration from here upwards/m,
      );
      writeFileSync(join(bare, 'gate-audit.config.json'), JSON.stringify({ entry: ['app.mjs'] }));
      const without = scenario('register-app.mjs', { cwd: bare, register: true });
      expect(without.status).toBe(2);
      expect(without.stderr).toContain('config=<gate-audit.config.json> | has no processGuard');
      writeFileSync(join(bare, 'gates.mjs'), 'export const gates = [42];\n');
      writeFileSync(join(bare, 'gate-audit.config.json'), JSON.stringify({ processGuard: { gates: 'gates.mjs' } }));
      const bad = scenario('register-app.mjs', { cwd: bare, register: true });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('gates=<gates.mjs> | its export "gates" (or default export) is not a gate');
      writeFileSync(
        join(bare, 'gate-audit.config.json'),
        JSON.stringify({ processGuard: { gates: 'gates.mjs', policy: 'p.yaml' } }),
      );
      const both = scenario('register-app.mjs', { cwd: bare, register: true });
      expect(both.status).toBe(2);
      expect(both.stderr).toContain('give exactly one of gates (a module) and policy (a policy file)');
    });
  });
});
