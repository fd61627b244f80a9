/**
 * The keys command against a temporary state folder: called in-process through its exported
 * `run` (what the command does, fast), and once as a real process, as an operator runs it. The
 * server side is a FileKeys opened in this process before the command runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '../../scripts/keys.ts';
import { hashKey, KEY_ID_PATTERN, KEY_PATTERN } from '../../src/keys/record.ts';
import { ADMIN_TOKEN_PREFIX } from '../../src/keys/admin-tokens.ts';
import { FileKeys } from '../../src/keys/file-keys.ts';
import { loadKeys } from '../../src/keys/file-read.ts';
import { quotaScope } from '../../src/quota/scopes.ts';
import { get } from '../helpers/http.ts';
import { buildFixture, startTestServer } from '../helpers/server.ts';
import { stagedBundle } from '../helpers/staged-bundle.ts';
import { caught } from '../helpers/process.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const RECORD_FIELDS = ['id', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'created_at', 'revoked_at', 'name', 'expires_at', 'prefix', 'last4', 'previous'];
/** A key as `list --json` shows it: its record, its state and its last use. */
const VIEW_FIELDS = [...RECORD_FIELDS, 'state', 'last_used_at'];

/** Removed at exit too, so a failed assertion leaves nothing behind. */
const tempRoots: string[] = [];
process.on('exit', () => tempRoots.forEach((root) => rmSync(root, { recursive: true, force: true })));

// Grants are checked against the served snapshot's providers: a real build of the fixture,
// found as the server finds it (SNAPSHOT_DIR).
const staged = await stagedBundle();
const snapshotRoot = mkdtempSync(join(tmpdir(), 'keys-cli-snapshot-'));
tempRoots.push(snapshotRoot);
process.env.SNAPSHOT_DIR = (await buildFixture(snapshotRoot)).snapshotDir;
/** Providers of test/fixtures/sample-small, in slug order. */
const [CAPSTAN, HANGAR, LARCH, YELLOWFIN] = ['capstan-serve', 'hangar-inference', 'larch-inference', 'yellowfin-systems'];

/** Run the keys command in-process with these arguments and `--state`, collecting what it prints. */
function keysIn(state: string, ...args: string[]) {
  // The file store answers at once: the status is a number, not a promise.
  return caught((io) => run([...args, '--state', state], io) as number);
}

