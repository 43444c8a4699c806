// A vitest reporter for `npm run sdk-matrix`: writes one JSON line per test that did not pass (its name, state
// and the note a skipped test gave with `ctx.skip(note)`) to the file named by GATE_AUDIT_OUTCOMES.
import { appendFileSync } from 'node:fs';

export default class OutcomesReporter {
  onTestCaseResult(testCase) {
    const file = process.env.GATE_AUDIT_OUTCOMES;
    const result = testCase.result();
    if (file === undefined || result.state === 'passed') return;
    const line = { name: testCase.fullName, file: testCase.module.moduleId, state: result.state, note: result.note };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
}
