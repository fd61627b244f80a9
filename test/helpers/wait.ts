/**
 * Waiting for something to happen, without making the time it takes an assertion. The deadline
 * here is a hang guard: far above anything a busy machine takes, it only turns a hang into a
 * failure that says so. How fast things are is measured by `npm run bench` and `npm run soak`,
 * or checked against a baseline measured in the same test.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Two minutes: no wait in a test comes near it on a working server, however busy the machine. */
export const HANG_GUARD_MS = 120_000;

/** Resolve once `done()` holds, checking every `everyMs`; fail after `guardMs` naming what never happened. */
export async function until(done: () => boolean | Promise<boolean>, what: string | (() => string), guardMs = HANG_GUARD_MS, everyMs = 5): Promise<void> {
  const deadline = performance.now() + guardMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${typeof what === 'string' ? what : what()}: still not so after ${guardMs / 1000} s (a hang guard, not a performance bound)`);
    await sleep(everyMs);
  }
}
