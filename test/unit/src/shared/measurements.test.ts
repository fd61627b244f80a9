import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { measurementsStartDay } from '../../../../src/shared/measurements.ts';

const startDay = suite('measurementsStartDay');

startDay('should start measurements at the asked day, never before one month before the request', () => {
  const now = Date.UTC(2026, 10, 21, 12); // 2026-11-21
  assert.is(measurementsStartDay(undefined, now), '2026-10-21');
  assert.is(measurementsStartDay('2026-01-01', now), '2026-10-21');
  assert.is(measurementsStartDay('2026-11-15', now), '2026-11-15');
});

startDay('should move the earliest day at midnight UTC, not before', () => {
  const late = Date.UTC(2026, 10, 21, 23, 59);
  assert.is(measurementsStartDay(undefined, late), '2026-10-21');
  assert.is(measurementsStartDay(undefined, late + 60_000), '2026-10-22');
});

startDay.run();
