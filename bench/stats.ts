import { readFileSync } from 'node:fs';

/**
 * Measurement helpers: every ratio is taken in one process, alternating the two sides pair by pair (the
 * order flips each pair), and summarised by the median of the per-pair ratios and its spread. In-process
 * rows are measured twice over: wall-clock time and CPU time of the process (`process.cpuUsage`, user +
 * system, every thread), so a loaded machine (time spent waiting for a core) shows in wall time only.
 */

/** One benchmark row, as written to `bench/results.json`. */
export interface Row {
  /** Stable row name. */
  readonly name: string;
  /** Median of the measured side. */
  readonly value: number;
  /** Unit of `value` and `baseline`. */
  readonly unit: string;
  /** Median of the baseline side. */
  readonly baseline: number;
  /** Median of the per-pair ratios measured/baseline. */
  readonly ratio: number;
  /** 25th and 75th percentile of the per-pair ratios. */
  readonly spread: readonly [number, number];
  /** Number of pairs. */
  readonly pairs: number;
  /**
   * The same in CPU time of the process, for in-process rows (value and baseline in the row's unit of
   * CPU time); when present, the target applies to its ratio.
   */
  readonly cpu?: {
    readonly value: number;
    readonly baseline: number;
    readonly ratio: number;
    readonly spread: readonly [number, number];
  };
  /** The same in CPU time of the main thread alone, where the platform gives it. */
  readonly thread?: {
    readonly value: number;
    readonly baseline: number;
    readonly ratio: number;
    readonly spread: readonly [number, number];
  };
  /** What the ratio must stay under, when the issue sets a target. */
  readonly target?: string;
  /** Whether the target is met. */
  readonly met?: boolean;
  /** What the two sides are. */
  readonly note: string;
}

/** The q-quantile of a list (linear interpolation). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** The median of a list. */
export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Collects garbage between measurements when node runs with --expose-gc, so one side does not pay for the other. */
export function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const settleFully = settle;

/**
 * A young-generation collection only: for rows whose side is a hot loop of small calls, where a full
 * collection between sides flushes compiled code and type feedback, so the next batch would measure
 * re-optimisation (a decision measured 100 µs after a full collection, 20 µs after a young one).
 */
export function settleYoung(): void {
  (globalThis as { gc?: (options?: { type: string }) => void }).gc?.({ type: 'minor' });
}

/** One side's measurement: wall-clock time, CPU time of the process, and CPU time of the main thread. */
export interface Timed {
  readonly wall: number;
  readonly cpu: number;
  /** CPU time of the main thread alone (NaN where the platform does not give it). */
  readonly thread: number;
}

/** `process.threadCpuUsage`, in Node versions that have it (22.x recent, 23.9 and later). */
const threadCpuUsage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;

/**
 * CPU time of the calling thread in milliseconds: `process.threadCpuUsage()` where Node has it, else Linux's
 * `/proc/thread-self/schedstat` (which advances only at the scheduler's ticks, a few milliseconds: good for
 * samples of tens of milliseconds), else NaN. Process CPU time also counts V8's helper threads (concurrent
 * GC marking and compilation), whose work depends on when the engine schedules it.
 */
