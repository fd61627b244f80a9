import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { durationMs, durationText } from '../../../../src/lib/duration.ts';

const duration = suite('durationMs and durationText');

duration('should read a whole number with s, m, h or d, a bare number as seconds', () => {
  assert.is(durationMs('90s'), 90_000);
  assert.is(durationMs('30m'), 1_800_000);
  assert.is(durationMs('12h'), 43_200_000);
  assert.is(durationMs('7d'), 604_800_000);
  assert.is(durationMs('45'), 45_000);
  assert.is(durationMs(' 5m '), 300_000);
});

duration('should refuse anything else', () => {
  for (const text of ['', 'm', '1.5h', '-5m', '5 m', '5min', '1h30m', '5M', '1e3s', '1234567890s']) assert.is(durationMs(text), null, text);
});

duration('should write a duration the shortest exact way', () => {
  assert.is(durationText(30 * 60_000), '30m');
  assert.is(durationText(12 * 3_600_000), '12h');
  assert.is(durationText(86_400_000), '1d');
  assert.is(durationText(90_000), '90s');
  assert.is(durationText(36 * 3_600_000), '36h');
  for (const text of ['1m', '30m', '12h', '30d', '59s']) assert.is(durationText(durationMs(text)!), text);
});

duration.run();
