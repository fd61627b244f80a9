import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey, ensureDemoKeys, grantProvider, regenerateKey, revokeKey } from '../../src/keys/changes.ts';
import {
  generateKey,
  hashKey,
  KEY_ID_PATTERN,
  KEY_PATTERN,
  KeyInputError,
  KeyStoreError,
  publicRecord,
} from '../../src/keys/record.ts';
import type { KeyRecord } from '../../src/state/key-record.ts';
import { FileKeys } from '../../src/keys/file-keys.ts';
import { KeyFileUnreadable } from '../../src/keys/file.ts';
import { loadKeys } from '../../src/keys/file-read.ts';
import { quotaScope } from '../../src/quota/scopes.ts';
import { throwsWith } from '../helpers/throws.ts';

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const clock = { now: () => T0 };

/** Removed at exit too, so a failed assertion leaves nothing behind. */
const tempRoots: string[] = [];
process.on('exit', () => tempRoots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A temporary parent folder; the state folder inside it does not exist until a key is made. */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'keys-'));
  tempRoots.push(root);
  const state = join(root, 'state');
  const file = join(state, 'keys.json');
  const open = () => FileKeys.open(state);
  return { root, state, file, open, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}


// ---------------------------------------------------------------------------------------------

const format = suite('generateKey and hashKey');

format('should make a bdk_ key of 43 base64url characters from 32 random bytes', () => {
  const key = generateKey();
  assert.match(key, KEY_PATTERN);
  assert.ok(key.startsWith('bdk_'));
  assert.is(key.length, 4 + 43);
  assert.is(Buffer.from(key.slice(4), 'base64url').length, 32);
});

format('should make a different key every time', () => {
  const keys = new Set(Array.from({ length: 100 }, generateKey));
  assert.is(keys.size, 100);
});

format('should hash with SHA-256 in hex', () => {
  const key = generateKey();
  assert.is(hashKey(key), createHash('sha256').update(key).digest('hex'));
});

format('should not take unprefixed or short values for keys', () => {
  assert.not.match('abc_' + 'A'.repeat(43), KEY_PATTERN);
  assert.not.match('bdk_' + 'A'.repeat(42), KEY_PATTERN);
  assert.not.match('bdk_' + 'A'.repeat(42) + '=', KEY_PATTERN);
});

format.run();

// ---------------------------------------------------------------------------------------------

const create = suite('createKey');

create('should store only the hash of the key, never the key', () => {
  const f = fixture();
  const { key, record } = createKey(f.state, { tier: 'pro', org: 'acme', user: 'alice' }, clock);
  const text = readFileSync(f.file, 'utf8');
  assert.not.ok(text.includes(key), 'the plain key is not in keys.json');
  assert.not.ok(text.includes(key.slice(4)), 'nor its random part');
  assert.ok(text.includes(hashKey(key)));
  assert.is(record.hash, hashKey(key));
  f.cleanup();
});

create('should make the state folder 0700 and keys.json 0600, leaving no temp or lock file', () => {
  const f = fixture();
  createKey(f.state, { tier: 'free', org: 'acme' }, clock);
  assert.is(statSync(f.state).mode & 0o777, 0o700);
  assert.is(statSync(f.file).mode & 0o777, 0o600);
  assert.equal(readdirSync(f.state), ['keys.json']);
  f.cleanup();
});

create('should tighten an existing state folder to 0700', () => {
  const f = fixture();
  mkdirSync(f.state, { mode: 0o755 });
  chmodSync(f.state, 0o755);
  createKey(f.state, { tier: 'free', org: 'acme' }, clock);
  assert.is(statSync(f.state).mode & 0o777, 0o700);
  f.cleanup();
});

create('should default the scope to user when a user is given, else to org', () => {
  const f = fixture();
  const withUser = createKey(f.state, { tier: 'pro', org: 'acme', user: 'alice' }, clock).record;
  const withoutUser = createKey(f.state, { tier: 'pro', org: 'acme' }, clock).record;
  assert.equal([withUser.scope, withUser.user], ['user', 'alice']);
  assert.equal([withoutUser.scope, withoutUser.user], ['org', null]);
  f.cleanup();
});

