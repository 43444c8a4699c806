#!/usr/bin/env node
// `npm run sdk-matrix`: runs the whole suite on every minor of the tested SDK range (the newest patch of each
// minor from the npm registry, within SDK_TESTED of src/frameworks/strands/sdk-version.ts) and writes docs/compatibility.md's "Supported SDK
// versions" table: version, tests passed / failed / skipped, and what differs (the notes of skipped feature
// tests, the names of failed tests). It works in a copy of this checkout, never in it (the lock's SDK stays).
//
//   npm run sdk-matrix                 every minor of the tested range, then update docs/compatibility.md
//   npm run sdk-matrix -- --newer      also every minor published after the range (not written to docs/compatibility.md)
//   npm run sdk-matrix -- 1.12.0 ...   only these versions (not written to docs/compatibility.md)
//
// About 2 minutes per version on 2 cores. Exits 1 when any version of the tested range fails a test.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const source = readFileSync(join(root, 'src/frameworks/strands/sdk-version.ts'), 'utf8');
const min = /min: '([^']+)'/.exec(source)?.[1];
const max = /max: '([^']+)'/.exec(source)?.[1];
if (min === undefined || max === undefined) throw new Error('SDK_TESTED not found in src/frameworks/strands/sdk-version.ts');

// The notes a feature test may skip with; any other skip is reported (a security test never skips).
const shape = readFileSync(join(root, 'src/frameworks/strands/sdk-shape.ts'), 'utf8');
const featureBlock = /FEATURE_ABSENT[^{]*\{([^}]*)\}/.exec(shape)?.[1] ?? '';
const featureNotes = new Set([...featureBlock.matchAll(/:\s*'([^']+)'/g)].map((m) => m[1]));

const parse = (v) => v.split('.').map(Number);
const compare = (a, b) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
};

function sh(command, args, options = {}) {
  return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
}

const argv = process.argv.slice(2);
const newer = argv.includes('--newer');
const explicit = argv.filter((a) => /^\d+\.\d+\.\d+$/.test(a));
const published = JSON.parse(sh('npm', ['view', '@strands-agents/sdk', 'versions', '--json']).stdout).filter((v) =>
  /^\d+\.\d+\.\d+$/.test(v),
);
const newestOfMinor = new Map();
for (const v of published) {
  const minor = v.split('.').slice(0, 2).join('.');
  const inRange = compare(v, min) >= 0 && (compare(v, max) <= 0 || newer);
  if (inRange && (newestOfMinor.get(minor) === undefined || compare(v, newestOfMinor.get(minor)) > 0)) {
    newestOfMinor.set(minor, v);
  }
}
const versions = explicit.length > 0 ? explicit : [...newestOfMinor.values()].sort(compare);
// The two ends first (they are what CI runs); the table is rewritten after every version, so a run stopped
// early leaves the versions it did not reach marked as not run.
const order = versions.length > 2 ? [versions[0], versions[versions.length - 1], ...versions.slice(1, -1)] : versions;
const writeReadme = explicit.length === 0 && !newer;
console.log(`sdk-matrix: tested range >=${min} <=${max}; running ${versions.join(', ')}`);

// A copy of the checkout (without .git, build output and coverage) with its own node_modules (`cp -a` is far
// quicker than a filtered copy of node_modules).
const work = mkdtempSync(join(tmpdir(), 'gate-audit-matrix-'));
const skip = new Set(['.git', 'dist', 'coverage', 'node_modules', '.vitest-result.json']);
for (const entry of readdirSync(root)) {
  if (skip.has(entry)) continue;
  cpSync(join(root, entry), join(work, entry), { recursive: true, filter: (path) => !path.includes('/test/.generated') });
}
if (sh('cp', ['-a', join(root, 'node_modules'), join(work, 'node_modules')]).status !== 0) {
  throw new Error('could not copy node_modules');
}
rmSync(join(work, 'node_modules/.gate-audit-test'), { recursive: true, force: true });

const rows = [];
let failedInRange = false;