function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'keys-cli-'));
  tempRoots.push(root);
  const state = join(root, 'state');
  const file = join(state, 'keys.json');
  const keys = (...args: string[]) => keysIn(state, ...args);
  /** The same, as a real process (the run's staged dist/keys.mjs). */
  const keysProcess = (...args: string[]) => {
    const child = spawnSync(process.execPath, [staged.keys, ...args, '--state', state], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
    return { status: child.status, stdout: child.stdout, stderr: child.stderr };
  };
  /** Create a key with --json and return the printed object. */
  const create = (...args: string[]) => {
    const run = keys('create', ...args, '--json');
    assert.is(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  };
  return { root, state, file, keys, keysProcess, create, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Usage errors: status 2, one line naming the problem, then one saying where the usage is. */
function assertUsageError(run: { status: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.is(run.status, 2, run.stderr);
  assert.is(run.stdout, '');
  const [first, ...rest] = run.stderr.split('\n');
  assert.match(first, /^keys: /);
  assert.match(first, pattern);
  assert.equal(rest, ['(npm run -s keys -- --help, or node dist/keys.mjs --help, lists the commands and options)', ''], 'one line saying where the usage is, not the usage');
}

// ---------------------------------------------------------------------------------------------

const asProcess = suite('keys as a process');

asProcess('should print a new key alone on stdout and exit 0, list it, and exit 2 on bad usage', () => {
  const f = fixture();
  const made = f.keysProcess('create', '--tier', 'free', '--org', 'acme');
  assert.is(made.status, 0, made.stderr);
  assert.match(made.stdout, /^bdk_\S+\n$/);
  const listed = f.keysProcess('list', '--json');
  assert.is(listed.status, 0);
  assert.is(JSON.parse(listed.stdout).length, 1);
  const bad = f.keysProcess('nonsense');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^keys: unknown command "nonsense"/);
  f.cleanup();
});

asProcess.run();

const create = suite('keys create');

create('should print the new key alone on stdout, once, and store only its hash', () => {
  const f = fixture();
  const run = f.keys('create', '--tier', 'pro', '--org', 'acme', '--user', 'alice');
  assert.is(run.status, 0, run.stderr);
  const key = run.stdout.trim();
  assert.match(key, KEY_PATTERN);
  assert.is(run.stdout, `${key}\n`);
  assert.not.ok(run.stderr.includes(key), 'the notes do not repeat it');
  assert.match(run.stderr, /created key_[0-9a-f]{12}: pro, org acme, user alice, scope user/);
  const stored = readFileSync(f.file, 'utf8');
  assert.not.ok(stored.includes(key.slice(4)), 'keys.json does not hold the key');
  assert.is(FileKeys.open(f.state).lookup(key)?.user, 'alice');
  f.cleanup();
});

create('should make the state folder 0700 and keys.json 0600', () => {
  const f = fixture();
  f.create('--tier', 'free', '--org', 'acme');
  assert.is(statSync(f.state).mode & 0o777, 0o700);
  assert.is(statSync(f.file).mode & 0o777, 0o600);
  f.cleanup();
});

create('should print one JSON object with the id, the key and the record but no hash, with --json', () => {
  const f = fixture();
  const run = f.keys('create', '--tier', 'commercial', '--org', 'acme', '--user', 'bob', '--scope', 'org', '--quota', '2500', '--grant', LARCH, '--grant', CAPSTAN, '--grant', LARCH, '--critpt', '--json');
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim().split('\n').length, 1, 'one line, one object');
  const printed = JSON.parse(run.stdout);
  assert.equal(Object.keys(printed).sort(), [...RECORD_FIELDS, 'key'].sort());
  assert.match(printed.id, KEY_ID_PATTERN);
  assert.match(printed.key, KEY_PATTERN);
  assert.equal({ ...printed, id: 0, key: 0, created_at: 0 }, { id: 0, key: 0, tier: 'commercial', org: 'acme', user: 'bob', scope: 'org', quota: 2500, grants: [CAPSTAN, LARCH], critpt: true, created_at: 0, revoked_at: null, name: null, expires_at: null, prefix: printed.key.slice(0, 8), last4: printed.key.slice(-4), previous: null });
  assert.is(FileKeys.open(f.state).lookup(printed.key)?.id, printed.id);
  f.cleanup();
});

create('should default the scope to user with --user and to org without', () => {
  const f = fixture();
  assert.is(f.create('--tier', 'pro', '--org', 'acme', '--user', 'alice').scope, 'user');
  assert.is(f.create('--tier', 'pro', '--org', 'acme').scope, 'org');
  assert.equal(f.create('--tier', 'free', '--org', 'acme').quota, null);
  f.cleanup();
});

create.run();

// ---------------------------------------------------------------------------------------------

const list = suite('keys list');

list('should print records without hashes as a JSON array with --json', () => {
  const f = fixture();
  const a = f.create('--tier', 'pro', '--org', 'acme', '--user', 'alice');
  const b = f.create('--tier', 'commercial', '--org', 'beta', '--grant', CAPSTAN);
  const run = f.keys('list', '--json');
  assert.is(run.status, 0, run.stderr);
  const listed = JSON.parse(run.stdout);
  assert.equal(listed.map((r: { id: string }) => r.id), [a.id, b.id]);
  for (const record of listed) assert.equal(Object.keys(record).sort(), [...VIEW_FIELDS].sort());
  const hashes = (loadKeys(f.state) ?? []).map((r) => r.hash);
  for (const hash of hashes) assert.not.ok(run.stdout.includes(hash));
  assert.not.ok(run.stdout.includes(a.key) || run.stdout.includes(b.key));
  f.cleanup();
});

list('should print one short line per key, grants as a count, and no hash or key', () => {
  const f = fixture();
  const a = f.create('--tier', 'pro', '--org', 'acme', '--user', 'alice');
  const b = f.create('--tier', 'commercial', '--org', 'beta', '--quota', '40', '--grant', HANGAR, '--grant', CAPSTAN, '--critpt');
  assert.is(f.keys('revoke', a.id).status, 0);
  const run = f.keys('list');
  assert.is(run.status, 0, run.stderr);
  const lines = run.stdout.trimEnd().split('\n').map((line) => line.split(/\s+/));
  assert.equal(lines[0], ['id', 'name', 'value', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'status', 'expires', 'last_used', 'created']);
  assert.equal(lines[1].slice(0, 13), [a.id, '-', `${a.key.slice(0, 8)}…${a.key.slice(-4)}`, 'pro', 'acme', 'alice', 'user', '-', '0', 'no', 'revoked', '-', '-']);
  assert.equal(lines[2].slice(0, 11), [b.id, '-', `${b.key.slice(0, 8)}…${b.key.slice(-4)}`, 'commercial', 'beta', '-', 'org', '40', '2', 'yes', 'active']);
  assert.not.ok(run.stdout.includes(CAPSTAN), 'grants are counted, not named');
  assert.is(lines.length, 3);
  const hashes = (loadKeys(f.state) ?? []).map((r) => r.hash);
  for (const secret of [...hashes, a.key, b.key]) assert.not.ok(run.stdout.includes(secret));
  f.cleanup();
});

list('should list nothing when there is no store yet', () => {
  const f = fixture();
  const run = f.keys('list', '--json');
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout), []);
  f.cleanup();
});

