import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FreshKeys, KeysUnavailable, type CheckedKeys } from '../../../../src/keys/fresh-keys.ts';
import { KeyStoreError } from '../../../../src/keys/record.ts';
import type { KeyRecord } from '../../../../src/state/key-record.ts';
import { Conditions } from '../../../../src/lib/conditions.ts';
import { until } from '../../../helpers/wait.ts';

const GRACE_MS = 10_000;

function record(id: string): KeyRecord {
  return { id, hash: 'a'.repeat(64), tier: 'pro', org: 'acme', user: null, scope: 'org', quota: null, grants: [], critpt: false, created_at: '2026-11-20T09:00:00Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null };
}

/**
 * A key file's index whose state the test sets: the keys it holds and whether they are the
 * file's. The clock moves only when the test moves it, so the grace passes without a wait.
 */
function fixture() {
  const index = { keys: new Map<string, KeyRecord>([['alice-key', record('key_aaaaaaaaaaaa')]]), problem: null as KeyStoreError | null, checks: 0 };
  const checked: CheckedKeys = {
    check: () => (index.checks++, index.problem),
    find: (plainKey) => index.keys.get(plainKey),
    close: () => {},
  };
  const clock = { t: Date.UTC(2026, 10, 21, 12), now: () => clock.t };
  const log: string[] = [];
  const conditions = new Conditions({ begins: (line) => log.push(`begins ${line}`), ends: (line) => log.push(`ends ${line}`) });
  const keys = new FreshKeys(checked, { clock, conditions, graceMs: GRACE_MS });
  return { index, clock, log, conditions, keys };
}

/** What a lookup came to: a record (or none) now, later, or a 503. */
async function outcome(lookup: () => unknown): Promise<string> {
  let answer: unknown;
  try {
    answer = lookup();
  } catch (error) {
    return error instanceof KeysUnavailable ? 'unavailable now' : `threw ${(error as Error).message}`;
  }
  if (!(answer instanceof Promise)) return answer === undefined ? 'no key now' : `${(answer as KeyRecord).id} now`;
  return answer.then(
    (later: KeyRecord | undefined) => (later === undefined ? 'no key later' : `${later.id} later`),
    (error: Error) => (error instanceof KeysUnavailable ? 'unavailable later' : `threw ${error.message}`),
  );
}

/**
 * A held lookup's outcome. Its retry timer does not keep a process alive (a stopped server's
 * must not), so the test's own wait does, with a hang guard.
 */
async function whenSettled(pending: Promise<string>): Promise<string> {
  let settled: string | undefined;
  void pending.then((value) => (settled = value));
  await until(() => settled !== undefined, 'the held lookup settles');
  return settled!;
}

const fresh = suite('FreshKeys');

fresh('should answer at once from keys that are the file\'s', async () => {
  const f = fixture();
  assert.is(await outcome(() => f.keys.lookup('alice-key')), 'key_aaaaaaaaaaaa now');
  assert.is(await outcome(() => f.keys.lookup('nobody-key')), 'no key now');
  assert.equal(f.log, []);
  f.keys.close();
});

fresh('should hold keyed lookups while the file cannot be read and answer them from the file once it reads again, never from the keys before', async () => {
  const f = fixture();
  f.index.problem = new KeyStoreError('cannot read state/keys.json: EACCES: permission denied');
  const held = outcome(() => f.keys.lookup('alice-key'));
  assert.equal(f.conditions.reasons(), ['keys: cannot read state/keys.json: EACCES: permission denied; keyed requests wait up to 10 s for it to be read, then are answered 503 until it is']);
  // The version it could not read revoked alice's key.
  f.index.keys.delete('alice-key');
  f.index.problem = null;
  assert.is(await whenSettled(held), 'no key later', 'answered from the file as it reads now');
  assert.equal(f.conditions.reasons(), []);
  assert.equal(f.log.length, 2);
  f.keys.close();
});

fresh('should answer 503 once the grace has passed on the server\'s clock, at once from then on, and recover by itself, logging once each way', async () => {
  const f = fixture();
  f.index.problem = new KeyStoreError('cannot read state/keys.json: EACCES: permission denied');
  const first = outcome(() => f.keys.lookup('alice-key'));
  f.clock.t += GRACE_MS - 1;
  const second = outcome(() => f.keys.lookup('alice-key'));
  f.index.problem = new KeyStoreError('state/keys.json is not valid JSON'); // later failures do not change the reason
  f.clock.t += 1;
  assert.is(await whenSettled(first), 'unavailable later', 'refused when the retry finds the grace over');
  assert.is(await whenSettled(second), 'unavailable later');
  for (let i = 0; i < 100; i++) assert.is(await outcome(() => f.keys.lookup('alice-key')), 'unavailable now');
  assert.match(f.conditions.reasons()[0], /EACCES/);

  // Fixed by hand: the retry sees it without any request.
  const checks = f.index.checks;
  f.index.problem = null;
  await until(() => f.conditions.reasons().length === 0, 'the keys condition ends by itself');
  assert.ok(f.index.checks > checks);
  assert.is(await outcome(() => f.keys.lookup('alice-key')), 'key_aaaaaaaaaaaa now');
  assert.equal(f.log, [
    'begins not ready: keys: cannot read state/keys.json: EACCES: permission denied; keyed requests wait up to 10 s for it to be read, then are answered 503 until it is',
    'ends no longer: keys: cannot read state/keys.json: EACCES: permission denied; keyed requests wait up to 10 s for it to be read, then are answered 503 until it is',
  ]);

  // A second failure is a new one, with a grace of its own.
  f.index.problem = new KeyStoreError('state/keys.json is not valid JSON');
  const again = outcome(() => f.keys.lookup('alice-key'));
  assert.is(f.log.length, 3);
  f.index.problem = null;
  assert.is(await whenSettled(again), 'key_aaaaaaaaaaaa later');
  f.keys.close();
});

fresh('should show a failure in readiness at once, before any keyed request meets it', () => {
  const f = fixture();
  f.index.problem = new KeyStoreError('cannot look at state/keys.json: EACCES: permission denied');
  assert.not.ok(f.keys.fresh());
  assert.is(f.conditions.reasons().length, 1);
  f.keys.close();
});

fresh('should answer at once with 503 when the grace is 0', async () => {
  const f = fixture();
  const keys = new FreshKeys({ check: () => new KeyStoreError('broken'), find: () => undefined, close: () => {} }, { clock: f.clock, conditions: f.conditions, graceMs: 0 });
  assert.is(await outcome(() => keys.lookup('alice-key')), 'unavailable now');
  keys.close();
});

fresh('should answer the requests still waiting with 503 when closed', async () => {
  const f = fixture();
  f.index.problem = new KeyStoreError('cannot read state/keys.json: EIO: i/o error');
  const held = outcome(() => f.keys.lookup('alice-key'));
  f.keys.close();
  assert.is(await held, 'unavailable later');
});

fresh.run();
