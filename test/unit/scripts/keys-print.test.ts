import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { keyTable } from '../../../scripts/keys-print.ts';
import type { KeyRecord } from '../../../src/state/key-record.ts';

const table = suite('keyTable');

function record(i: number): KeyRecord {
  return { id: `key_${i.toString(16).padStart(12, '0')}`, hash: 'a'.repeat(64), tier: 'pro', org: `org${i % 7}`, user: i % 2 ? null : `user-${i}`, scope: i % 2 ? 'org' : 'user', quota: null, grants: [], critpt: false, created_at: '2026-11-26T09:00:00.000Z', revoked_at: null };
}

table('should pad each column to its widest cell, and never show a hash', () => {
  const lines = keyTable([record(1), record(2)]).split('\n');
  assert.is(lines.length, 3);
  assert.is(lines[0].indexOf('tier'), lines[1].indexOf('pro'));
  assert.is(lines[1].indexOf('pro'), lines[2].indexOf('pro'));
  assert.not.ok(lines.join('\n').includes('a'.repeat(64)));
});

table('should list 150,000 keys (a column\'s width taken by spreading the rows as arguments overflowed the stack past some 125,000)', () => {
  const records = Array.from({ length: 150_000 }, (_, i) => record(i));
  const lines = keyTable(records).split('\n');
  assert.is(lines.length, 150_001);
  assert.ok(lines[150_000].startsWith(records[149_999].id));
});

table.run();
