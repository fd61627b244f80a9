/**
 * Values that are ready now or later. The request path stays synchronous while everything it
 * needs is in memory (a cached body) and waits only when it must (a pack read, the quota
 * journal): every `await` costs a promise and a microtask turn, which shows at tens of
 * thousands of requests a second (BENCHMARKS.md, "Throughput": promises per request were part
 * of the 27.7 -> 17-20 µs of CPU a request).
 */
export type Eventually<T> = T | Promise<T>;

/**
 * Run `next` on the value: at once when it is ready, else when it settles. Not named `then`:
 * that is Promise's, and a value that may not be a promise must not look like one.
 */
export function whenReady<T, R>(value: Eventually<T>, next: (value: T) => Eventually<R>): Eventually<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Run `run`; whatever it throws, at once or later, goes to `recover`, whose value stands instead. */
export function recover<T>(run: () => Eventually<T>, onError: (error: unknown) => Eventually<T>): Eventually<T> {
  return recoverWith(run, (_, error) => onError(error), undefined);
}

/*
 * The same two for a step that is a function of the request under way (`arg`) and the value: the
 * request path's steps are methods made once, taking the request, so a request that needs no wait
 * makes no closure for them (bench/analysis.md, "A shorter path").
 */

/** `next(arg, value)`: at once when the value is ready, else when it settles. */
export function after<T, A, R>(value: Eventually<T>, next: (arg: A, value: T) => Eventually<R>, arg: A): Eventually<R> {
  return value instanceof Promise ? value.then((ready) => next(arg, ready)) : next(arg, value);
}

/** `run(arg)`; whatever it throws, at once or later, goes to `onError(arg, error)`, whose value stands instead. */
export function recoverWith<T, A>(
  run: (arg: A) => Eventually<T>,
  onError: (arg: A, error: unknown) => Eventually<T>,
  arg: A,
): Eventually<T> {
  let value: Eventually<T>;
  try {
    value = run(arg);
  } catch (error) {
    return onError(arg, error);
  }
  return value instanceof Promise ? value.catch((error: unknown) => onError(arg, error)) : value;
}
