import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { median, quantileSorted, round, sortNumbers } from '../../../../build/derive/stats.ts';

const medianOf = suite('median');

medianOf('should take the middle value of an odd count', () => {
  assert.is(median([5, 1, 3]), 3);
});

medianOf('should average the two middle values of an even count', () => {
  assert.is(median([4, 1, 3, 2]), 2.5);
});

medianOf('should ignore nulls and be null when nothing is left', () => {
  assert.is(median([null, 7, null]), 7);
  assert.is(median([null, null]), null);
  assert.is(median([]), null);
});

medianOf.run();

const quantiles = suite('quantileSorted');

quantiles('should interpolate linearly between closest ranks', () => {
  // 1..10: position (n-1)q = 9*0.05 = 0.45 -> 1 + 0.45 = 1.45; 9*0.25 = 2.25 -> 3.25
  const values = sortNumbers([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  assert.is(round(quantileSorted(values, 0.05)!, 6), 1.45);
  assert.is(round(quantileSorted(values, 0.25)!, 6), 3.25);
  assert.is(round(quantileSorted(values, 0.75)!, 6), 7.75);
  assert.is(round(quantileSorted(values, 0.95)!, 6), 9.55);
});

quantiles('should return the only value for a single value', () => {
  assert.is(quantileSorted(sortNumbers([42]), 0.95), 42);
});

quantiles.run();

const rounding = suite('round');

rounding('should drop binary noise', () => {
  assert.is(round(0.1 + 0.2, 6), 0.3);
  assert.is(round(2.675, 2), 2.68);
  assert.is(round(-1.005, 2), -1.01);
});

rounding.run();

const ties = suite('round at halfway values');

ties('should round halves away from zero as they read in decimal, at any magnitude', () => {
  // 10.0005 is stored as 10.000499999...; in decimal it is a half, so it rounds up.
  assert.is(round(10.0005, 3), 10.001);
  assert.is(round(1234.5675, 3), 1234.568);
  assert.is(round(-2.5, 0), -3);
  assert.is(round(2.5, 0), 3);
});

ties('should leave tiny and huge numbers sensible and never give -0', () => {
  assert.is(round(1e-9, 3), 0);
  assert.is(Object.is(round(-1e-9, 3), 0), true);
  assert.is(round(1.5e21, 2), 1.5e21);
});

ties.run();
