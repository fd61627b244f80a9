import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { usageTarget } from '../../../../src/quota/redis-usage.ts';
import { DAY_MS, dayStart, utcDay } from '../../../../src/quota/usage-day.ts';

const target = suite('the usage hash a count adds to');

/** What usageTarget said before it remembered its day: the day named anew every time. */
const named = (now: number, retentionDays: number) => {
  const day = utcDay(now);
  return { key: `bda:usage:${day}`, ttlMs: Math.max(1, dayStart(day) + retentionDays * DAY_MS - now) };
};

target('names the day of each time and lives to its day plus the retention, across midnights, going back and forth', () => {
  const midnight = Date.UTC(2026, 10, 29);
  const times = [midnight - 1, midnight, midnight + 1, midnight - 1, midnight + DAY_MS - 1, midnight + DAY_MS, midnight, Date.UTC(2028, 1, 29, 12), 0, 1];
  for (const now of times) for (const days of [1, 400]) assert.equal(usageTarget(now, days), named(now, days), `${new Date(now).toISOString()} ${days}`);
});

target('the same time asked again gives the same hash and a live time of at least 1 ms', () => {
  const late = Date.UTC(2026, 10, 29) + DAY_MS - 1;
  assert.equal(usageTarget(late, 1), { key: 'bda:usage:2026-11-29', ttlMs: 1 });
  assert.equal(usageTarget(late, 1), { key: 'bda:usage:2026-11-29', ttlMs: 1 });
});

target.run();
