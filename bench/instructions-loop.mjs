// The loop that `npm run bench:instructions` counts under callgrind: `GATE` agents of `CALLS` tool calls each,
// gated as `MODE` says, `WARM` rounds of 5 agents to warm up then `R` rounds counted. Every agent of every
// round is built and gated before the first invocation whatever `R` is, so two runs that differ only in `R`
// differ only by the invocations: their difference is what `R` rounds of calls cost.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { allowAll, guardProcess, install, openDecisionLog, policyGate } from '../dist/index.js';
import { ScriptModel } from '../fixtures/guard/model.mjs';

let ran = 0;
const noop = tool({
  name: 'noop',
  description: 'does nothing',
  inputSchema: z.object({ i: z.number() }),
  callback: () => {
    ran += 1;
    return 'ok';
  },
});
const mode = process.env.MODE ?? 'bare';
const calls = Number(process.env.CALLS ?? 20);
const warm = Number(process.env.WARM ?? 3);
const counted = Number(process.env.R ?? 0);
const most = Number(process.env.RMAX ?? counted);
const dir = mkdtempSync(join(tmpdir(), 'gate-audit-instructions-'));
const policy = { version: 1, rules: [{ id: 'noop-ok', tools: ['noop'], verdict: 'allow' }] };
const logs = [];
let n = 0;

// `shared` and `guarded` gate every agent with one allow-all gate; `guarded` also starts the process guard with it
// (the pair of the `guard-overhead` bench row: the guard must cost no instructions worth counting).
const shared = allowAll();
if (mode === 'guarded') guardProcess({ gates: shared });

function agent() {
  const built = new Agent({
    id: 'bench',
    model: new ScriptModel(Array.from({ length: calls }, (_, i) => ({ name: 'noop', input: { i: i + 1 } }))),
    tools: [noop],
    printer: false,
  });
  if (mode === 'allow-all') install(built, { gate: allowAll() });
  if (mode === 'shared' || mode === 'guarded') install(built, { gate: shared });
  if (mode === 'policy') install(built, { gate: policyGate(policy) });
  if (mode === 'policy-log') {
    const log = openDecisionLog(join(dir, `log-${n++}.jsonl`));
    logs.push(log);
    install(built, { gate: policyGate(policy, { log }) });
  }
  return built;
}

/** How many records the `record` mode writes per call of the other modes (set and divided by `instructions.mjs`). */
const RECORDS_PER_CALL = Number(process.env.RECORDS_PER_CALL ?? 1);

if (mode === 'record') {
  // The decision log's own cost: one chained record to a file per "call", no agent around it.
  const gate = policyGate(policy, { log: { destination: join(dir, 'records.jsonl') } });
  const input = Object.freeze({ i: 1 });
  const record = (i) =>
    gate.record({
      event: 'allow',
      verdict: 'allow',
      toolName: 'noop',
      toolUseId: `u${i}`,
      agentId: 'bench',
      path: ['bench'],
      paths: [['bench']],
      input,
      durationMs: 0.123,
    });
  for (let i = 0; i < (warm + counted) * 5 * calls * RECORDS_PER_CALL; i += 1) record(i);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const rounds = Array.from({ length: warm + most }, () => Array.from({ length: 5 }, agent));
for (const round of rounds.slice(0, warm + counted)) for (const built of round) await built.invoke('go');
for (const log of logs) log.close();
rmSync(dir, { recursive: true, force: true });
const expected = (warm + counted) * 5 * calls;
if (ran !== expected) throw new Error(`${mode}: expected ${expected} tool runs, got ${ran}`);