/** The table of the versions run so far (the others marked not run), written to docs/compatibility.md when asked. */
function writeTable() {
  const byVersion = new Map(rows.map((r) => [r.version, r]));
  const table = [
    '| @strands-agents/sdk | tests passed | failed | skipped | what differs |',
    '| --- | --- | --- | --- | --- |',
    ...versions.map((v) => {
      const r = byVersion.get(v);
      return r === undefined
        ? `| ${v} | | | | not run yet |`
        : `| ${r.version} | ${r.passed} | ${r.failed} | ${r.skipped} | ${r.differs.replaceAll('|', '\\|')} |`;
    }),
    '',
    `Written by \`npm run sdk-matrix\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, tested range ` +
      `\`>=${min} <=${max}\`).`,
  ].join('\n');
  if (!writeReadme) return table;
  const readmePath = join(root, 'docs', 'compatibility.md');
  const readme = readFileSync(readmePath, 'utf8');
  const start = '<!-- sdk-matrix:start -->';
  const end = '<!-- sdk-matrix:end -->';
  if (!readme.includes(start) || !readme.includes(end)) throw new Error(`docs/compatibility.md has no ${start} … ${end} markers`);
  writeFileSync(
    readmePath,
    `${readme.slice(0, readme.indexOf(start) + start.length)}\n${table}\n${readme.slice(readme.indexOf(end))}`,
  );
  return table;
}
try {
  for (const version of order) {
    console.log(`\n== @strands-agents/sdk ${version}`);
    const install = sh('npm', ['install', '--no-save', '--no-audit', '--no-fund', `@strands-agents/sdk@${version}`], {
      cwd: work,
    });
    if (install.status !== 0) {
      rows.push({ version, passed: 0, failed: 1, skipped: 0, differs: 'npm install failed' });
      continue;
    }
    const build = sh('npm', ['run', 'build', '--silent'], { cwd: work });
    if (build.status !== 0) {
      const first = `${build.stdout}${build.stderr}`.split('\n').find((l) => l.includes('error TS')) ?? 'build failed';
      rows.push({ version, passed: 0, failed: 1, skipped: 0, differs: `does not build: ${first.trim()}` });
      failedInRange ||= compare(version, max) <= 0;
      continue;
    }
    const outcomes = join(work, '.matrix-outcomes.jsonl');
    const result = join(work, '.matrix-result.json');
    rmSync(outcomes, { force: true });
    rmSync(result, { force: true });
    const run = sh(
      'npx',
      [
        'vitest',
        'run',
        '--reporter=dot',
        '--reporter=json',
        `--outputFile.json=${result}`,
        '--reporter=./scripts/vitest-outcomes-reporter.mjs',
      ],
      { cwd: work, env: { ...process.env, GATE_AUDIT_OUTCOMES: outcomes, CI: 'true' }, stdio: 'inherit' },
    );
    const counts = existsSync(result) ? JSON.parse(readFileSync(result, 'utf8')) : {};
    const lines = existsSync(outcomes)
      ? readFileSync(outcomes, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      : [];
    const notes = [...new Set(lines.filter((l) => l.state === 'skipped' && featureNotes.has(l.note)).map((l) => l.note))];
    const failures = lines.filter((l) => l.state === 'failed').map((l) => `fails: ${l.name}`);
    const unexplained = lines
      .filter((l) => l.state === 'skipped' && !featureNotes.has(l.note))
      .map((l) => `skipped without a feature reason: ${l.name}`);
    const skippedCount = lines.filter((l) => l.state === 'skipped').length;
    const row = {
      version,
      passed: counts.numPassedTests ?? 0,
      failed:
        (counts.numFailedTests ?? 0) + (run.status !== 0 && !counts.numFailedTests ? 1 : 0) + unexplained.length,
      skipped: skippedCount,
      differs:
        [
          ...notes.map((n) => {
            const count = lines.filter((l) => l.state === 'skipped' && (l.note ?? 'skipped') === n).length;
            return `${count} feature test${count === 1 ? '' : 's'} skipped: ${n}`;
          }),
          ...failures,
          ...unexplained,
        ].join('; ') || 'nothing: every test passes',
    };
    rows.push(row);
    failedInRange ||= row.failed > 0 && compare(version, max) <= 0;
    console.log(`   ${row.passed} passed, ${row.failed} failed, ${row.skipped} skipped | ${row.differs}`);
    writeTable();
  }
  console.log(`\n${writeTable()}`);
  if (writeReadme) console.log('sdk-matrix: docs/compatibility.md updated');
} finally {
  rmSync(work, { recursive: true, force: true });
}

process.exit(failedInRange ? 1 : 0);
