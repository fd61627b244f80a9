import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isCalendarDate, isTimestamp } from '../../../../src/shared/string-formats.ts';

const dates = suite('isCalendarDate');

dates('should accept the last day of every month and 29 February of leap years only', () => {
  for (const day of ['2026-01-31', '2026-02-28', '2026-04-30', '2026-12-31', '2024-02-29', '2000-02-29']) assert.ok(isCalendarDate(day), day);
  for (const day of ['2026-02-29', '1900-02-29', '2100-02-29', '2026-04-31', '2026-06-31', '2026-11-31']) assert.not.ok(isCalendarDate(day), day);
});

dates('should refuse month or day zero, month thirteen and any other layout', () => {
  for (const text of ['2026-00-10', '2026-13-01', '2026-01-00', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', ' 2026-01-01']) assert.not.ok(isCalendarDate(text), text);
});

dates('should judge a timestamp by its calendar date', () => {
  assert.ok(isTimestamp('2024-02-29T12:00:00.000Z'));
  assert.not.ok(isTimestamp('2026-02-29T12:00:00.000Z'));
});

dates.run();