list.run();

// ---------------------------------------------------------------------------------------------

const revoke = suite('keys revoke');

revoke('should make the key fail on the very next lookup of a running store', () => {
  const f = fixture();
  const a = f.create('--tier', 'pro', '--org', 'acme', '--user', 'alice');
  const b = f.create('--tier', 'pro', '--org', 'acme', '--user', 'bob');
  const store = FileKeys.open(f.state);
  assert.ok(store.lookup(a.key));
  const run = f.keys('revoke', a.id);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`revoked ${a.id}`));
  assert.is(store.lookup(a.key), undefined, 'same store, no reopen');
  assert.ok(store.lookup(b.key));
  f.cleanup();
});

revoke('should fail with status 1 naming the id of an unknown or already revoked key', () => {
  const f = fixture();
  const a = f.create('--tier', 'pro', '--org', 'acme');
  const unknown = f.keys('revoke', 'key_000000000000');
  assert.is(unknown.status, 1);
  assert.match(unknown.stderr, /^keys: no key with id key_000000000000\n$/);
  assert.is(f.keys('revoke', a.id).status, 0);
  const again = f.keys('revoke', a.id);
  assert.is(again.status, 1);
  assert.match(again.stderr, new RegExp(`key ${a.id} was revoked`));
  f.cleanup();
});

revoke('should refuse a plain key given as the id without echoing it', () => {
  const f = fixture();
  const a = f.create('--tier', 'pro', '--org', 'acme');
  const run = f.keys('revoke', a.key);
  assertUsageError(run, /that is a key, not a key id/);
  assert.not.ok(run.stderr.includes(a.key));
  assert.ok(FileKeys.open(f.state).lookup(a.key), 'nothing was revoked');
  f.cleanup();
});

revoke.run();

// ---------------------------------------------------------------------------------------------

const regenerate = suite('keys regenerate');

regenerate('should fail the old key at once and take the new one, keeping the id and quota scope', () => {
  const f = fixture();
  const old = f.create('--tier', 'commercial', '--org', 'acme', '--user', 'alice', '--quota', '9', '--grant', CAPSTAN, '--critpt');
  const store = FileKeys.open(f.state);
  const before = store.lookup(old.key);
  assert.ok(before);
  const run = f.keys('regenerate', old.id, '--json');
  assert.is(run.status, 0, run.stderr);
  const fresh = JSON.parse(run.stdout);
  assert.match(fresh.key, KEY_PATTERN);
  assert.not.equal(fresh.key, old.key);
  const value = (issued: Record<string, unknown>) => ({ ...issued, key: 0, prefix: 0, last4: 0 });
  assert.equal(value(fresh), value(old), 'the record is unchanged but for what is kept of its value');
  assert.equal([fresh.prefix, fresh.last4], [fresh.key.slice(0, 8), fresh.key.slice(-4)]);
  assert.is(store.lookup(old.key), undefined, 'the old key fails on the next lookup');
  const after = store.lookup(fresh.key);
  assert.is(after?.id, old.id);
  assert.is(quotaScope(after!), quotaScope(before));
  f.cleanup();
});

