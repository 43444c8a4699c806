// `npm run bench:own`: gate-audit's own work per gated tool call, in CPU microseconds.
//
// The loop is `bench:instructions`' tool-call loop (instructions-loop.mjs, mode `allow-all` unless MODE says:
// 5 agents of 20 calls a round, every agent of every round built and gated up front, 3 warm-up rounds). It runs
// under Linux `perf` sampling the CPU clock (`-e cpu-clock`, FREQ samples per CPU-second, call graphs), with V8
// writing its map of compiled code (`--perf-basic-prof`, and `--interpreted-frames-native-stack` so that a
// function not yet compiled has a frame of its own). Each pair runs the loop twice, counting R1 and R2 rounds; the
// difference of the two runs' own time divided by the difference of their calls is the per-call cost, start-up
// and warm-up cancelled out.
//
// What counts as gate-audit's own (the definition this script makes): a sample of the process's main thread
// whose nearest JavaScript frame with a source location (walking from the sampled frame towards the root, past
// V8's builtins, its runtime, the garbage collector, native code and Node's own `node:` modules) is in gate-audit's compiled `dist/`. Work
// V8 does on other threads (compiling, concurrent marking) is not counted; work it does on the main thread
// for gate-audit's code (a builtin such as Object.freeze called by it, a collection it triggers) is.
//
// Not `--cpu-prof`: V8's own profiler samples wall time on a timer thread and moved by tens of microseconds
// per call between runs of the same code. Needs `perf` (Debian: apt-get install linux-perf), a kernel that
// lets this user sample its own processes (perf_event_paranoid ≤ 2) and the built `dist/`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = `${resolve(here, '..', 'dist')}/`;
const mode = process.env.MODE ?? 'allow-all';
const pairs = Number(process.env.PAIRS ?? 5);
const r1 = Number(process.env.R1 ?? 8);
const r2 = Number(process.env.R2 ?? 32);
const freq = Number(process.env.FREQ ?? 10000);
const calls = 20;
const BUDGET_US = 12;

if (spawnSync('perf', ['--version']).status !== 0) {
  process.stderr.write('bench:own needs Linux perf | install it (Debian: apt-get install linux-perf)\n');
  process.exit(2);
}
if (!(pairs >= 5 && r2 > r1 && r1 >= 1)) {
  process.stderr.write('bench:own: PAIRS must be at least 5 and R2 greater than R1 | e.g. PAIRS=5 R1=8 R2=32\n');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'gate-audit-own-'));

/** Gate-audit's own main-thread CPU nanoseconds in one run of the loop counting `counted` rounds. */
function ownNanoseconds(counted) {
  const data = join(work, `perf-${counted}.data`);
  const recorded = spawnSync(
    'perf',
    [
      'record',
      '-q',
      '-e',
      'cpu-clock',
      '-F',
      String(freq),
      '-g',
      '-o',
      data,
      '--',
      process.execPath,
      '--perf-basic-prof',
      '--interpreted-frames-native-stack',
      join(here, 'instructions-loop.mjs'),
    ],
    {
      env: { ...process.env, MODE: mode, R: String(counted), RMAX: String(r2), CALLS: String(calls), WARM: '3' },
      // V8 writes a log file per isolate into its working directory while it writes its map for perf.
      cwd: work,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    },
  );
  if (recorded.status !== 0) {
    process.stderr.write(recorded.stderr.slice(-2000));
    throw new Error(`the ${mode} loop failed under perf (exit ${recorded.status})`);
  }
  const script = spawnSync('perf', ['script', '-i', data, '-F', 'pid,tid,period,ip,sym'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.slice(-500)}`);
  let own = 0;
  let main = 0;
  let pid;
  for (const block of script.stdout.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    if (lines.length === 0) continue;
    const head = /^\s*(\d+)\/(\d+)\s+(\d+)/.exec(lines[0]);
    if (head === null || head[1] !== head[2]) continue; // not the main thread
    pid = head[1];
    const period = Number(head[3]);
    main += period;
    for (const frame of lines.slice(1)) {
      // A compiled or interpreted JavaScript function: `JS:*name file:///path:line:col` (or a plain path).
      const js = /JS:\S*\s.*?((?:file:\/\/)?\/[^\s:]+):\d+/.exec(frame);
      if (js === null) continue;
      const file = js[1].replace(/^file:\/\//, '');
      if (file.startsWith(dist)) own += period;
      break;
    }
  }
  rmSync(data, { force: true });
  if (pid !== undefined) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  return { own, main };
}

const perCall = [];
const callsOf = (rounds) => rounds * 5 * calls;
try {
  for (let pair = 0; pair < pairs; pair += 1) {
    const low = ownNanoseconds(r1);
    const high = ownNanoseconds(r2);
    const us = (high.own - low.own) / (callsOf(r2) - callsOf(r1)) / 1000;
    const mainUs = (high.main - low.main) / (callsOf(r2) - callsOf(r1)) / 1000;
    perCall.push(us);
    process.stderr.write(
      `  pair ${pair + 1}: own ${us.toFixed(2)} µs per call (main thread ${mainUs.toFixed(1)} µs per call)\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
// No sample of gate-audit's or of the main thread means the sampler saw nothing (no map of V8's code, another
// thread sampled): that is a failed measurement, not a cost of zero.
if (perCall.some((us) => !(us > 0))) {
  process.stderr.write(
    "bench:own: a pair measured no time of gate-audit's (or less in its longer run) | check that perf reads V8's map (/tmp/perf-PID.map), and run it idle or with more rounds (R2)\n",
  );
  process.exit(1);
}
const sorted = [...perCall].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
const verdict = median <= BUDGET_US ? 'met' : 'NOT met';
process.stdout.write(
  `gate-audit's own work per gated tool call (${mode}, ${pairs} pairs of ${r1} and ${r2} rounds of ${5 * calls} calls, ` +
    `perf cpu-clock at ${freq} Hz): median ${median.toFixed(2)} µs, spread ${sorted[0].toFixed(2)}–${sorted[sorted.length - 1].toFixed(2)} µs; ` +
    `budget ${BUDGET_US} µs: ${verdict}\n`,
);
