#!/usr/bin/env node
// Prints the one plain line CI reads, "N passed, N failed", summed over every run recorded in the tally file
// (one JSON line per `npm test` run, written by scripts/test.mjs). A missing or empty tally is a failure.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2];
const runs = file && existsSync(file)
  ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
  : [];
const expected = Number(process.argv[3] ?? 1);
let passed = 0;
let skipped = 0;
let failed = runs.length < expected ? 1 : 0;
for (const run of runs) {
  passed += run.passed;
  skipped += run.skipped ?? 0;
  failed += run.failed + (run.status !== 0 && run.failed === 0 ? 1 : 0);
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 ? 0 : 1);