regenerate('should print the new key alone on stdout without --json', () => {
  const f = fixture();
  const old = f.create('--tier', 'pro', '--org', 'acme');
  const run = f.keys('regenerate', old.id);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stdout, /^bdk_[A-Za-z0-9_-]{43}\n$/);
  assert.ok(FileKeys.open(f.state).lookup(run.stdout.trim()));
  f.cleanup();
});

regenerate.run();

// ---------------------------------------------------------------------------------------------

const grant = suite('keys grant');

grant('should add a provider slug, sorted and only once', () => {
  const f = fixture();
  const a = f.create('--tier', 'commercial', '--org', 'acme', '--grant', LARCH);
  assert.is(f.keys('grant', a.id, YELLOWFIN).status, 0);
  assert.is(f.keys('grant', a.id, CAPSTAN).status, 0);
  const run = f.keys('grant', a.id, LARCH, '--json');
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).grants, [CAPSTAN, LARCH, YELLOWFIN]);
  assert.equal(FileKeys.open(f.state).lookup(a.key)?.grants, [CAPSTAN, LARCH, YELLOWFIN]);
  f.cleanup();
});

grant('should reject a bad slug and an unknown id', () => {
  const f = fixture();
  const a = f.create('--tier', 'commercial', '--org', 'acme');
  assertUsageError(f.keys('grant', a.id, 'Bad Slug'), /not a provider slug: "Bad Slug"/);
  const unknown = f.keys('grant', 'key_ffffffffffff', CAPSTAN);
  assert.is(unknown.status, 1);
  assert.match(unknown.stderr, /no key with id key_ffffffffffff/);
  f.cleanup();
});

grant('should refuse a provider the served snapshot does not have, and grant it with a warning under --force', () => {
  const f = fixture();
  const a = f.create('--tier', 'commercial', '--org', 'acme');
  const refused = f.keys('grant', a.id, 'anvil-hosting');
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /^keys: provider anvil-hosting is not in the served snapshot \S+ \(.*\); it has capstan-serve, hangar-inference, larch-inference, yellowfin-systems\. Use --force/);
  assert.equal(FileKeys.open(f.state).lookup(a.key)?.grants, [], 'nothing granted');
  const created = f.keys('create', '--tier', 'commercial', '--org', 'acme', '--grant', 'anvil-hosting');
  assert.is(created.status, 1, 'create checks its grants too');
  const forced = f.keys('grant', a.id, 'anvil-hosting', '--force');
  assert.is(forced.status, 0, forced.stderr);
  assert.match(forced.stderr, /^keys: warning: provider anvil-hosting is not in the served snapshot .*granted anyway \(--force\)/);
  assert.equal(FileKeys.open(f.state).lookup(a.key)?.grants, ['anvil-hosting']);
  f.cleanup();
});

grant('should name the provider a misspelt slug meant, not list them all', () => {
  const f = fixture();
  const a = f.create('--tier', 'commercial', '--org', 'acme');
  const refused = f.keys('grant', a.id, 'capstan-srve');
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /^keys: provider capstan-srve is not in the served snapshot \S+ \(.*\); did you mean capstan-serve\? Use --force/);
  f.cleanup();
});