export function threadCpuMs(): number {
  if (threadCpuUsage !== undefined) {
    const used = threadCpuUsage.call(process);
    return (used.user + used.system) / 1000;
  }
  try {
    const text = readFileSync('/proc/thread-self/schedstat', 'latin1');
    return Number(text.slice(0, text.indexOf(' '))) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * Runs `work` and returns its wall-clock and process CPU time in milliseconds, each divided by `per`.
 *
 * @param work - what to time
 * @param per - how many operations it does
 */
export async function timed(work: () => unknown, per = 1): Promise<Timed> {
  const started = startClocks();
  await work();
  return stopClocks(started, per);
}

/** The same timing synchronously (no await between the two readings). */
export function timedSync(work: () => unknown, per = 1): Timed {
  const started = startClocks();
  work();
  return stopClocks(started, per);
}

/** The three clocks read at the start of a measurement. */
interface Clocks {
  readonly cpu: NodeJS.CpuUsage;
  readonly thread: number;
  readonly wall: number;
}

function startClocks(): Clocks {
  const cpu = process.cpuUsage();
  const thread = threadCpuMs();
  return { cpu, thread, wall: performance.now() };
}

/** The time since `started` on each clock, in milliseconds divided by `per`. */
function stopClocks(started: Clocks, per: number): Timed {
  const wallMs = performance.now() - started.wall;
  const threadMs = threadCpuMs() - started.thread;
  const used = process.cpuUsage(started.cpu);
  return { wall: wallMs / per, cpu: (used.user + used.system) / 1000 / per, thread: threadMs / per };
}

/** Paired samples of the measured side and the baseline: plain numbers, or wall and CPU time. */
export interface Pairs<T extends number | Timed = number | Timed> {
  readonly measured: T[];
  readonly baseline: T[];
}

/**
 * Measures the two sides alternately: `warmup` pairs are thrown away, then `pairs` pairs are kept, the order
 * flipping each pair.
 */
export async function alternate<T extends number | Timed>(
  pairs: number,
  warmup: number,
  measured: () => Promise<T> | T,
  baseline: () => Promise<T> | T,
  settle: () => void = settleFully,
): Promise<Pairs<T>> {
  const result: Pairs<T> = { measured: [], baseline: [] };
  for (let i = 0; i < warmup + pairs; i++) {
    let m: T;
    let b: T;
    settle();
    if (i % 2 === 0) {
      m = await measured();
      settle();
      b = await baseline();
    } else {
      b = await baseline();
      settle();
      m = await measured();
    }
    if (i >= warmup) {
      result.measured.push(m);
      result.baseline.push(b);
    }
  }
  return result;
}

function summary(
  measured: readonly number[],
  baseline: readonly number[],
): { value: number; baseline: number; ratio: number; spread: [number, number]; exact: number } {
  const ratios = measured.map((m, i) => m / baseline[i]!);
  const exact = median(ratios);
  return {
    value: round(median(measured)),
    baseline: round(median(baseline)),
    ratio: round(exact, 3),
    spread: [round(quantile(ratios, 0.25), 3), round(quantile(ratios, 0.75), 3)],
    exact,
  };
}

/**
 * Summarises paired samples as a row. With wall and CPU samples the row carries both, and the target
 * applies to the CPU ratio.
 */
export function row(
  name: string,
  unit: string,
  samples: Pairs,
  note: string,
  target?: { max: number; text?: string },
): Row {
  const wallOf = (s: number | Timed): number => (typeof s === 'number' ? s : s.wall);
  const wall = summary(samples.measured.map(wallOf), samples.baseline.map(wallOf));
  const cpuOf = (s: number | Timed): number => (typeof s === 'number' ? Number.NaN : s.cpu);
  const withCpu = [...samples.measured, ...samples.baseline].every((s) => typeof s !== 'number');
  const cpu = withCpu ? summary(samples.measured.map(cpuOf), samples.baseline.map(cpuOf)) : undefined;
  const threadOf = (s: number | Timed): number => (typeof s === 'number' ? Number.NaN : s.thread);
  // A sample too short for the thread clock reads 0: such rows get no thread ratio.
  const withThread =
    withCpu && [...samples.measured, ...samples.baseline].every((s) => Number.isFinite(threadOf(s)) && threadOf(s) > 0);
  const thread = withThread ? summary(samples.measured.map(threadOf), samples.baseline.map(threadOf)) : undefined;
  const judged = cpu ?? wall;
  return {
    name,
    value: wall.value,
    unit,
    baseline: wall.baseline,
    ratio: wall.ratio,
    spread: wall.spread,
    pairs: samples.measured.length,
    ...(cpu === undefined
      ? {}
      : { cpu: { value: cpu.value, baseline: cpu.baseline, ratio: cpu.ratio, spread: cpu.spread } }),
    ...(thread === undefined
      ? {}
      : {
          thread: { value: thread.value, baseline: thread.baseline, ratio: thread.ratio, spread: thread.spread },
        }),
    ...(target === undefined
      ? {}
      : {
          target: target.text ?? `${cpu === undefined ? '' : 'CPU '}ratio ≤ ${target.max}`,
          met: judged.exact <= target.max,
        }),
    note,
  };
}

/** Rounds to a few significant places for the table and the JSON. */
export function round(value: number, digits = 4): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const factor = 10 ** Math.max(0, digits - 1 - magnitude);
  return Math.round(value * factor) / factor;
}
