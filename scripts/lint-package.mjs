#!/usr/bin/env node
// Part of `npm run lint`: builds, packs the package as npm would publish it, and lints the tarball itself with
// publint (package.json, exports, files) and @arethetypeswrong/cli (types per resolution mode, profile node16).
//
// One attw rule is ignored: `cjs-resolves-to-esm` ("CommonJS consumers will need to use a dynamic import").
// It is how TypeScript's node16 mode sees any ESM package loaded with require(): @strands-agents/sdk has it on
// every entry point too (attw on @strands-agents/sdk 1.19.0, profile node16). At run time Node >= 20.19 loads
// both packages' ESM files through require() (the `default` export condition); test/packaging.test.ts checks it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`lint-package: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
  return result;
}

const work = mkdtempSync(join(tmpdir(), 'gate-audit-lint-'));
try {
  // GATE_AUDIT_BUILT=1: dist/ was built from these sources already (CI builds once, then packs and tests it).
  if (process.env.GATE_AUDIT_BUILT !== '1') run('npm', ['run', 'build', '--silent']);
  // --ignore-scripts: the build above is fresh; `prepare` would only build again.
  run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) {
    console.error('lint-package: npm pack wrote no tarball');
    process.exit(1);
  }
  const file = join(work, tarball);
  run('npx', ['--no-install', 'publint', 'run', file, '--strict']);
  run('npx', [
    '--no-install',
    'attw',
    file,
    '--profile',
    'node16',
    '--ignore-rules',
    'cjs-resolves-to-esm',
    '--format',
    'table',
    '--no-color',
  ]);
} finally {
  rmSync(work, { recursive: true, force: true });
}