grant('should check against the snapshot named by --snapshot, and refuse when there is none', () => {
  const f = fixture();
  const a = f.create('--tier', 'commercial', '--org', 'acme');
  const none = f.keys('grant', a.id, CAPSTAN, '--snapshot', join(f.root, 'nowhere'));
  assert.is(none.status, 1);
  assert.match(none.stderr, /cannot read the served snapshot at .*nowhere\/current \(ENOENT\); cannot check the provider \(pass --snapshot DIR, or --force/);
  assert.is(f.keys('grant', a.id, CAPSTAN, '--snapshot', process.env.SNAPSHOT_DIR!).status, 0);
  f.cleanup();
});

grant('should refuse grants to keys that cannot read measurements', () => {
  const f = fixture();
  const pro = f.create('--tier', 'pro', '--org', 'acme');
  const refused = f.keys('grant', pro.id, CAPSTAN);
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /key \S+ is tier pro: provider grants open the measurements routes, which only commercial keys may read/);
  assert.is(f.keys('grant', pro.id, CAPSTAN, '--force').status, 1, '--force does not make a grant usable');
  assertUsageError(f.keys('create', '--tier', 'free', '--org', 'acme', '--grant', CAPSTAN), /keys of tier free cannot hold grants/);
  f.cleanup();
});

grant.run();

// ---------------------------------------------------------------------------------------------

const ungrant = suite('keys ungrant');

ungrant('should take one grant back, and say so when the key holds none for that provider', () => {
  const f = fixture();
  const a = f.create('--tier', 'commercial', '--org', 'acme', '--grant', CAPSTAN, '--grant', HANGAR);
  const run = f.keys('ungrant', a.id, CAPSTAN);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stdout, /no longer holds a grant for capstan-serve \(1 left\)/);
  assert.equal(FileKeys.open(f.state).lookup(a.key)?.grants, [HANGAR]);
  const again = f.keys('ungrant', a.id, CAPSTAN);
  assert.is(again.status, 1);
  assert.match(again.stderr, /holds no grant for capstan-serve/);
  f.cleanup();
});

ungrant.run();

// ---------------------------------------------------------------------------------------------

const critpt = suite('keys critpt');

critpt('should approve and withdraw CritPt grading on an existing key', () => {
  const f = fixture();
  const a = f.create('--tier', 'pro', '--org', 'acme', '--user', 'ana');
  const on = f.keys('critpt', a.id, 'on');
  assert.is(on.status, 0, on.stderr);
  assert.match(on.stdout, /CritPt grading approved/);
  assert.is(FileKeys.open(f.state).lookup(a.key)?.critpt, true);
  const off = f.keys('critpt', a.id, 'off', '--json');
  assert.is(JSON.parse(off.stdout).critpt, false);
  assert.is(FileKeys.open(f.state).lookup(a.key)?.critpt, false);
  assertUsageError(f.keys('critpt', a.id, 'yes'), /critpt takes on or off, got "yes"/);
  f.cleanup();
});

critpt.run();

// ---------------------------------------------------------------------------------------------

const quota = suite('keys quota and keys audit');

quota("should set a commercial key's quota or give it the default back, refuse it on other tiers, and record each change with who ran it", () => {
  const f = fixture();
  const { id } = f.create('--tier', 'commercial', '--org', 'bigco');
  const pro = f.create('--tier', 'pro', '--org', 'acme');
  const set = f.keys('quota', id, '77', '--json');
  assert.is(set.status, 0, set.stderr);
  assert.is(JSON.parse(set.stdout).quota, 77);
  assert.is(JSON.parse(f.keys('quota', id, 'default', '--json').stdout).quota, null);
  const refused = f.keys('quota', pro.id, '5');
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /only for commercial keys/);
  assertUsageError(f.keys('quota', id, 'lots'), /--quota must be a positive integer/);
  const audit = f.keys('audit', '--json');
  assert.is(audit.status, 0, audit.stderr);
  const entries = JSON.parse(audit.stdout);
  assert.equal(entries.map((e: { action: string; changes: unknown }) => [e.action, e.changes]), [['key.quota', { quota: null }], ['key.quota', { quota: 77 }], ['key.create', { tier: 'pro', org: 'acme', user: null, scope: 'org', quota: null, grants: [], critpt: false }], ['key.create', { tier: 'commercial', org: 'bigco', user: null, scope: 'org', quota: null, grants: [], critpt: false }]]);
  for (const entry of entries) assert.equal([entry.actor, entry.from], ['keys-command', 'local']);
  assert.match(entries[0].actor_name, /^system user /);
  assert.match(f.keys('audit', '--limit', '1').stdout, /key\.quota/);
  assertUsageError(f.keys('audit', '--limit', '0'), /--limit must be an integer from 1 to 1000/);
  f.cleanup();
});