create('should record every option', () => {
  const f = fixture();
  const { record } = createKey(f.state, { tier: 'commercial', org: 'acme', user: 'bob', scope: 'org', quota: 5000, grants: ['zeta', 'alpha', 'zeta'], critpt: true }, clock);
  assert.match(record.id, KEY_ID_PATTERN);
  assert.equal(publicRecord(record), {
    id: record.id,
    tier: 'commercial',
    org: 'acme',
    user: 'bob',
    scope: 'org',
    quota: 5000,
    grants: ['alpha', 'zeta'],
    critpt: true,
    created_at: '2026-11-20T09:00:00.000Z',
    revoked_at: null,
    name: null,
    expires_at: null,
    prefix: record.prefix,
    last4: record.last4,
    previous: null,
  });
  assert.match(record.prefix!, /^bdk_[A-Za-z0-9_-]{4}$/);
  assert.equal(loadKeys(f.state), [record], 'what is returned is what is stored');
  f.cleanup();
});

create('should default to no quota, no grants and no CritPt approval', () => {
  const f = fixture();
  const { record } = createKey(f.state, { tier: 'commercial', org: 'acme' }, clock);
  assert.equal([record.quota, record.grants, record.critpt], [null, [], false]);
  f.cleanup();
});

create('should give each key its own id and keep earlier keys', () => {
  const f = fixture();
  const ids = Array.from({ length: 5 }, () => createKey(f.state, { tier: 'free', org: 'acme' }, clock).record.id);
  assert.is(new Set(ids).size, 5);
  assert.equal(loadKeys(f.state)?.map((r) => r.id), ids);
  f.cleanup();
});

create('should reject --quota for a free key', () => {
  const f = fixture();
  throwsWith(() => createKey(f.state, { tier: 'free', org: 'acme', quota: 10 }), KeyInputError, /--quota is only for commercial keys/);
  throwsWith(() => createKey(f.state, { tier: 'pro', org: 'acme', quota: 10 }), KeyInputError, /--quota is only for commercial keys/);
  f.cleanup();
});

create('should reject a quota that is not a positive integer', () => {
  const f = fixture();
  for (const quota of [0, -1, 1.5]) throwsWith(() => createKey(f.state, { tier: 'commercial', org: 'acme', quota }), KeyInputError, /--quota must be an integer/);
  f.cleanup();
});

create('should reject scope user without a user', () => {
  const f = fixture();
  throwsWith(() => createKey(f.state, { tier: 'pro', org: 'acme', scope: 'user' }), KeyInputError, /--scope user needs --user/);
  f.cleanup();
});

create('should reject an unknown tier, a bad org or user name and a bad provider slug', () => {
  const f = fixture();
  throwsWith(() => createKey(f.state, { tier: 'gold' as 'pro', org: 'acme' }), KeyInputError, /--tier must be one of free, pro, commercial, got "gold"/);
  throwsWith(() => createKey(f.state, { tier: 'pro', org: '' }), KeyInputError, /--org must be/);
  throwsWith(() => createKey(f.state, { tier: 'pro', org: 'a/b' }), KeyInputError, /--org must be/);
  throwsWith(() => createKey(f.state, { tier: 'pro', org: 'acme', user: 'al ice' }), KeyInputError, /--user must be/);
  throwsWith(() => createKey(f.state, { tier: 'commercial', org: 'acme', grants: ['Not A Slug'] }), KeyInputError, /not a provider slug: "Not A Slug"/);
  assert.not.ok(existsSync(f.state), 'a rejected key creates nothing');
  f.cleanup();
});

create.run();

// ---------------------------------------------------------------------------------------------

const scope = suite('quotaScope');

scope('should name the org for an org-scoped key and org/user for a user-scoped one', () => {
  assert.is(quotaScope({ scope: 'org', org: 'acme', user: 'alice' }), 'org:acme');
  assert.is(quotaScope({ scope: 'user', org: 'acme', user: 'alice' }), 'user:acme/alice');
});

scope.run();

// ---------------------------------------------------------------------------------------------

const lookup = suite('FileKeys.lookup');

