import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run as keysCommand } from '../../scripts/keys.ts';
import { loadKeys } from '../../src/keys/file-read.ts';
import { get } from '../helpers/http.ts';
import { spawnServer } from '../helpers/process.ts';
import { privateSampleCopy } from '../helpers/sample.ts';

/**
 * A hang guard, not a performance bound: the first start checks every stored part of the sample
 * (and builds it when the shared build is not the one npm start would make).
 */
const FIRST_START_GUARD_MS = 8 * 60_000;

const start = suite('npm start: the embedded default');

start('should find the sample built as it builds it, print one demo key per tier once with the real address and state folder, serve them, and warn once none is usable', async () => {
  const root = mkdtempSync(join(tmpdir(), 'start-'));
  // data/ as npm start builds it (test/helpers/sample.ts makes the same runBuild call): the first
  // start must call it up to date, which it does only when its inputs and options are the same.
  await privateSampleCopy(join(root, 'snapshot'));
  const args = ['--port', '0', '--snapshot', join(root, 'snapshot'), '--state', join(root, 'state')];
  const entry = ['--import', 'tsx', 'scripts/start.ts'];
  const started: { child: { kill: () => boolean } }[] = [];
  const spawned = async (guardMs?: number) => {
    const server = await spawnServer(args, entry, guardMs);
    started.push(server);
    return server;
  };
  try {
    const first = await spawned(FIRST_START_GUARD_MS);
    const keys = Object.fromEntries([...first.output().matchAll(/^ {2}(free|pro|commercial) +(bdk_\S+)$/gm)].map((m) => [m[1], m[2]]));
    assert.equal(Object.keys(keys).sort(), ['commercial', 'free', 'pro']);
    assert.ok(first.output().includes(`curl -s -H "x-api-key: ${keys.pro}" "${first.url}/api/v2/language/models?page=1"`), 'the Try line names the port really listened on');
    assert.ok(first.output().includes(`Manage keys with: npm run -s keys -- list --state ${join(root, 'state')}\n`), 'the hint names the state folder');
    assert.ok(first.output().trimEnd().endsWith(`listening on ${first.url}`), 'the listening line comes last');
    assert.match(first.output(), /build: snapshot \S+ is up to date/);
    assert.is((await get(first.url, '/api/v2/language/models/free', keys.free)).status, 200);
    assert.is((await get(first.url, '/api/v2/language/models', keys.pro)).status, 200);
    const providers = (await get(first.url, '/api/v2/language/providers', keys.commercial)).json().data;
    const measurements = await get(first.url, `/api/v2/language/providers/${providers[0].slug}/measurements`, keys.commercial);
    assert.is(measurements.status, 200, 'the demo Commercial key holds every provider grant');
    first.child.kill('SIGINT');
    assert.is(await first.exited, 0);

    const second = await spawned();
    assert.not.match(second.output(), /bdk_/, 'keys are shown once, on the first start only');
    assert.match(second.output(), /is up to date/);
    assert.is((await get(second.url, '/api/v2/language/models/free', keys.free)).status, 200);
    assert.not.match(second.output(), /no usable key/);
    second.child.kill('SIGTERM');
    assert.is(await second.exited, 0);

    const quiet = { out: () => {}, err: () => {} };
    for (const id of (loadKeys(join(root, 'state')) ?? []).map((k) => k.id)) {
      assert.is(keysCommand(['revoke', id, '--state', join(root, 'state')], quiet), 0);
    }
    const third = await spawned();
    assert.ok(third.output().includes(`warning: the key store in ${join(root, 'state')} holds no usable key (none yet, or every one revoked), so every keyed request is answered 401.`), third.output());
    assert.ok(third.output().includes(`create --tier pro --org ORG --user USER --state ${join(root, 'state')}`));
    assert.is(third.output().split('holds no usable key').length, 2, 'said once');
    third.child.kill('SIGTERM');
    assert.is(await third.exited, 0, third.output());
  } finally {
    // A failed assertion must not leave a server running (the test would hang on it).
    for (const server of started) server.child.kill();
    rmSync(root, { recursive: true, force: true });
  }
});

start.run();
