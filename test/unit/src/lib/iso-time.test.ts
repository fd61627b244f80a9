import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IsoTime } from '../../../../src/lib/iso-time.ts';

const iso = suite('IsoTime');

iso('should write what toISOString writes, for the same millisecond again and for the next', () => {
  const times = new IsoTime();
  for (const ms of [0, 0, 1_764_000_000_123, 1_764_000_000_123, 1_764_000_000_124, 5, 1_764_000_000_123])
    assert.is(times.of(ms), new Date(ms).toISOString(), String(ms));
});

iso.run();