lookup('should find a key by its value and nothing else', () => {
  const f = fixture();
  const { key, record } = createKey(f.state, { tier: 'pro', org: 'acme', user: 'alice' }, clock);
  const store = f.open();
  assert.equal(store.lookup(key), record);
  assert.is(store.lookup(generateKey()), undefined);
  assert.is(store.lookup(record.hash), undefined, 'the hash is not a key');
  assert.is(store.lookup(''), undefined);
  assert.is(store.lookup(key + 'x'), undefined);
  f.cleanup();
});

lookup('should refuse to answer from the keys in memory while a changed file cannot be read, and read it again at the next lookup', () => {
  const f = fixture();
  const { key, record } = createKey(f.state, { tier: 'pro', org: 'acme', user: 'alice' }, clock);
  let failNext = false;
  const store = FileKeys.open(f.state, {
    beforeRead: (path) => {
      if (failNext) {
        failNext = false;
        throw new KeyFileUnreadable(`cannot read ${path}: EMFILE: too many open files, open`);
      }
    },
  });
  assert.ok(store.lookup(key));
  revokeKey(f.state, record.id, clock);
  failNext = true; // descriptors exhausted just when the revocation is first noticed
  throwsWith(() => store.lookup(key), KeyFileUnreadable, /EMFILE/); // never the key as it was before the revocation
  assert.is(store.lookup(key), undefined, 'read again at the next lookup: the revoked key fails');
  assert.is(store.check(), null);
  f.cleanup();
});

lookup('should open a missing store as one with no keys and see keys created later', () => {
  const f = fixture();
  const store = f.open();
  assert.is(store.check(), null);
  const { key } = createKey(f.state, { tier: 'free', org: 'acme' }, clock);
  assert.is(store.lookup(key)?.tier, 'free', 'a new key works on the next lookup');
  f.cleanup();
});

lookup('should fail a revoked key on the very next lookup of the same store', () => {
  const f = fixture();
  const { key, record } = createKey(f.state, { tier: 'pro', org: 'acme', user: 'alice' }, clock);
  const other = createKey(f.state, { tier: 'pro', org: 'acme', user: 'bob' }, clock);
  const store = f.open();
  assert.ok(store.lookup(key));
  revokeKey(f.state, record.id, clock);
  assert.is(store.lookup(key), undefined);
  assert.ok(store.lookup(other.key), 'other keys still work');
  assert.is(loadKeys(f.state)?.find((r) => r.id === record.id)?.revoked_at, '2026-11-20T09:00:00.000Z', 'the store still lists it');
  f.cleanup();
});

lookup('should fail a revoked key in the next turn of a store checked once a turn, whatever the turn before found', async () => {
  const f = fixture();
  const { key, record } = createKey(f.state, { tier: 'pro', org: 'acme', user: 'alice' }, clock);
  const store = FileKeys.open(f.state, { recheck: 'every-turn' });
  await new Promise((r) => setImmediate(r)); // the turn of the open's own check ends
  assert.is(store.lookup(key)?.id, record.id);
  assert.is(store.lookup(key)?.id, record.id, 'found again in the same turn');
  assert.is(store.lookup('bdk_' + 'x'.repeat(43)), undefined);
  revokeKey(f.state, record.id, clock);
  assert.is(store.lookup(key)?.id, record.id, 'the turn\'s check stands until the turn ends');
  await new Promise((r) => setImmediate(r));
  assert.is(store.lookup(key), undefined, 'the next turn checks the file again and finds no key');
  await new Promise((r) => setImmediate(r));
  const later = createKey(f.state, { tier: 'pro', org: 'acme', user: 'bob' }, clock);
  assert.is(store.lookup(later.key)?.id, later.record.id, 'a new turn sees a key created since');
  store.close();
  f.cleanup();
});

