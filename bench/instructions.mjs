// `npm run bench:instructions`: the per-call cost of a gated tool call in machine instructions, counted by
// valgrind (callgrind) with V8 in its predictable mode (one thread, fixed seeds), so that another process on
// the machine cannot change the count the way it changes CPU time. Each mode runs twice, with 0 and with R
// counted rounds (R = 8 unless ROUNDS says; 5 agents of 20 calls each, after 3 warm-up rounds): the difference, divided by the calls,
// is the instructions per call of the steady loop, start-up and warm-up cancelled out. Needs valgrind
// (Debian: `apt-get install valgrind`) and the built `dist/`. Slow: about a minute per run.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.env.ROUNDS ?? 8);
const calls = 20;
const modes = (process.env.MODES ?? 'bare,allow-all,policy,policy-log,record').split(',');

if (spawnSync('valgrind', ['--version']).status !== 0) {
  process.stderr.write('bench:instructions needs valgrind | install it (Debian: apt-get install valgrind)\n');
  process.exit(2);
}

/** Instructions of one run of the loop. */
function count(mode, counted) {
  const run = spawnSync(
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
      env: { ...process.env, MODE: mode, R: String(counted), RMAX: String(rounds), CALLS: String(calls), WARM: '3' },
      encoding: 'utf8',
    },
  );
  const match = /Collected : (\d+)/.exec(run.stderr);
  if (run.status !== 0 || match === null) {
    process.stderr.write(run.stderr.slice(-2000));
    throw new Error(`the ${mode} loop failed under valgrind (exit ${run.status})`);
  }
  return Number(match[1]);
}

const perCall = {};
for (const mode of modes) {
  const base = count(mode, 0);
  const full = count(mode, rounds);
  perCall[mode] = (full - base) / (rounds * 5 * calls);
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
if (perCall.record !== undefined) {
  lines.push('', `one chained decision-log record alone: ${(perCall.record / 1e3).toFixed(1)}k instructions`);
}
process.stdout.write(`${lines.join('\n')}\n`);
