// One side of the `guard-overhead` bench row, in its own process (the process guard cannot be taken down once it
// stands): `MODE=guarded` starts `guardProcess` with the gate every agent carries, `MODE=plain` does not. Each
// sample times 5 freshly built agents of `CALLS` gated tool calls each (building and gating outside the timing),
// per tool call, in wall-clock and process CPU time. Prints the samples as one JSON line.
import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { allowAll, guardProcess, install } from '../dist/index.js';
import { ScriptModel } from '../fixtures/guard/model.mjs';

const mode = process.env.MODE ?? 'plain';
const calls = Number(process.env.CALLS ?? 20);
const samples = Number(process.env.SAMPLES ?? 10);
const warm = Number(process.env.WARM ?? 3);
const gate = allowAll();
if (mode === 'guarded') guardProcess({ gates: gate });

let ran = 0;
const noop = tool({
  name: 'noop',
  description: 'does nothing',
  inputSchema: z.object({}),
  callback: () => {
    ran += 1;
    return 'ok';
  },
});

function agents() {
  return Array.from({ length: 5 }, () => {
    const agent = new Agent({
      id: 'bench',
      model: new ScriptModel(Array(calls).fill('noop')),
      tools: [noop],
      printer: false,
    });
    install(agent, { gate });
    return agent;
  });
}

const out = [];
for (let i = 0; i < warm + samples; i++) {
  const built = agents();
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (const agent of built) await agent.invoke('go');
  const spent = process.cpuUsage(cpu);
  const n = built.length * calls;
  if (i >= warm) out.push({ wall: (performance.now() - wall) / n, cpu: (spent.user + spent.system) / 1000 / n });
}
if (ran !== (warm + samples) * 5 * calls)
  throw new Error(`${mode}: expected ${(warm + samples) * 5 * calls} tool runs, got ${ran}`);
process.stdout.write(`${JSON.stringify(out)}\n`);
