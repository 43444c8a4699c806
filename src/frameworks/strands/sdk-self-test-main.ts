/**
 * The self-test's process: runs the behavioural self-test on the SDK copy this file resolves and writes
 * the result as one JSON line on stdout (the probes' own log lines go to stderr, which the parent keeps).
 */
import { markSelfTestProcess } from './sdk-check.js';
import { runSelfTest } from './sdk-self-test.js';

markSelfTestProcess();
void runSelfTest().then(
  (result) => process.stdout.write(`\n${JSON.stringify(result)}\n`),
  (error: unknown) =>
    process.stdout.write(`\n${JSON.stringify({ ok: false, check: 'the self-test runs', detail: String(error) })}\n`),
);
