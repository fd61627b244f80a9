import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isoTimeWriter } from '../../../../build/shape/iso-time.ts';

const iso = suite('isoTimeWriter');

iso('should write every time as toISOString does, in order or not, at the edges of days, years and its range', () => {
  const write = isoTimeWriter();
  const edges = ['1970-01-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00.000Z', '2026-12-31T23:59:59.009Z', '2027-01-01T00:00:00.090Z', '9999-12-31T23:59:59.999Z'].map(Date.parse);
  const times = [...edges, -1, -86_400_001, 253_402_300_800_000, 1.5, Number.NaN, ...Array.from({ length: 20_000 }, (_, i) => 1_700_000_000_000 + i * 7_919_993)];
  // Across the whole range, out of order: a large step taken modulo the range.
  for (let i = 1; i <= 2000; i++) times.push((i * 126_701_150_399_997) % 253_402_300_800_000);
  for (const ms of times) {
    const expected = Number.isNaN(ms) ? null : new Date(ms).toISOString();
    if (expected === null) assert.throws(() => write(ms));
    else assert.is(write(ms), expected, String(ms));
  }
});

iso.run();
