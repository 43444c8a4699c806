/**
 * Bench row `guard-overhead`: a gated tool call through a real Agent loop in a process guarded by
 * `guardProcess` (the agents carry its gate) against the same in a process without the guard. The guard cannot
 * be taken down once it stands, so the two sides run in alternating child processes (`bench/guard-loop.mjs`),
 * the order flipped each pair; every child times several samples and the row pairs them by index. Target: CPU
 * ratio ≤ 1.05. Child processes differ from each other more than samples within one do, so the row takes
 * many pairs; `npm run bench:instructions` (modes `shared` and `guarded`) counts the same pair in instructions,
 * which another process on the machine cannot change.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type Pairs, type Row, row, type Timed } from './stats.js';

function side(root: string, mode: 'guarded' | 'plain', samples: number): Timed[] {
  const run = spawnSync(process.execPath, ['--expose-gc', join(root, 'bench/guard-loop.mjs')], {
    cwd: root,
    env: { ...process.env, MODE: mode, SAMPLES: String(samples), NODE_NO_WARNINGS: '1' },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`guard-loop ${mode} exited ${run.status}: ${run.stderr}`);
  const parsed = JSON.parse(run.stdout) as { wall: number; cpu: number }[];
  return parsed.map((t) => ({ wall: t.wall, cpu: t.cpu, thread: Number.NaN }));
}

/**
 * Runs the row.
 *
 * @param root - the repository
 * @param pairs - how many pairs of child processes
 */
export function guardOverhead(root: string, pairs: number): Row {
  const samples: Pairs<Timed> = { measured: [], baseline: [] };
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? (['guarded', 'plain'] as const) : (['plain', 'guarded'] as const);
    for (const mode of order) {
      const timed = side(root, mode, 6);
      (mode === 'guarded' ? samples.measured : samples.baseline).push(...timed);
    }
  }
  return row(
    'guard-overhead',
    'ms/call',
    samples,
    `20 tool calls per invoke, agents gated with the guard's gate: guardProcess standing vs no guard (${pairs} pairs of processes)`,
    { max: 1.05 },
  );
}