quota('should record admin-token create and revoke in the audit trail, run as a process, naming the token by its id and name only', () => {
  const f = fixture();
  const made = f.keysProcess('admin-token', 'create', '--name', 'billing', '--json');
  assert.is(made.status, 0, made.stderr);
  const { token, id } = JSON.parse(made.stdout);
  const revoked = f.keysProcess('admin-token', 'revoke', id);
  assert.is(revoked.status, 0, revoked.stderr);
  assert.is(f.keysProcess('admin-token', 'revoke', id).status, 1, 'a refused revocation');
  const trail = f.keysProcess('audit', '--json');
  assert.is(trail.status, 0, trail.stderr);
  const entries = JSON.parse(trail.stdout);
  assert.equal(entries.map((e: { action: string; key: string; changes: unknown }) => [e.action, e.key, e.changes]), [['admin-token.revoke', id, {}], ['admin-token.create', id, { name: 'billing' }]], 'newest first; the refused revocation not recorded');
  for (const entry of entries) assert.equal([entry.actor, entry.from], ['keys-command', 'local']);
  assert.match(entries[0].actor_name, /^system user /);
  assert.match(f.keysProcess('audit').stdout, new RegExp(`keys-command \\(system user [^)]+\\) from local  admin-token\\.create ${id} \\{"name":"billing"\\}\\n$`), 'the plain listing names the token and its name');
  const hash = hashKey(token);
  assert.ok(readFileSync(join(f.state, 'admin-tokens.json'), 'utf8').includes(hash), 'the token store holds the hash the trail must not');
  const log = readFileSync(join(f.state, 'audit.log'), 'utf8');
  for (const secret of [token, token.slice(ADMIN_TOKEN_PREFIX.length), hash, 'bdat_']) assert.not.ok(log.includes(secret), 'no token, nor its hash, in the trail');
  f.cleanup();
});

quota('should still print a new admin token when the audit trail cannot be written, saying so on stderr', () => {
  const f = fixture();
  mkdirSync(f.state, { recursive: true });
  mkdirSync(join(f.state, 'audit.log')); // a folder where the trail's file should be
  const made = f.keys('admin-token', 'create', '--name', 'ops');
  assert.is(made.status, 0, made.stderr);
  assert.match(made.stdout, /^bdat_[A-Za-z0-9_-]{43}\n$/, 'the token is printed');
  assert.match(made.stderr, /keys: warning: admin-token\.create of adm_[0-9a-f]{12} was made but not written to the audit trail/);
  assert.is(JSON.parse(f.keys('admin-token', 'list', '--json').stdout).length, 1);
  f.cleanup();
});

quota('should still make a change and print it when the audit trail cannot be written, saying so on stderr', () => {
  const f = fixture();
  f.create('--tier', 'free', '--org', 'acme');
  rmSync(join(f.state, 'audit.log'));
  mkdirSync(join(f.state, 'audit.log')); // a folder where the trail's file should be
  const made = f.keys('create', '--tier', 'pro', '--org', 'acme');
  assert.is(made.status, 0, made.stderr);
  assert.match(made.stdout, /^bdk_[A-Za-z0-9_-]{43}\n$/, 'the new key is printed');
  assert.match(made.stderr, /keys: warning: key\.create of key_[0-9a-f]{12} was made but not written to the audit trail/);
  assert.is(JSON.parse(f.keys('list', '--json').stdout).length, 2);
  f.cleanup();
});

quota.run();

// ---------------------------------------------------------------------------------------------

const usage = suite('keys usage');

