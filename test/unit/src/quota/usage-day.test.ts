import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDays,
  dayStart,
  daysFrom,
  isDay,
  oldestKept,
  scopeOfOrg,
  usageKey,
  usageKeyParts,
  utcDay,
} from '../../../../src/quota/usage-day.ts';

const days = suite('usage days');

days('a time belongs to its UTC day, midnight to the day it begins', () => {
  assert.is(utcDay(Date.UTC(2026, 10, 21, 23, 59, 59, 999)), '2026-11-21');
  assert.is(utcDay(Date.UTC(2026, 10, 22)), '2026-11-22');
  assert.is(dayStart('2026-11-22'), Date.UTC(2026, 10, 22));
});

days('only real calendar days are days', () => {
  for (const good of ['2026-01-01', '2028-02-29', '1999-12-31']) assert.ok(isDay(good), good);
  for (const bad of ['2026-02-30', '2027-02-29', '2026-13-01', '2026-1-01', '20261101', '', '2026-11-21T00:00:00Z'])
    assert.not.ok(isDay(bad), bad);
});

days('days add across months, years and leap days', () => {
  assert.is(addDays('2026-12-31', 1), '2027-01-01');
  assert.is(addDays('2028-03-01', -1), '2028-02-29');
  assert.equal(daysFrom('2026-12-30', '2027-01-02'), ['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
  assert.equal(daysFrom('2026-01-02', '2026-01-01'), []);
});

days('a retention of N days keeps today and the N-1 before', () => {
  assert.is(oldestKept('2026-11-22', 1), '2026-11-22');
  assert.is(oldestKept('2026-11-22', 400), addDays('2026-11-22', -399));
});

days('usage keys sort by scope, then kind, and come apart again', () => {
  const keys = [usageKey('data', 'user:ab/c'), usageKey('critpt', 'user:a/b'), usageKey('data', 'user:a/b')].sort();
  assert.equal(keys.map(usageKeyParts), [
    { scope: 'user:a/b', kind: 'critpt' },
    { scope: 'user:a/b', kind: 'data' },
    { scope: 'user:ab/c', kind: 'data' },
  ]);
});

days("an org's scopes are its own, not a longer name's", () => {
  assert.ok(scopeOfOrg('org:acme', 'acme'));
  assert.ok(scopeOfOrg('user:acme/pat', 'acme'));
  assert.not.ok(scopeOfOrg('user:acme2/pat', 'acme'));
  assert.not.ok(scopeOfOrg('org:acme.io', 'acme'));
});

days.run();
