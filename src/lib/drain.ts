/**
 * Running a generator to its end, giving each value to a callback: at once, or in slices with a
 * turn of the event loop between them, so a long read does not hold a server's other work.
 */
import { performance } from 'node:perf_hooks';

/** Every value of a generator to `each`; what it returns. */
export function drain<T, R>(values: Generator<T, R>, each: (value: T) => void): R {
  for (;;) {
    const next = values.next();
    if (next.done) return next.value;
    each(next.value);
  }
}

/**
 * The same, letting the event loop take a turn whenever the values have run for `sliceMs`:
 * what a server reads this way delays its other requests by a slice at most, not by the read.
 * A value whose `each` returns a promise (work that takes its own turns) is waited for, and the
 * slice starts again after it.
 */
export async function drainInTurns<T, R>(
  values: Iterator<T, R>,
  each: (value: T) => void | Promise<void>,
  sliceMs: number,
): Promise<R> {
  let since = performance.now();
  for (let n = 1; ; n++) {
    const next = values.next();
    if (next.done) return next.value;
    const pending = each(next.value);
    if (pending instanceof Promise) {
      await pending;
      since = performance.now();
    }
    // The clock is read every 256 values: a record takes some microseconds, a clock read some tens of nanoseconds.
    if ((n & 255) === 0 && performance.now() - since >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}
