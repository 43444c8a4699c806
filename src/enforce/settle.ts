/**
 * Settling what a gate's method returned, framework-neutral: synchronously when it answered at once, within a
 * deadline when it returned a thenable (whose `then` is read exactly once).
 */

/** Marks a value that did not settle in time. */
export class Late {
  constructor(readonly ms: number) {}
}

/** What settling a gate's answer gives: its value, `Late` past the deadline, or what it threw. */
export type Settled = { value: unknown } | Late | { thrown: unknown };

/**
 * Settles what a gate's method returned, reading its `then` exactly once, within `ms` milliseconds (no
 * limit when `ms` is undefined). A synchronous answer is settled synchronously, without a timer or a
 * promise, so a gate that answers at once costs no turn of the event loop; only a thenable is awaited.
 *
 * @returns the value, `Late` past the deadline, or `{ thrown }` when it threw or rejected; a promise of
 *   one of these when the answer was a thenable
 */
export function settle(produce: () => unknown, ms: number | undefined): Settled | Promise<Settled> {
  let answer: unknown;
  let then: unknown;
  try {
    answer = produce();
    then =
      (typeof answer === 'object' && answer !== null) || typeof answer === 'function'
        ? (answer as { then?: unknown }).then
        : undefined;
  } catch (error) {
    return { thrown: error };
  }
  if (typeof then !== 'function') return { value: answer };
  return settleThen(answer, then as Then, ms);
}

type Then = (ok: (v: unknown) => void, no: (e: unknown) => void) => unknown;

async function settleThen(answer: unknown, then: Then, ms: number | undefined): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const late =
    ms === undefined
      ? new Promise<never>(() => undefined)
      : new Promise<Late>((resolve) => {
          timer = setTimeout(() => resolve(new Late(ms)), ms);
        });
  const settled = new Promise<{ value: unknown } | { thrown: unknown }>((resolve) => {
    try {
      then.call(
        answer,
        (value) => resolve({ value }),
        (error) => resolve({ thrown: error }),
      );
    } catch (error) {
      resolve({ thrown: error });
    }
  });
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Applies `next` to a value that may still be a promise: at once when it is not, so a path with nothing
 * to wait for stays synchronous. Only gate-audit's own promises reach it (`settle` and the functions built
 * on it), so `instanceof Promise` is exact.
 */
export function andThen<T, R>(value: T | Promise<T>, next: (settled: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * A rejected promise made by the language itself (`Promise.reject` may have been replaced since).
 *
 * @param error - what it rejects with
 */
// eslint-disable-next-line @typescript-eslint/require-await
export async function rejected(error: Error): Promise<never> {
  throw error;
}
