/**
 * The collector's young generation, held at a small size.
 *
 * Under load V8 doubles the young generation's semi-spaces up to 16 MB each (32 MB resident),
 * and a server allocating ~10 KB a request (most of it node:http's own) keeps them there: with
 * every detail page in the mix, peak resident memory was 127-130 MB. Held at the starting 1 MB
 * it was 80 MB, but a collection then came every ~80 requests, about once a turn of the event
 * loop at 64 connections; counted answers wait for their turn's journal write, so each
 * collection copied the answers waiting and promoted what it had copied before. Quota
 * counting cost 19% of throughput that way (c=16, alternating rounds); let grow once, to 2 MB,
 * 9 to 14%, for a few MB more.
 *
 * V8 reads the growth factor each time it considers growing the space, so it is set here at
 * run time: 2 while the space is under its ceiling, 1 once it is there (after every collection;
 * an idle server's space shrinks, and grows again under load). The ceiling itself is fixed when
 * the process starts, and only a node flag sets it. An operator who gives one
 * (`node --max-semi-space-size=N`, or NODE_OPTIONS) has chosen, and is left alone. `npm start`
 * builds in the same process first (a build allocates far more than it keeps, and is slower in
 * a small young generation), so only the bundled server, the deployable one, holds it.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Both semi-spaces together, as V8 reports the new space's size: two of 2 MB. */
export const YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

/** Did the operator size the young generation with a node flag? */
export function youngGenerationChosen(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--(max-|min-)?semi[-_]space[-_](size|growth[-_]factor)/.test(arg.replace(/_/g, '-')));
}

/** The growth factor that keeps the young generation at `ceiling` bytes: double below it, stay at it. */
export function growthFactor(newSpaceBytes: number, ceiling: number): 1 | 2 {
  return newSpaceBytes < ceiling ? 2 : 1;
}

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Hold the young generation at YOUNG_GENERATION_BYTES, unless the operator chose otherwise; true
 * when held. The collector is watched for as long as the process runs.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (youngGenerationChosen(execArgv, nodeOptions)) return false;
  let factor = 0;
  const steer = () => {
    const wanted = growthFactor(newSpaceBytes(), YOUNG_GENERATION_BYTES);
    if (wanted === factor) return;
    factor = wanted;
    setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  };
  steer();
  new PerformanceObserver(steer).observe({ entryTypes: ['gc'] });
  return true;
}
