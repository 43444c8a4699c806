/**
 * The behavioural self-test on the loaded SDK, and what gate-audit does on SDK releases that break it: copies of
 * the real SDK, patched the way a release could change (a tool path that no longer fires
 * `BeforeToolCallEvent`; a private field renamed), installed next to a copy of the built gate-audit in an app.
 * Everything runs through the built package (`npm test` builds dist/ first), in its own process.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSelfTest, SELF_TEST_CHECKS } from '../../../src/frameworks/strands/sdk-self-test.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
// Under node_modules, so the copies resolve their own dependencies from this checkout's; one folder per run, so
// two runs at once (a mutation-testing sandbox and a plain run) never share or remove each other's copies.
const scratchParent = join(root, 'node_modules/.gate-audit-test');
let scratch: string | undefined;

function scratchDir(): string {
  if (scratch === undefined) {
    mkdirSync(scratchParent, { recursive: true });
    scratch = mkdtempSync(join(scratchParent, 'sdk-releases-'));
  }
  return scratch;
}

/** An app folder with a patched SDK copy (as version 1.99.0) and a copy of the built gate-audit. */
function appWithSdk(name: string, patch: (sdk: string) => void): string {
  const app = join(scratchDir(), name);
  const sdk = join(app, 'node_modules/@strands-agents/sdk');
  const own = join(app, 'node_modules/gate-audit');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(dirname(sdk), { recursive: true });
  cpSync(join(root, 'node_modules/@strands-agents/sdk'), sdk, { recursive: true });
  const manifest = join(sdk, 'package.json');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/"version": "[^"]+"/, '"version": "1.99.0"'));
  patch(sdk);
  for (const part of ['dist', 'bin', 'package.json']) cpSync(join(root, part), join(own, part), { recursive: true });
  writeFileSync(
    join(app, 'install.mjs'),
    [
      "import { Agent } from '@strands-agents/sdk';",
      "import { Graph } from '@strands-agents/sdk/multiagent';",
      "import { allowAll, installMultiagent, isGated } from 'gate-audit';",
      "const agent = new Agent({ id: 'writer', printer: false });",
      "const graph = new Graph({ id: 'app', nodes: [agent], edges: [], maxSteps: 4 });",
      'const requireTestedSdk = process.argv[2] === "--require-tested";',
      'try {',
      '  installMultiagent(graph, { gate: allowAll(), requireTestedSdk });',
      '  console.log(JSON.stringify({ installed: true, gated: isGated(agent) }));',
      '} catch (error) {',
      '  console.log(JSON.stringify({ code: error.code, message: error.message, gated: isGated(agent) }));',
      '}',
    ].join('\n'),
  );
  writeFileSync(
    join(app, 'graph.mjs'),
    [
      "import { Agent } from '@strands-agents/sdk';",
      "import { Graph } from '@strands-agents/sdk/multiagent';",
      "export const graph = new Graph({ id: 'app', nodes: [new Agent({ id: 'writer', printer: false })], edges: [], maxSteps: 4 });",
    ].join('\n'),
  );
  return app;
}

function run(app: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function replaceIn(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`patch did not apply to ${file}`);
  writeFileSync(file, next);
}

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('the behavioural self-test (runSelfTest)', () => {
  describe('when run on the loaded SDK', () => {
    it('passes every check on the loaded SDK', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      expect(await runSelfTest()).toEqual({ ok: true, checks: [...SELF_TEST_CHECKS] });
      vi.restoreAllMocks();
    });
  });

  describe('when an SDK release’s tool path no longer fires BeforeToolCallEvent (its shape unchanged)', () => {
    let app: string;
    beforeAll(() => {
      expect(existsSync(join(root, 'dist/index.js')), 'run npm run build first').toBe(true);
      app = appWithSdk('skips-hook', (sdk) =>
        replaceIn(join(sdk, 'dist/src/tools/executors/executor.js'), 'yield beforeToolCallEvent;', ''),
      );
    });

    it('installMultiagent refuses with SDK_BEHAVIOUR naming the check, after one WARN line, and gates nothing', () => {
      const { stdout, stderr } = run(app, ['install.mjs']);
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as { code: string; message: string; gated: boolean };
      expect(result.code).toBe('SDK_BEHAVIOUR');
      expect(result.message).toMatch(/^sdk=<1\.99\.0>, check=<[^>]+> \| the behavioural self-test failed/);
      expect(result.gated).toBe(false);
      expect(stderr.match(/\[gate-audit\] WARN sdk=<1\.99\.0>, tested=<1\.11\.2 to 1\.19\.0>/g)).toHaveLength(1);
    }, 120_000);

    it('with requireTestedSdk refuses with SDK_UNTESTED before any self-test', () => {
      const { stdout, stderr } = run(app, ['install.mjs', '--require-tested']);
      expect(JSON.parse(stdout.trim())).toMatchObject({ code: 'SDK_UNTESTED', gated: false });
      expect(stderr).not.toContain('[gate-audit] WARN');
    });

    it('the audit exits 2 with the same line', () => {
      const { status, stdout, stderr } = run(app, ['node_modules/gate-audit/bin/gate-audit.js', 'graph.mjs']);
      expect(status).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^gate-audit: sdk=<1\.99\.0>, check=<[^>]+> \| the behavioural self-test failed/m);
    }, 120_000);
  });

  describe('when an SDK release renamed a private field (the hook registry of agents)', () => {
    let app: string;
    beforeAll(() => {
      app = appWithSdk('renamed-field', (sdk) =>
        replaceIn(join(sdk, 'dist/src/hooks/registry.js'), /_callbacks/g, '_callbackTable'),
      );
    });

    it('installMultiagent refuses with SDK_SHAPE naming the field, and gates nothing', () => {
      const { stdout } = run(app, ['install.mjs']);
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as { code: string; message: string; gated: boolean };
      expect(result.code).toBe('SDK_SHAPE');
      expect(result.message).toMatch(/^sdk=<1\.99\.0>, object=<Agent>, field=<_hooksRegistry\._callbacks> \| /);
      expect(result.gated).toBe(false);
    });

    it('the audit exits 2 naming the field, and shows no report', () => {
      const { status, stdout, stderr } = run(app, ['node_modules/gate-audit/bin/gate-audit.js', 'graph.mjs']);
      expect(status).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('field=<_hooksRegistry._callbacks>');
    });
  });
});