lookup('should fail a regenerated key at once and take the new one with the same id and scope', () => {
  const f = fixture();
  const old = createKey(f.state, { tier: 'commercial', org: 'acme', user: 'alice', quota: 77, grants: ['p1'], critpt: true }, clock);
  const store = f.open();
  assert.ok(store.lookup(old.key));
  const fresh = regenerateKey(f.state, old.record.id);
  assert.is(store.lookup(old.key), undefined);
  const found = store.lookup(fresh.key);
  assert.ok(found);
  assert.not.equal(fresh.key, old.key);
  const { prefix, last4, ...kept } = publicRecord(found);
  assert.equal(kept, (({ prefix, last4, ...rest }) => rest)(publicRecord(old.record)), 'everything but the value is kept');
  assert.equal([prefix, last4], [fresh.key.slice(0, 8), fresh.key.slice(-4)]);
  assert.is(quotaScope(found), quotaScope(old.record));
  f.cleanup();
});

lookup('should not find a key after keys.json is deleted', () => {
  const f = fixture();
  const { key } = createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  const store = f.open();
  assert.ok(store.lookup(key));
  rmSync(f.file);
  assert.is(store.lookup(key), undefined);
  f.cleanup();
});

lookup.run();

// ---------------------------------------------------------------------------------------------

const changes = suite('revokeKey, regenerateKey and grantProvider');

changes('should add a provider grant sorted and only once', () => {
  const f = fixture();
  const { record } = createKey(f.state, { tier: 'commercial', org: 'acme', grants: ['mid'] }, clock);
  grantProvider(f.state, record.id, 'zed');
  grantProvider(f.state, record.id, 'alpha');
  const granted = grantProvider(f.state, record.id, 'mid');
  assert.equal(granted.grants, ['alpha', 'mid', 'zed']);
  assert.equal(loadKeys(f.state)?.[0].grants, ['alpha', 'mid', 'zed']);
  f.cleanup();
});

changes('should reject an unknown id, naming it', () => {
  const f = fixture();
  createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  throwsWith(() => revokeKey(f.state, 'key_000000000000'), KeyStoreError, /no key with id key_000000000000/);
  throwsWith(() => regenerateKey(f.state, 'key_000000000000'), KeyStoreError, /no key with id key_000000000000/);
  throwsWith(() => grantProvider(f.state, 'key_000000000000', 'p'), KeyStoreError, /no key with id key_000000000000/);
  f.cleanup();
});

changes('should refuse to revoke, regenerate or grant a revoked key, naming it', () => {
  const f = fixture();
  const { record } = createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  revokeKey(f.state, record.id, clock);
  const revoked = new RegExp(`key ${record.id} was revoked`);
  throwsWith(() => revokeKey(f.state, record.id), KeyStoreError, revoked);
  throwsWith(() => regenerateKey(f.state, record.id), KeyStoreError, revoked);
  throwsWith(() => grantProvider(f.state, record.id, 'p'), KeyStoreError, revoked);
  f.cleanup();
});

changes('should reject a bad provider slug before touching the store', () => {
  const f = fixture();
  const { record } = createKey(f.state, { tier: 'commercial', org: 'acme' }, clock);
  throwsWith(() => grantProvider(f.state, record.id, '../x'), KeyInputError, /not a provider slug/);
  f.cleanup();
});

changes.run();

// ---------------------------------------------------------------------------------------------

const corrupt = suite('a corrupt keys.json');

