#!/usr/bin/env node
// `npm test`: the whole suite with coverage thresholds, then the plain closing line CI reads
// ("N passed, N failed"), taken from vitest's JSON report. Exits with vitest's own exit code.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';

// The CLI tests load fixtures the way users' modules load: `import 'gate-audit'` resolves to the built dist/.
// GATE_AUDIT_BUILT=1 says dist/ was built from these sources already (CI builds once for its first run).
const build =
  process.env.GATE_AUDIT_BUILT === '1' ? { status: 0 } : spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
if (build.status !== 0) {
  if (process.env.GATE_AUDIT_TEST_TALLY) {
    appendFileSync(process.env.GATE_AUDIT_TEST_TALLY, `${JSON.stringify({ node: process.version, passed: 0, failed: 1, status: build.status })}\n`);
  } else console.log('0 passed, 1 failed');
  process.exit(build.status ?? 1);
}

const resultFile = '.vitest-result.json';
rmSync(resultFile, { force: true });
// CI's second run (the oldest supported SDK) checks what the SDK's version can change; coverage and its
// thresholds are the first run's (GATE_AUDIT_TEST_COVERAGE=off).
const coverage = process.env.GATE_AUDIT_TEST_COVERAGE === 'off' ? [] : ['--coverage'];
const args = ['vitest', 'run', ...coverage, '--reporter=default', '--reporter=json', `--outputFile.json=${resultFile}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit' });
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(resultFile)) {
  const result = JSON.parse(readFileSync(resultFile, 'utf8'));
  passed = result.numPassedTests ?? 0;
  skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
  failed = (result.numFailedTests ?? 0) + (result.numFailedTestSuites > 0 && result.numFailedTests === 0 ? 1 : 0);
} else {
  failed = 1;
}
// A run can fail with every test green: a coverage threshold missed, a file that failed to load. The closing
// line must never read "0 failed" then.
if (run.status !== 0 && failed === 0) {
  failed = 1;
  console.error(`vitest exited with status ${run.status} although no test failed (a coverage threshold or a file that did not load): counted as one failure`);
}
// The bash oracle may only be skipped on purpose, and the closing line then says so.
const oracleNote = process.env.GATE_AUDIT_ORACLE === 'off' ? ' (GATE_AUDIT_ORACLE=off: lines were not checked against bash)' : '';
// Under .ci/run, which runs the suite once per Node version, the counts go to a tally file and the plain line
// is printed once, for all runs together (scripts/tally.mjs).
const tally = process.env.GATE_AUDIT_TEST_TALLY;
if (tally) {
  appendFileSync(tally, `${JSON.stringify({ node: process.version, passed, failed, skipped, status: run.status })}\n`);
  console.log(`node ${process.version}: ${passed} tests passed, ${failed} failed and ${skipped} skipped${oracleNote}`);
} else {
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${oracleNote}`);
}
process.exit(run.status ?? 1);
