import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IsoTime } from '../../../../src/lib/iso-time.ts';
import { seededRandom } from '../../../helpers/random.ts';

const iso = suite('IsoTime');

iso('should write what toISOString writes, for the same millisecond again and for the next', () => {
  const times = new IsoTime();
  for (const ms of [0, 0, 1_764_000_000_123, 1_764_000_000_123, 1_764_000_000_124, 5, 1_764_000_000_123])
    assert.is(times.of(ms), new Date(ms).toISOString(), String(ms));
});

iso('should write what toISOString writes across seconds, before 1970, past year 9999 and between milliseconds', () => {
  const times = new IsoTime();
  const next = seededRandom(7);
  const edges = [999, 1000, 1001, -1, -1000, -1001, 9, 10, 99, 100, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, 1.5, -0.5, 8.64e15];
  const walk = [...edges];
  // Steps of a few milliseconds, as a server's requests end, across second and minute boundaries.
  for (let ms = 1_764_000_059_990, i = 0; i < 2000; i++) walk.push((ms += Math.floor(next() * 7)));
  for (let i = 0; i < 2000; i++) walk.push(Math.floor((next() - 0.5) * 2 * 8.64e15));
  for (const ms of walk) assert.is(times.of(ms), new Date(ms).toISOString(), String(ms));
});

iso.run();
