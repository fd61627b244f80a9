/**
 * The collector's sizing for the bundled server: the young generation held at 4 MB semi-spaces
 * (YOUNG_GENERATION_CEILING_BYTES, below), and the old generation let grow by at most 30% of what
 * survives between full collections.
 *
 * Young generation (first held at its starting 1 MB; now at 4 MB, for the reason given below).
 * Under load V8 doubles the young generation's semi-spaces up to 16 MB each (32 MB resident),
 * and a server allocating ~10 KB a request (most of it node:http's own) keeps them there. Held
 * at the starting 1 MB, young objects are collected more often, and no more of them survive
 * into the old generation: measured on the sample with every detail page in the mix, peak
 * resident memory 127-130 MB -> 80 MB for about 0.4 µs more CPU a request (2%), the same p99.
 *
 * The growth factor is read each time V8 considers growing the space, so setting it at start-up
 * holds; the semi-space's size itself is fixed when the process starts, and only a node flag
 * sets it. An operator who gives one (`node --max-semi-space-size=N`, or NODE_OPTIONS) has
 * chosen, and is left alone. `npm start` builds in the same process first (a build allocates
 * far more than it keeps, and is slower in a small young generation), so only the bundled
 * server, the deployable one, holds it.
 *
 * Old generation. V8 lets the old generation grow to up to four times what survived the last
 * full collection before it collects again, which is little while little survives, but a state
 * folder of 100,000 keys and 200,000 open windows keeps some 60 MB alive: under the soak's load
 * and attackers the server then reached 345 MB resident. Grown by at most 30%, it peaked at 203
 * MB, answering as many requests in the same two minutes (250,291 against 241,267) with no
 * longer stalls (`npm run soak -- --minutes 2`, its seeded state). Like the young generation's
 * factor, V8 reads it each time it sets the next limit; an operator's own `node
 * --heap-growing-percent=N` is left alone.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** How much the old generation may grow past what survived the last full collection, in percent. */
export const OLD_GENERATION_GROWTH_PERCENT = 30;

/**
 * Did the operator give a node flag (in its arguments or NODE_OPTIONS) that this pattern matches
 * (written with `-`)?
 */
function flagChosen(pattern: RegExp, execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => pattern.test(arg.replace(/_/g, '-')));
}

/** Did the operator size the young generation with a node flag? */
export function youngGenerationChosen(execArgv: readonly string[], nodeOptions: string): boolean {
  return flagChosen(/^--(max-|min-)?semi-space-(size|growth-factor)/, execArgv, nodeOptions);
}

/** Did the operator set the old generation's growth with a node flag? */
export function oldGenerationGrowthChosen(execArgv: readonly string[], nodeOptions: string): boolean {
  return flagChosen(/^--heap-growing-percent/, execArgv, nodeOptions);
}

/**
 * The young generation's ceiling: 4 MB semi-spaces, which V8 reports as a new space of 8 MB.
 * Held at the starting 1 MB, the server scavenged about four times as often as the node:http
 * floor (658 against 177 scavenges in 5 s), and each scavenge's helper threads took turns from
 * the load on a 2-core machine: the detail pages at c=64 reached 0.59 to 0.83 of the floor
 * against 0.80 to 1.01 with 4 MB (4 alternated rounds, 5 s each, p99 11 to 30 ms against 6 to 10),
 * for a peak of 106 MB resident against 96.
 */
export const YOUNG_GENERATION_CEILING_BYTES = 8 * 1024 * 1024;

/**
 * Let the young generation grow as V8 would, doubling, until it reaches the ceiling, then hold it
 * there. Its largest size is fixed when the process starts and only a node flag sets it; the
 * growth factor is read each time V8 considers growing, so after each collection it is set to 2
 * below the ceiling and 1 at it. A collection is followed by its `gc` entry before the next one
 * can grow the space again, so it passes the ceiling by one doubling at most.
 *
 * The entries are watched only while the space is below the ceiling: node builds each one (an
 * object, its detail, four deprecated accessors), about 0.6 µs a request of the list page at c=16
 * under load, where the space holds at its ceiling. There it can only shrink (V8's memory reducer
 * shrinks it after an idle spell), which a check each SHRINK_CHECK_MS sees, and watches again.
 */
function holdYoungGenerationAt(ceilingBytes: number): void {
  const newSpaceBytes = () =>
    getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
  let factor = 0;
  let watching = false;
  const collections = new PerformanceObserver(() => steer());
  const steer = () => {
    const below = newSpaceBytes() < ceilingBytes;
    if (below !== watching) {
      watching = below;
      if (below) collections.observe({ entryTypes: ['gc'] });
      else collections.disconnect();
    }
    const wanted = below ? 2 : 1;
    if (wanted === factor) return;
    factor = wanted;
    setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  };
  steer();
  setInterval(steer, SHRINK_CHECK_MS).unref();
}

/** How often the young generation held at its ceiling is looked at, to see whether it shrank. */
const SHRINK_CHECK_MS = 1000;

/** Size the collector as above, each part unless the operator chose otherwise; which parts were set. */
export function sizeCollector(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): { young: boolean; old: boolean } {
  const young = !youngGenerationChosen(execArgv, nodeOptions);
  if (young) holdYoungGenerationAt(YOUNG_GENERATION_CEILING_BYTES);
  const old = !oldGenerationGrowthChosen(execArgv, nodeOptions);
  if (old) setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  return { young, old };
}
