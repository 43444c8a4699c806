/**
 * The vitest config Stryker runs (`npm run mutation`): the main config, narrowed to the tests that exercise the
 * mutated directories. Stryker runs only the tests that cover each mutant (`coverageAnalysis: 'perTest'`), but
 * its first (dry) run runs every included test, so leaving out the renderers', TUI's and CLI's tests keeps that
 * run short on a small machine.
 *
 * `GATE_AUDIT_MUTATION_TESTS` picks the set: a comma-separated list of `enforce`, `walker`, `policy`, `frameworks`,
 * `langgraph`, `otel`, `report`, `sdk` (default: the first four), e.g. `GATE_AUDIT_MUTATION_TESTS=enforce npx stryker run --mutate src/enforce/execution-check.ts`.
 */
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** The tests that exercise each mutated directory. */
const sets: Record<string, string[]> = {
  // The tamper, fail-closed and concurrency rows attack src/enforce with real SDK objects. The SDK's private shape
  // (src/frameworks/strands) is read by the walker and written by the gate: its tests run with both sets, as they
  // did before the folder was split out of src/walker and src/enforce.
  enforce: [
    'test/enforce/**/*.test.ts',
    'test/frameworks/**/*.test.ts',
    'test/reliability/tamper.test.ts',
    'test/reliability/fail-closed.test.ts',
    'test/reliability/concurrency.test.ts',
    // The approval round trips (interrupt, resume, nonce, pre-loaded answers) of src/enforce/ask.ts, and its
    // durable path (a pending approval written to a store by `raise`, answered after a restart by `resume`).
    'test/policy/approval.test.ts',
    'test/policy/approval-store.test.ts',
  ],
  walker: ['test/walker/**/*.test.ts', 'test/frameworks/**/*.test.ts', 'test/reliability/walker-properties.test.ts'],
  policy: ['test/policy/**/*.test.ts'],
};
// The SDK's fields are read and written through the walker and the gate, so their mutants need both sets.
sets.frameworks = [...new Set([...(sets.enforce ?? []), ...(sets.walker ?? [])])];
// The LangGraph adapter alone (a narrow run: `GATE_AUDIT_MUTATION_TESTS=langgraph npx stryker run --mutate
// 'src/frameworks/langgraph/**/*.ts'`): its own tests and the guarantee suite it shares with Strands.
sets.langgraph = [
  'test/frameworks/langgraph/**/*.test.ts',
  'test/frameworks/seam.guarantees.test.ts',
  'test/frameworks/versions.test.ts',
];
// OpenTelemetry (a narrow run: `GATE_AUDIT_MUTATION_TESTS=otel npx stryker run --mutate src/otel/langgraph.ts`): the
// span processor's and the LangGraph tracer's tests, which read spans back as `gate-audit observed` does.
sets.otel = ['test/otel/**/*.test.ts'];
// The reports (a narrow run: `GATE_AUDIT_MUTATION_TESTS=report npx stryker run --mutate src/report/coverage.ts`): the
// report's own tests (not the renderers', which open a browser and run the command for each mutant), the walk's, and
// the guarantee suite both frameworks share.
sets.report = ['test/report/*.test.ts', 'test/walker/**/*.test.ts', 'test/frameworks/seam.guarantees.test.ts'];
// The SDK's private shape read by its own suites alone (a narrow run: `GATE_AUDIT_MUTATION_TESTS=sdk npx stryker run
// --mutate src/frameworks/strands/sdk-internals.ts`): a floor under the frameworks set's score, in minutes, not hours.
sets.sdk = ['test/frameworks/strands/sdk-*.test.ts'];

const chosen = (process.env.GATE_AUDIT_MUTATION_TESTS ?? 'enforce,walker,policy,frameworks')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
for (const name of chosen) {
  if (!(name in sets)) {
    throw new Error(
      `GATE_AUDIT_MUTATION_TESTS: unknown set '${name}'; use a comma-separated list of ${Object.keys(sets).join(', ')}`,
    );
  }
}

// Spread, not mergeConfig: mergeConfig would append to the main config's include (every test) instead of
// replacing it.
// `isolate: false`: test files share one module cache instead of importing the SDK and src/ again for each file
// of each mutant's run, which halves the CPU time of a run here. The suites pass that way (each test sets up its
// own agents and resets the process-wide gate).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    isolate: false,
    include: [...new Set(chosen.flatMap((name) => sets[name] ?? []))],
    // Its scenarios run in child processes from dist/, where no mutant is active, and one of them names the
    // repository's own path, which Stryker's sandbox copy does not have: it fails the initial run and kills nothing.
    exclude: [...configDefaults.exclude, 'test/enforce/process-guard.test.ts'],
  },
});