/** Every file of a folder with its size and modification time, to see that nothing was written. */
function folderState(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const s = statSync(join(dir, name));
      return `${name} ${s.size} ${s.mtimeMs}`;
    })
    .join('\n');
}

usage('should report each scope\'s counted requests and what remains, read beside the running server without writing', async () => {
  const server = await startTestServer();
  try {
    server.clock.t = Date.now(); // usage reads the counters at the real time
    for (let i = 0; i < 3; i++) assert.is((await get(server.url, '/api/v2/language/models/free', server.keys.free)).status, 200);
    assert.is((await get(server.url, '/api/v2/language/models', server.keys.pro)).status, 200);
    const before = folderState(server.stateDir);
    const keys = (...args: string[]) => keysIn(server.stateDir, ...args);
    const json = keys('usage', '--json');
    assert.is(json.status, 0, json.stderr);
    const rows = JSON.parse(json.stdout) as { kind: string; scope: string; keys: string[]; used: number; limit: number; remaining: number; resets_at: string | null }[];
    const row = (kind: string, scope: string) => rows.find((r) => r.kind === kind && r.scope === scope)!;
    assert.equal({ ...row('data', 'user:acme/fran'), resets_at: null }, { kind: 'data', scope: 'user:acme/fran', keys: [server.keyIds.free], limit: 100, used: 3, remaining: 97, resets_at: null });
    assert.match(row('data', 'user:acme/fran').resets_at!, /^\d{4}-\d\d-\d\dT/);
    // The running server's journal holds the Pro key's lease (1% of 500) and notes its one answer.
    assert.equal([row('data', 'user:acme/pat').used, row('data', 'user:acme/pat').remaining], [1, 499]);
    assert.equal({ ...row('data', 'user:bigco/cora') }, { kind: 'data', scope: 'user:bigco/cora', keys: [server.keyIds.commercial], limit: 10000, used: 0, remaining: 10000, resets_at: null });
    assert.equal([row('critpt', 'user:bigco/cora').used, row('critpt', 'user:bigco/cora').remaining], [0, 10], 'the CritPt-approved key has a CritPt row');
    assert.is(rows.filter((r) => r.kind === 'critpt').length, 1);
    const text = keys('usage');
    assert.match(text.stdout, /^quota +scope +used +limit +remaining +resets +keys\n/);
    assert.match(text.stdout, /\ndata +user:acme\/fran +3 +100 +97 /);
    assert.is(folderState(server.stateDir), before, 'usage wrote nothing to the state folder');
    assert.is((await get(server.url, '/api/v2/language/models/free', server.keys.free)).status, 200, 'the server kept counting');
    assert.is(JSON.parse(keys('usage', '--json').stdout).find((r: { scope: string }) => r.scope === 'user:acme/fran').used, 4);
  } finally {
    await server.close();
  }
});

usage('should count against the limits the server runs with, as it recorded them, whatever the command\'s environment', async () => {
  const server = await startTestServer({ server: { limits: { free: 3, pro: 7, commercialDefault: 10_000, critpt: 2 } } });
  const environment = process.env.QUOTA_FREE;
  try {
    server.clock.t = Date.now();
    assert.is((await get(server.url, '/api/v2/language/models/free', server.keys.free)).status, 200);
    // An operator whose shell says otherwise still sees what the server enforces.
    process.env.QUOTA_FREE = '50';
    const json = keysIn(server.stateDir, 'usage', '--json');
    assert.is(json.status, 0, json.stderr);
    const rows = JSON.parse(json.stdout) as { scope: string; kind: string; limit: number; remaining: number }[];
    const fran = rows.find((r) => r.kind === 'data' && r.scope === 'user:acme/fran')!;
    assert.equal([fran.limit, fran.remaining], [3, 2]);
    assert.is(rows.find((r) => r.kind === 'data' && r.scope === 'user:acme/pat')!.limit, 7);
    assert.is(rows.find((r) => r.kind === 'critpt')!.limit, 2);
    assert.match(json.stderr, /^limits as the server recorded them in \S+ at \d{4}-\d\d-\d\dT[^:]+:\d\d:\d\d\.\d{3}Z: free 3, pro 7, commercial 10000 \(keys without a quota of their own\), CritPt 2\n$/);
  } finally {
    if (environment === undefined) delete process.env.QUOTA_FREE;
    else process.env.QUOTA_FREE = environment;
    await server.close();
  }
});

