/**
 * The package as npm publishes it: what `npm pack` puts in (and leaves out), and that every export a CommonJS
 * app may `require` loads from the packed files, through the same ESM files an `import` loads.
 * `npm test` builds dist/ first; the full install of the tarball into apps pinning SDK versions is
 * `scripts/pack-install.sh` (run by `.ci/run`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  license: string;
  scripts: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};
// Inside node_modules, so the unpacked package resolves its dependencies (and the SDK) from this checkout's; one
// folder per run, so two runs at once (a mutation sandbox and a test run) never unpack into each other's.
mkdirSync(join(root, 'node_modules/.gate-audit-test'), { recursive: true });
const app = mkdtempSync(join(root, 'node_modules/.gate-audit-test/cjs-app-'));
let packed: string[] = [];

beforeAll(() => {
  const out = mkdtempSync(join(tmpdir(), 'gate-audit-pack-'));
  try {
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(pack.status, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    packed = info!.files.map((f) => f.path).sort();
    mkdirSync(join(app, 'node_modules/gate-audit'), { recursive: true });
    const untar = spawnSync('tar', [
      'xzf',
      join(out, info!.filename),
      '-C',
      join(app, 'node_modules/gate-audit'),
      '--strip-components=1',
    ]);
    expect(untar.status).toBe(0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('npm pack', () => {
  describe('when the package is packed', () => {
    it('ships the LICENSE (Apache-2.0, as package.json says), the README, the bin and the built files', () => {
      expect(pkg.license).toBe('Apache-2.0');
      expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
      for (const file of [
        'LICENSE',
        'README.md',
        'package.json',
        'bin/gate-audit.js',
        'dist/index.js',
        'dist/index.d.ts',
      ]) {
        expect(packed).toContain(file);
      }
      expect(packed).toContain('dist/cli/main.js');
      expect(packed).toContain('dist/frameworks/strands/sdk-self-test-main.js');
    });

    it('leaves out tests, fixtures, scripts, CI, benchmarks, coverage and configuration', () => {
      const stray = packed.filter((f) =>
        /^(test|fixtures|scripts|bench|coverage|docs|\.ci|node_modules)\/|^(tsconfig|vitest|biome|eslint)|\.test\./.test(
          f,
        ),
      );
      expect(stray).toEqual([]);
    });

    it('ships no source maps and no sources (a runtime install stays lean; dist is readable tsc output)', () => {
      expect(packed.filter((f) => f.endsWith('.map') || f.startsWith('src/'))).toEqual([]);
      expect(packed.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(0);
    });

    it('has every file an export points to', () => {
      const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
      for (const target of targets) expect(packed).toContain(target.replace(/^\.\//, ''));
    });
  });

  describe('when a consumer installs it', () => {
    it('runs no script when a consumer installs it (no preinstall, install or postinstall: nothing builds)', () => {
      for (const hook of ['preinstall', 'install', 'postinstall']) expect(pkg.scripts[hook]).toBeUndefined();
      // `prepare` runs for installs from git or a folder only (contributors' `npm ci`), never from the registry.
      expect(pkg.scripts.prepare).toBe('npm run build');
    });
  });
});

describe('a CommonJS app', () => {
  const exported = Object.entries(pkg.exports);
  const requirable = exported
    .filter(([, t]) => typeof t === 'string' || 'default' in t || 'require' in t)
    .map(([path]) => (path === '.' ? pkg.name : `${pkg.name}/${path.slice(2)}`));
  const importOnly = exported
    .filter(([, t]) => typeof t !== 'string' && !('default' in t) && !('require' in t))
    .map(([path]) => `${pkg.name}/${path.slice(2)}`);

  function runCjs(source: string): { status: number | null; stdout: string; stderr: string } {
    const file = join(app, `check-${Math.random().toString(36).slice(2)}.cjs`);
    writeFileSync(file, source);
    const env = { ...process.env };
    delete env.FORCE_COLOR;
    const result = spawnSync(process.execPath, [file], { cwd: app, encoding: 'utf8', timeout: 60_000, env });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  describe('when it requires the packed package', () => {
    it('requires every CommonJS-capable export of the packed package', () => {
      expect(requirable).toEqual([
        'gate-audit',
        'gate-audit/langgraph',
        'gate-audit/vitest',
        'gate-audit/otel',
        'gate-audit/stores/postgres',
        'gate-audit/package.json',
      ]);
      const { status, stdout, stderr } = runCjs(
        `for (const id of ${JSON.stringify(requirable)}) {\n` +
          '  const m = require(id);\n' +
          "  console.log(id, typeof m === 'object' && m !== null ? Object.keys(m).length : typeof m);\n" +
          '}\n',
      );
      expect(status, stderr).toBe(0);
      for (const id of requirable) expect(stdout).toMatch(new RegExp(`^${id} [1-9]\\d*$`, 'm'));
    });

    it("gets the same module (one copy of gate-audit's state) through require and import, with the API", () => {
      const { status, stdout, stderr } = runCjs(
        "const required = require('gate-audit');\n" +
          "import('gate-audit').then((imported) => {\n" +
          "  console.log(required.installMultiagent === imported.installMultiagent, typeof required.audit, typeof require('gate-audit/vitest').toBeFullyGated);\n" +
          '});\n',
      );
      expect(status, stderr).toBe(0);
      expect(stdout.trim()).toBe('true function function');
    });
  });

  describe('when it requires an import-only export', () => {
    it('cannot require gate-audit/tui or gate-audit/register (import-only: top-level await), and says so with the Node error', () => {
      // ink uses top-level await; the register preload awaits the configuration before the app runs.
      expect(importOnly).toEqual(['gate-audit/tui', 'gate-audit/register']);
      const { stdout } = runCjs(
        "for (const id of ['gate-audit/tui', 'gate-audit/register']) {\n" +
          "  try { require(id); console.log('loaded'); } catch (e) { console.log(e.code); }\n" +
          '}\n',
      );
      expect(stdout.trim().split('\n')).toEqual(['ERR_PACKAGE_PATH_NOT_EXPORTED', 'ERR_PACKAGE_PATH_NOT_EXPORTED']);
    });
  });

  describe('when it resolves the type declarations', () => {
    it('ships type declarations for every export', () => {
      for (const [, target] of exported) {
        if (typeof target === 'string') continue;
        expect(target.types, JSON.stringify(target)).toBeDefined();
        expect(existsSync(join(app, 'node_modules/gate-audit', target.types!))).toBe(true);
      }
      expect(readdirSync(join(app, 'node_modules/gate-audit/dist')).length).toBeGreaterThan(3);
    });
  });
});
