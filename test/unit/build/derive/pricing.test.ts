import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blended3To1, blended7To2To1 } from '../../../../build/derive/pricing.ts';

const threeToOne = suite('blended3To1');

threeToOne('should weigh three input tokens to one output token', () => {
  // (3*2 + 10) / 4 = 16 / 4 = 4
  assert.is(blended3To1(2, 10), 4);
  // (3*1.25 + 10) / 4 = 13.75 / 4 = 3.4375
  assert.is(blended3To1(1.25, 10), 3.4375);
});

threeToOne('should be zero for a free model, not null', () => {
  assert.is(blended3To1(0, 0), 0);
});

threeToOne('should round to 6 decimals', () => {
  // (3*0.1 + 0.2) / 4 = 0.5 / 4 = 0.125 (and no 0.12500000000000003 binary noise)
  assert.is(blended3To1(0.1, 0.2), 0.125);
  // (3*0.000001 + 0.000002) / 4 = 0.000005 / 4 = 0.00000125 -> 0.000001
  assert.is(blended3To1(0.000001, 0.000002), 0.000001);
  // (3*1 + 0.333333) / 4 = 3.333333 / 4 = 0.83333325 -> 0.833333
  assert.is(blended3To1(1, 0.333333), 0.833333);
});

threeToOne('should be null when the input price is missing', () => {
  assert.is(blended3To1(null, 10), null);
});

threeToOne('should be null when the output price is missing', () => {
  assert.is(blended3To1(2, null), null);
});

threeToOne.run();

const sevenTwoOne = suite('blended7To2To1');

sevenTwoOne('should weigh seven cache hits to two input tokens to one output token', () => {
  // (7*0.5 + 2*2 + 10) / 10 = (3.5 + 4 + 10) / 10 = 17.5 / 10 = 1.75
  assert.is(blended7To2To1(0.5, 2, 10), 1.75);
  // (7*1 + 2*1 + 1) / 10 = 10 / 10 = 1: equal prices blend to the same price
  assert.is(blended7To2To1(1, 1, 1), 1);
});

sevenTwoOne('should not confuse the cache-hit and input prices', () => {
  // (7*2 + 2*0.5 + 10) / 10 = (14 + 1 + 10) / 10 = 2.5, not 1.75
  assert.is(blended7To2To1(2, 0.5, 10), 2.5);
});

sevenTwoOne('should round to 6 decimals', () => {
  // (7*0.1 + 2*0.2 + 0.3) / 10 = (0.7 + 0.4 + 0.3) / 10 = 0.14
  assert.is(blended7To2To1(0.1, 0.2, 0.3), 0.14);
  // (7*0.0000001 + 0 + 0) / 10 = 0.00000007 -> 0 at 6 decimals
  assert.is(blended7To2To1(0.0000001, 0, 0), 0);
  // (7*0.123457 + 2*1 + 3) / 10 = (0.864199 + 5) / 10 = 0.5864199 -> 0.58642
  assert.is(blended7To2To1(0.123457, 1, 3), 0.58642);
});

sevenTwoOne('should be null when the cache-hit price is missing', () => {
  assert.is(blended7To2To1(null, 2, 10), null);
});

sevenTwoOne('should be null when the input price is missing', () => {
  assert.is(blended7To2To1(0.5, null, 10), null);
});

sevenTwoOne('should be null when the output price is missing', () => {
  assert.is(blended7To2To1(0.5, 2, null), null);
});

sevenTwoOne.run();