function goodRecord(): KeyRecord {
  return { id: 'key_0123456789ab', hash: 'a'.repeat(64), tier: 'pro', org: 'acme', user: null, scope: 'org', quota: null, grants: [], critpt: false, created_at: '2026-11-20T09:00:00Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null };
}

function writeStore(f: ReturnType<typeof fixture>, text: string): void {
  mkdirSync(f.state, { recursive: true, mode: 0o700 });
  writeFileSync(f.file, text, { mode: 0o600 });
}

corrupt('should refuse to open a file that is not JSON, naming the file', () => {
  const f = fixture();
  writeStore(f, `{"format": 1, "keys": [{"hash": "${'b'.repeat(64)}" oops`);
  throwsWith(() => f.open(), KeyStoreError, new RegExp(`^${f.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON`));
  try {
    f.open();
  } catch (error) {
    assert.not.ok((error as Error).message.includes('b'.repeat(64)), 'the message does not quote the hash');
  }
  f.cleanup();
});

corrupt('should refuse to open a file that breaks the schema, naming the file and the field', () => {
  const f = fixture();
  const cases: [unknown, RegExp][] = [
    [{ format: 1, keys: [{ ...goodRecord(), tier: 'gold' }] }, /\/keys\/0\/tier must be one of free, pro, commercial/],
    [{ format: 1, keys: [goodRecord(), { ...goodRecord(), id: 'key_bbbbbbbbbbbb', scope: 'user' }] }, /\/keys\/1\/user must be string/],
    [{ format: 1, keys: [{ ...goodRecord(), quota: 10 }] }, /\/keys\/0\/quota must be null/],
    [{ format: 1, keys: [{ ...goodRecord(), plain: 'x' }] }, /\/keys\/0 has an unknown field "plain"/],
    [{ format: 1, keys: [{ ...goodRecord(), created_at: 'yesterday' }] }, /\/keys\/0\/created_at must match format "date-time"/],
    [{ format: 3, keys: [] }, /\/format must be equal to constant/],
    [{ format: 1, keys: [goodRecord(), { ...goodRecord(), hash: 'c'.repeat(64) }] }, /\/keys\/1\/id repeats \/keys\/0\/id/],
    [[], /\/ must be object/],
  ];
  for (const [data, pattern] of cases) {
    writeStore(f, JSON.stringify(data));
    throwsWith(() => f.open(), KeyStoreError, pattern);
    throwsWith(() => f.open(), KeyStoreError, new RegExp(`${f.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a valid key store`));
    throwsWith(() => loadKeys(f.state), KeyStoreError, pattern);
  }
  f.cleanup();
});

corrupt('should refuse a format 2 file whose header or a line breaks the schema, naming the line and the field', () => {
  const f = fixture();
  const header = { format: 2, file: '0123456789abcdef', replaces: null, records: 1, end: 0 };
  const lines = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join('');
  const other = { ...goodRecord(), id: 'key_bbbbbbbbbbbb' };
  const cases: [string, RegExp, RegExp?][] = [
    [lines(header, { ...goodRecord(), tier: 'gold' }), /line 2: \/tier must be one of free, pro, commercial/],
    [lines(header, goodRecord(), { ...goodRecord(), quota: 10 }), /line 3: \/quota must be null/],
    [lines({ ...header, plain: 'x' }, goodRecord()), /line 1: \/ has an unknown field "plain"/],
    [`${lines(header, goodRecord())}{"id":"key_bbbbbbbbbbbb",oops\n`, /is not valid JSON at line 3/],
    [lines(header, goodRecord(), other), /line 3: key key_bbbbbbbbbbbb has the hash of key key_0123456789ab/, /keys key_0123456789ab and key_bbbbbbbbbbbb have the same hash/],
  ];
  for (const [text, pattern, listPattern] of cases) {
    writeStore(f, text);
    throwsWith(() => f.open(), KeyStoreError, pattern);
    throwsWith(() => loadKeys(f.state), KeyStoreError, listPattern ?? pattern);
  }
  writeStore(f, lines(header, goodRecord(), { ...goodRecord(), revoked_at: '2026-11-21T09:00:00Z' }, { ...other, hash: 'b'.repeat(64) }));
  assert.equal(loadKeys(f.state)?.map((r) => [r.id, r.revoked_at]), [['key_0123456789ab', '2026-11-21T09:00:00Z'], ['key_bbbbbbbbbbbb', null]], 'the last line of an id counts, in the order ids first came');
  f.cleanup();
});

corrupt('should refuse to answer from the last good keys once the file is broken, parsing each broken version once', () => {
  const f = fixture();
  const { key } = createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  let reads = 0;
  const store = FileKeys.open(f.state, { beforeRead: () => reads++ });
  const good = readFileSync(f.file, 'utf8');
  writeFileSync(f.file, good.replace('"tier":"pro"', '"tier":"gold"'));
  throwsWith(() => store.lookup(key), KeyStoreError, new RegExp(`^${f.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a valid key store: line 2: /tier`));
  const readsOfBroken = reads;
  assert.match(store.check()!.message, /is not a valid key store/);
  assert.is(reads, readsOfBroken, 'a broken version is not parsed again until it changes');

  writeFileSync(f.file, '{ not json');
  assert.match(store.check()!.message, /is not valid JSON/, 'a differently broken file says so');

  writeFileSync(f.file, good);
  const other = createKey(f.state, { tier: 'free', org: 'acme' }, clock);
  assert.is(store.check(), null);
  assert.is(store.lookup(other.key)?.tier, 'free', 'a fixed file is used again');
  assert.ok(store.lookup(key));
  f.cleanup();
});

corrupt('should refuse to change a corrupt store rather than overwrite it', () => {
  const f = fixture();
  writeStore(f, '{ not json');
  throwsWith(() => createKey(f.state, { tier: 'pro', org: 'acme' }), KeyStoreError, /is not valid JSON/);
  throwsWith(() => ensureDemoKeys(f.state, []), KeyStoreError, /is not valid JSON/);
  assert.is(readFileSync(f.file, 'utf8'), '{ not json');
  f.cleanup();
});

corrupt.run();

// ---------------------------------------------------------------------------------------------

const locking = suite('the store lock');

/** How long a change waited for a live holder before it refused, measured by the test below: the wait a dead holder must not cost. */
let liveHolderWaitMs = NaN;

locking('should wait for a live holder and then refuse, naming it', () => {
  const f = fixture();
  mkdirSync(f.state, { recursive: true, mode: 0o700 });
  writeFileSync(`${f.file}.lock`, String(process.pid));
  const started = performance.now();
  throwsWith(() => createKey(f.state, { tier: 'free', org: 'acme' }), KeyStoreError, new RegExp(`keys.json.lock is held by another keys command \\(pid ${process.pid}\\)`));
  liveHolderWaitMs = performance.now() - started;
  assert.is(loadKeys(f.state), null, 'nothing was written');
  f.cleanup();
});

locking('should take over a lock left by a keys command that died, without the wait a live one costs', () => {
  assert.ok(Number.isFinite(liveHolderWaitMs), 'the live holder test ran first and measured its wait');
  const f = fixture();
  mkdirSync(f.state, { recursive: true, mode: 0o700 });
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // a process that has ended
  createKey(f.state, { tier: 'free', org: 'first' });
  writeFileSync(`${f.file}.lock`, String(dead));
  const started = performance.now();
  createKey(f.state, { tier: 'free', org: 'acme' });
  const took = performance.now() - started;
  // The baseline, on this machine now: the wait for a live holder, measured just before.
  assert.ok(took < liveHolderWaitMs / 2, `took ${took.toFixed(0)} ms over a dead holder's lock; a live holder's was waited for ${liveHolderWaitMs.toFixed(0)} ms`);
  assert.is(loadKeys(f.state)!.length, 2);
  assert.not.ok(existsSync(`${f.file}.lock`), 'released after the change');
  f.cleanup();
});

locking.run();

const demo = suite('ensureDemoKeys');

demo('should create one user-scoped demo key per tier on the first call and null afterwards', () => {
  const f = fixture();
  const issued = ensureDemoKeys(f.state, ['zeta', 'alpha'], clock);
  assert.ok(issued);
  assert.equal(issued.map((k) => [k.record.tier, k.record.org, k.record.user, k.record.scope]), [
    ['free', 'demo', 'free-user', 'user'],
    ['pro', 'demo', 'pro-user', 'user'],
    ['commercial', 'demo', 'commercial-user', 'user'],
  ]);
  assert.equal(issued.map((k) => [k.record.critpt, k.record.grants]), [
    [false, []],
    [false, []],
    [true, ['alpha', 'zeta']],
  ]);
  const store = f.open();
  for (const { key, record } of issued) {
    assert.match(key, KEY_PATTERN);
    assert.equal(store.lookup(key), record);
  }
  assert.is(ensureDemoKeys(f.state, ['alpha'], clock), null);
  assert.is(loadKeys(f.state)?.length, 3, 'the second call adds nothing');
  f.cleanup();
});

demo('should leave an existing store alone, even an empty one', () => {
  const f = fixture();
  createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  revokeKey(f.state, loadKeys(f.state)![0].id, clock);
  assert.is(ensureDemoKeys(f.state, []), null);
  writeStore(f, '{"format": 1, "keys": []}');
  assert.is(ensureDemoKeys(f.state, []), null);
  f.cleanup();
});

demo.run();
