/**
 * A promise a test settles from outside: one side waits on `promise`, the other calls `resolve` when the moment
 * has come (a sibling crashed, a hook ran, a record may go on).
 */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
