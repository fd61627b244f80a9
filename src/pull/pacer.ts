/**
 * A pull gives way to requests. While the server is quiet its steps (a chunk placed, a piece of a
 * file read back) run as fast as they come; while requests arrive they run one at a time, each
 * followed by a pause BUSY_SHARE_FACTOR times as long as it took, so that a pull takes about a tenth
 * of one core from the answers. scripts/bench/pull.ts measured the list page at 0.44 to 0.69 of its
 * rate while a full pull ran unpaced on two cores.
 */
import { performance } from 'node:perf_hooks';

/** A step's pause while busy, in times its own length: one part work to nine parts rest. */
const BUSY_SHARE_FACTOR = 9;
/** No pause longer than this (a step that waited on a slow origin was not the server's work). */
const LONGEST_PAUSE_MS = 50;

export class Pacer {
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly quiet: () => boolean,
    private readonly sleep: (ms: number) => Promise<boolean>,
  ) {}

  /** Run one step, at once or in its turn (see the header). */
  run<T>(step: () => Promise<T>): Promise<T> {
    if (this.quiet()) return step();
    const mine = this.turn.then(async () => {
      const began = performance.now();
      try {
        return await step();
      } finally {
        await this.sleep(Math.min(LONGEST_PAUSE_MS, (performance.now() - began) * BUSY_SHARE_FACTOR));
      }
    });
    // The next step waits for this one and its pause, however it ended.
    this.turn = mine.catch(() => {});
    return mine;
  }
}