usage('should say so when no server has recorded its limits, and count against the environment\'s as a server would', () => {
  const f = fixture();
  const environment = process.env.QUOTA_FREE;
  try {
    assert.is(f.keys('create', '--tier', 'free', '--org', 'acme', '--user', 'ana').status, 0);
    process.env.QUOTA_FREE = '50';
    const json = f.keys('usage', '--json');
    assert.is(json.status, 0, json.stderr);
    assert.is(JSON.parse(json.stdout)[0].limit, 50);
    assert.match(json.stderr, /^no server has recorded its limits in \S+ yet; counting against the environment's \(QUOTA_\*\) or the defaults: free 50, pro 500,/);
  } finally {
    if (environment === undefined) delete process.env.QUOTA_FREE;
    else process.env.QUOTA_FREE = environment;
    f.cleanup();
  }
});

usage.run();


// ---------------------------------------------------------------------------------------------

const errors = suite('keys usage errors');

errors('should reject a bad tier', () => {
  const f = fixture();
  assertUsageError(f.keys('create', '--tier', 'gold', '--org', 'acme'), /--tier must be one of free, pro, commercial, got "gold"/);
  f.cleanup();
});

errors('should reject create without --org or --tier', () => {
  const f = fixture();
  assertUsageError(f.keys('create', '--tier', 'pro'), /create needs --org/);
  assertUsageError(f.keys('create', '--org', 'acme'), /create needs --tier/);
  f.cleanup();
});

errors('should reject --scope user without --user', () => {
  const f = fixture();
  assertUsageError(f.keys('create', '--tier', 'pro', '--org', 'acme', '--scope', 'user'), /--scope user needs --user/);
  assertUsageError(f.keys('create', '--tier', 'pro', '--org', 'acme', '--scope', 'team'), /--scope must be user or org/);
  f.cleanup();
});

errors('should reject --quota for a free key and a quota that is not a positive integer', () => {
  const f = fixture();
  assertUsageError(f.keys('create', '--tier', 'free', '--org', 'acme', '--quota', '10'), /--quota is only for commercial keys/);
  assertUsageError(f.keys('create', '--tier', 'commercial', '--org', 'acme', '--quota', '0'), /--quota must be a positive integer, got "0"/);
  assertUsageError(f.keys('create', '--tier', 'commercial', '--org', 'acme', '--quota', 'lots'), /--quota must be a positive integer/);
  f.cleanup();
});

errors('should reject unknown commands and options, options of other commands and missing arguments', () => {
  const f = fixture();
  assertUsageError(f.keys('delete', 'key_000000000000'), /unknown command "delete"/);
  assertUsageError(f.keys('list', '--verbose'), /--verbose/);
  assertUsageError(f.keys('list', '--tier', 'pro'), /--tier is not an option of list/);
  assertUsageError(f.keys('revoke'), /revoke takes ID, got 0 arguments/);
  assertUsageError(f.keys('grant', 'key_000000000000'), /grant takes ID PROVIDER_SLUG/);
  assertUsageError(f.keys('revoke', 'nonsense'), /not a key id: "nonsense"/);
  f.cleanup();
});

errors('should fail with status 1 naming the file when keys.json is corrupt', () => {
  const f = fixture();
  f.create('--tier', 'pro', '--org', 'acme');
  writeFileSync(f.file, '{"format": 1, "keys": [');
  for (const run of [f.keys('list'), f.keys('create', '--tier', 'pro', '--org', 'acme')]) {
    assert.is(run.status, 1);
    assert.is(run.stdout, '');
    assert.ok(run.stderr.startsWith(`keys: ${f.file} is not valid JSON`), run.stderr);
  }
  assert.is(readFileSync(f.file, 'utf8'), '{"format": 1, "keys": [', 'the broken file is left for the operator');
  f.cleanup();
});

errors.run();
