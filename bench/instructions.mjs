// `npm run bench:instructions`: the per-call cost of a gated tool call in machine instructions, counted by
// valgrind (callgrind) with V8 in its predictable mode (one thread, fixed seeds), so that another process on
// the machine cannot change the count the way it changes CPU time. Each mode runs twice, counting R/2 and R
// rounds (R = 8 unless ROUNDS says; 5 agents of 20 calls each, after 3 warm-up rounds, every agent built up
// front): the difference, divided by its calls, is the instructions per call of the last R/2 rounds, start-up
// and the first rounds' warm-up cancelled out. Needs valgrind
// (Debian: `apt-get install valgrind`) and the built `dist/`. Slow: about a minute per run.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.env.ROUNDS ?? 8);
const calls = 20;
// The record mode writes this many records per call of the other modes (400 records alone are within the noise
// of the process's start-up); the loop reads it from its environment.
const RECORDS_PER_CALL = 10;
const modes = (process.env.MODES ?? 'bare,allow-all,policy,policy-log,record,shared,guarded').split(',');

if (spawnSync('valgrind', ['--version']).status !== 0) {
  process.stderr.write('bench:instructions needs valgrind | install it (Debian: apt-get install valgrind)\n');
  process.exit(2);
}

/** Instructions of one run of the loop, counting `counted` of its `rounds` rounds. */
function count(mode, counted) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--smc-check=all',
        '--callgrind-out-file=/dev/null',
        process.execPath,
        '--predictable',
        '--random-seed=1',
        '--hash-seed=1',
        join(here, 'instructions-loop.mjs'),
      ],
      {
        env: {
          ...process.env,
          MODE: mode,
          R: String(counted),
          RMAX: String(rounds),
          CALLS: String(calls),
          WARM: '3',
          RECORDS_PER_CALL: String(RECORDS_PER_CALL),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (status) => {
      const match = /Collected : (\d+)/.exec(stderr);
      if (status !== 0 || match === null) {
        process.stderr.write(stderr.slice(-2000));
        reject(new Error(`the ${mode} loop failed under valgrind (exit ${status})`));
      } else resolve(Number(match[1]));
    });
  });
}

// Two runs at a time (counts do not depend on the other run); the per-call cost is taken between the
// first half of the counted rounds and all of them, so the rounds it measures come after 3 + R/2 others.
const half = Math.floor(rounds / 2);
const jobs = modes.flatMap((mode) => [
  [mode, half],
  [mode, rounds],
]);
const counts = new Map();
async function worker() {
  for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
    counts.set(`${job[0]}:${job[1]}`, await count(job[0], job[1]));
  }
}
await Promise.all([worker(), worker()]);
const perCall = {};
const perCallOf = (mode) => (mode === 'record' ? RECORDS_PER_CALL : 1);
for (const mode of modes) {
  perCall[mode] =
    (counts.get(`${mode}:${rounds}`) - counts.get(`${mode}:${half}`)) / ((rounds - half) * 5 * calls * perCallOf(mode));
  process.stderr.write(`  ${mode}: ${(perCall[mode] / 1e6).toFixed(3)}M instructions per call\n`);
}
const lines = ['| mode | instructions per call | ratio to bare |', '| --- | ---: | ---: |'];
for (const mode of modes.filter((m) => m !== 'record')) {
  const ratio = perCall.bare === undefined ? '' : (perCall[mode] / perCall.bare).toFixed(3);
  lines.push(`| ${mode} | ${(perCall[mode] / 1e6).toFixed(3)}M | ${ratio} |`);
}
if (perCall.policy !== undefined && perCall['policy-log'] !== undefined) {
  lines.push(
    '',
    `policy-log against policy (the decision-log row's pair): ${(perCall['policy-log'] / perCall.policy).toFixed(3)}`,
  );
}
if (perCall.shared !== undefined && perCall.guarded !== undefined) {
  lines.push(
    '',
    `guarded against shared (the guard-overhead row's pair; target within 2%): ${(perCall.guarded / perCall.shared).toFixed(3)}`,
  );
}
if (perCall.record !== undefined) {
  lines.push('', `one chained decision-log record alone: ${(perCall.record / 1e3).toFixed(1)}k instructions`);
}
process.stdout.write(`${lines.join('\n')}\n`);
