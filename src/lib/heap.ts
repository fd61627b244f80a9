/**
 * The collector's young generation, held at its starting size.
 *
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
 */
import { setFlagsFromString } from 'node:v8';

/** Did the operator size the young generation with a node flag? */
export function youngGenerationChosen(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--(max-|min-)?semi[-_]space[-_](size|growth[-_]factor)/.test(arg.replace(/_/g, '-')));
}

/** Hold the young generation at its starting size, unless the operator chose otherwise; true when held. */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (youngGenerationChosen(execArgv, nodeOptions)) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
