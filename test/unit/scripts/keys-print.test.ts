import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { keyTable } from '../../../scripts/keys-print.ts';
import type { KeyRecord } from '../../../src/state/key-record.ts';
import { keyView, type KeyView } from '../../../src/key-admin/key-view.ts';

const table = suite('keyTable');

function record(i: number, over: Partial<KeyRecord> = {}): KeyView {
  return keyView(stored(i, over), Date.parse('2026-11-27T00:00:00Z'), new Map([['key_000000000002', Date.parse('2026-11-26T10:00:00Z')]]));
}

function stored(i: number, over: Partial<KeyRecord>): KeyRecord {
  return { id: `key_${i.toString(16).padStart(12, '0')}`, hash: 'a'.repeat(64), tier: 'pro', org: `org${i % 7}`, user: i % 2 ? null : `user-${i}`, scope: i % 2 ? 'org' : 'user', quota: null, grants: [], critpt: false, created_at: '2026-11-26T09:00:00.000Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null, ...over };
}

table('should pad each column to its widest cell, and never show a hash', () => {
  const lines = keyTable([record(1), record(2)]).split('\n');
  assert.is(lines.length, 3);
  assert.is(lines[0].indexOf('tier'), lines[1].indexOf('pro'));
  assert.is(lines[1].indexOf('pro'), lines[2].indexOf('pro'));
  assert.not.ok(lines.join('\n').includes('a'.repeat(64)));
});

table('should show the label, what is kept of the value, the state, the expiry and the last use', () => {
  const lines = keyTable([
    record(1, { name: 'billing export', prefix: 'bdk_AbCd', last4: 'wxyz', expires_at: '2026-11-26T12:00:00.000Z' }),
    record(2, { previous: { hash: 'b'.repeat(64), prefix: 'bdk_OldV', last4: 'lu3s', until: '2026-11-28T00:00:00.000Z' } }),
  ]).split('\n');
  assert.match(lines[1], /billing export\s+bdk_AbCd…wxyz\s+pro .* expired\s+2026-11-26T12:00:00.000Z\s+-\s+2026-11-26T09/);
  assert.match(lines[2], /active, old value until 2026-11-28T00:00:00.000Z\s+-\s+2026-11-26T10:00:00.000Z/);
  assert.not.ok(lines.join('\n').includes('b'.repeat(64)));
});

table('should list 150,000 keys (a column\'s width taken by spreading the rows as arguments overflowed the stack past some 125,000)', () => {
  const records = Array.from({ length: 150_000 }, (_, i) => record(i));
  const lines = keyTable(records).split('\n');
  assert.is(lines.length, 150_001);
  assert.ok(lines[150_000].startsWith(records[149_999].id));
});

table.run();
