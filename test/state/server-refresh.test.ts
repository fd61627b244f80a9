import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { regenerateKey, revokeKey } from '../../src/keys/changes.ts';
import { contentHash } from '../../src/shared/manifest.ts';
import { get } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

let t: TestServer;

const refresh = suite('live data refresh');
refresh.before(async () => {
  t = await startTestServer();
});

/** Rename every model in the fixture, so a body tells which build it came from. */
function renameModels(dataDir: string, suffix: string): void {
  const path = join(dataDir, 'language-models.json');
  const models = JSON.parse(readFileSync(path, 'utf8')) as { name: string }[];
  for (const m of models) m.name = `${m.name.replace(/ \[v\d+\]$/, '')} [${suffix}]`;
  writeFileSync(path, JSON.stringify(models, null, 2));
}

refresh('should switch to a rebuilt snapshot without a restart, failing and mixing nothing', async () => {
  let stop = false;
  const failures: string[] = [];
  const seen = new Set<string>();
  const loop = async (path: string, encoding: string) => {
    while (!stop) {
      const reply = await get(t.url, path, t.keys.commercial, { 'accept-encoding': encoding });
      if (reply.status !== 200) {
        failures.push(`${reply.status} ${reply.text}`);
        continue;
      }
      const identity = encoding === 'br' ? brotliDecompressSync(reply.body) : reply.body;
      const expected = `"${contentHash(identity)}${encoding === 'br' ? '-br' : ''}"`;
      if (reply.headers.etag !== expected) failures.push(`ETag ${reply.headers.etag} does not belong to the body sent (${expected})`);
      const names = JSON.parse(identity.toString()).data.map((m: { name: string }) => /\[(v\d+)\]$/.exec(m.name)?.[1] ?? 'v0');
      if (new Set(names).size !== 1) failures.push(`one body mixes builds: ${[...new Set(names)].join(', ')}`);
      seen.add(names[0]);
    }
  };
  const loops = [loop('/api/v2/language/models', 'br'), loop('/api/v2/language/models/free', 'identity'), loop('/api/v2/language/models?prompt_type=100k', 'br')];
  for (const version of ['v1', 'v2']) {
    renameModels(t.dataDir, version);
    await t.rebuild(false);
    await t.running.snapshots.check();
    await until(() => seen.has(version) || failures.length > 0, `the clients are served ${version}`);
  }
  stop = true;
  await Promise.all(loops);
  assert.equal(failures, []);
  assert.ok(seen.has('v1') && seen.has('v2'), `served builds: ${[...seen].join(', ')}`);
  assert.equal(t.errors, []);
});

refresh('should try a snapshot switch again after a failed read, instead of keeping the old build for good', async () => {
  const before = t.running.snapshots.current;
  // A copy of the live build whose manifest cannot be read yet (a directory where the file goes).
  const copy = join(t.snapshotDir, 'copy-of-live-build');
  cpSync(before.dir, copy, { recursive: true });
  rmSync(join(copy, 'manifest.json'));
  mkdirSync(join(copy, 'manifest.json'));
  const link = join(t.snapshotDir, 'current');
  symlinkSync(copy, `${link}.tmp`);
  renameSync(`${link}.tmp`, link);
  await t.running.snapshots.check();
  assert.is(t.running.snapshots.current, before, 'kept the build it had');
  assert.ok(t.errors.some((e) => e.includes('cannot read snapshot manifest')));
  // The read works again: the next check switches.
  rmSync(join(copy, 'manifest.json'), { recursive: true });
  cpSync(join(before.dir, 'manifest.json'), join(copy, 'manifest.json'));
  await t.running.snapshots.check();
  assert.is(t.running.snapshots.current.dir, copy);
  assert.is((await get(t.url, '/api/v2/language/models/free', t.keys.free)).status, 200);
  t.errors.length = 0;
});

refresh.run();

const keys = suite('key changes take effect on the next request');

keys('should refuse a revoked key on the very next request', async () => {
  const key = t.addKey('doomed', { tier: 'pro', org: 'acme', user: 'doomed' });
  assert.is((await get(t.url, '/api/v2/language/models', key)).status, 200);
  revokeKey(t.stateDir, t.keyIds.doomed);
  const reply = await get(t.url, '/api/v2/language/models', key);
  assert.is(reply.status, 401);
  assert.is(reply.json().error, 'Invalid API key');
});

keys('should refuse the old value of a regenerated key at once and keep the scope\'s count', async () => {
  const old = t.addKey('rotating', { tier: 'pro', org: 'rotor', user: 'r' });
  await get(t.url, '/api/v2/language/models', old);
  const before = Number((await get(t.url, '/api/v2/language/models', old)).headers['x-ratelimit-remaining']);
  const { key: fresh } = regenerateKey(t.stateDir, t.keyIds.rotating);
  assert.is((await get(t.url, '/api/v2/language/models', old)).status, 401);
  const reply = await get(t.url, '/api/v2/language/models', fresh);
  assert.is(reply.status, 200);
  assert.is(Number(reply.headers['x-ratelimit-remaining']), before - 1);
});

keys.after(async () => t.close());
keys.run();
