/**
 * Measurement helpers: every ratio is taken in one process, alternating the two sides pair by pair (the
 * order flips each pair), and summarised by the median of the per-pair ratios and its spread.
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

/** Paired samples of the measured side and the baseline. */
export interface Pairs {
  readonly measured: number[];
  readonly baseline: number[];
}

/**
 * Measures the two sides alternately: `warmup` pairs are thrown away, then `pairs` pairs are kept, the order
 * flipping each pair.
 */
export async function alternate(
  pairs: number,
  warmup: number,
  measured: () => Promise<number> | number,
  baseline: () => Promise<number> | number,
): Promise<Pairs> {
  const result: Pairs = { measured: [], baseline: [] };
  for (let i = 0; i < warmup + pairs; i++) {
    let m: number;
    let b: number;
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

/** Summarises paired samples as a row. */
export function row(
  name: string,
  unit: string,
  samples: Pairs,
  note: string,
  target?: { max: number; text?: string },
): Row {
  const ratios = samples.measured.map((m, i) => m / samples.baseline[i]!);
  const ratio = median(ratios);
  return {
    name,
    value: round(median(samples.measured)),
    unit,
    baseline: round(median(samples.baseline)),
    ratio: round(ratio, 3),
    spread: [round(quantile(ratios, 0.25), 3), round(quantile(ratios, 0.75), 3)],
    pairs: ratios.length,
    ...(target === undefined ? {} : { target: target.text ?? `ratio ≤ ${target.max}`, met: ratio <= target.max }),
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
