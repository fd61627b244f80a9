/**
 * An admin change on a large state folder costs the server what a keys command's change costs
 * it: the key's line, not keys.json whole. Read whole on the server's event loop, a change at
 * 100,000 keys held every request some 125 ms (scripts/bench/admin-scale.ts has the figures).
 *
 * Counted, not timed: the bytes the server process reads (/proc/PID/io, rchar: every read it
 * makes, the page cache's included) during one admin revoke, less what it reads for an admin call
 * that reads no key (the audit trail's latest entry), against the file's size. A list of every
 * key is sent as it is read, never held whole: chunked, with the bytes the whole list had. A page
 * of the key-management page's table reads none of the file: it is made from the keys in memory.
 * A usage export to a client that reads nothing reads no more of the days than the sockets hold.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { freePort } from '../../scripts/processes.ts';
import { scaleKeyId, scaleWindowScope, writeScaleKeys } from '../../scripts/scale-state.ts';
import { CSV_HEADER } from '../../src/admin/usage-export.ts';
import { addDays, usageKey, utcDay } from '../../src/quota/usage-day.ts';
import { dayFileName, dayFileText, ensureUsageDir } from '../../src/quota/usage-files.ts';
import { ensurePrivateDir, writeFileAtomic } from '../../src/shared/state-files.ts';
import { fileTokenStore } from '../../src/keys/admin-tokens.ts';
import { createKey } from '../../src/keys/changes.ts';
import { readKeysFile } from '../../src/keys/file-read.ts';
import { keysPath } from '../../src/keys/record.ts';
import { keyView } from '../../src/key-admin/key-view.ts';
import { compareKeys } from '../../src/key-admin/key-query.ts';
import { get, request } from '../helpers/http.ts';
import { spawnServer, stopProcess } from '../helpers/process.ts';
import { buildFixture } from '../helpers/server.ts';

/** Some 8 MB of keys.json: eight of the 1 MB chunks a change searches at most at a time. */
const KEYS = 30_000;
const FREE_LIST = '/api/v2/language/models/free';
/** 30 days of 20,000 scopes: some 21 MB of day files, 26 MB of CSV, many times what the sockets hold. */
const EXPORT_SCOPES = 20_000;
const EXPORT_DAYS = 30;

const scale = suite('admin changes at scale');
const root = mkdtempSync(join(tmpdir(), 'admin-keys-scale-'));
scale.after(() => rmSync(root, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bytes the process has read so far. */
function bytesRead(pid: number): number {
  return Number(/^rchar:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

/** Wait until the process reads nothing for a while (its start's background check of the build done); bytes read then. */
async function quiet(pid: number): Promise<number> {
  for (let was = bytesRead(pid), tries = 0; tries < 100; tries++) {
    await sleep(150);
    const now = bytesRead(pid);
    if (now === was) return now;
    was = now;
  }
  throw new Error('the server kept reading');
}

scale('an admin revoke reads the key\'s line, not keys.json whole, and the next request is refused', async () => {
  const { snapshotDir } = await buildFixture(root);
  const state = join(root, 'state');
  writeScaleKeys(state, KEYS);
  const issued = createKey(state, { tier: 'pro', org: 'acme', user: 'ana' });
  const { token } = fileTokenStore(state).create('scale', { now: () => Date.now() }) as { token: string };
  const size = statSync(keysPath(state)).size;
  const adminPort = await freePort();
  const server = await spawnServer(['--port', '0', '--admin-port', String(adminPort), '--snapshot', snapshotDir, '--state', state, '--quiet']);
  const admin = (method: string, path: string) => request(`http://127.0.0.1:${adminPort}`, `/admin/api${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  try {
    const pid = server.child.pid!;
    assert.is((await get(server.url, FREE_LIST, issued.key)).status, 200);
    assert.is((await admin('GET', '/audit?limit=1')).status, 200); // the listener's first call, before anything is counted

    let before = await quiet(pid);
    assert.is((await admin('GET', '/audit?limit=1')).status, 200);
    const baseline = (await quiet(pid)) - before;

    before = await quiet(pid);
    const revoked = await admin('DELETE', `/keys/${issued.record.id}`);
    const read = (await quiet(pid)) - before - baseline;
    assert.is(revoked.status, 200, revoked.text);
    assert.is(revoked.json().changed, true);
    // The keys command's way read all of it on the event loop; in turns, the file's last 64 KB
    // and 1 MB, where the key's line is.
    assert.ok(read < size / 4, `the revoke read ${read} bytes of a ${size}-byte keys.json (an admin call reading no key: ${baseline})`);
    assert.is((await get(server.url, FREE_LIST, issued.key)).status, 401, 'refused at the next request');
  } finally {
    await stopProcess(server.child);
  }
});

scale('a page of the table is made from the keys the server holds, reading none of keys.json, in the order a sort gives', async () => {
  const { snapshotDir } = await buildFixture(join(root, 'page'));
  const state = join(root, 'page', 'state');
  writeScaleKeys(state, KEYS);
  const { token } = fileTokenStore(state).create('scale', { now: () => Date.now() }) as { token: string };
  const size = statSync(keysPath(state)).size;
  const adminPort = await freePort();
  const server = await spawnServer(['--port', '0', '--admin-port', String(adminPort), '--snapshot', snapshotDir, '--state', state, '--quiet']);
  const admin = (path: string) => request(`http://127.0.0.1:${adminPort}`, `/admin/api${path}`, { headers: { authorization: `Bearer ${token}` } });
  try {
    const pid = server.child.pid!;
    assert.is((await admin('/audit?limit=1')).status, 200);
    let before = await quiet(pid);
    assert.is((await admin('/audit?limit=1')).status, 200);
    const baseline = (await quiet(pid)) - before;
    before = await quiet(pid);
    const page = await admin('/keys?page=3&per_page=50&sort=name&order=desc&revoked=false');
    const read = (await quiet(pid)) - before - baseline;
    assert.is(page.status, 200, page.text);
    assert.ok(read < size / 100, `a page read ${read} bytes of a ${size}-byte keys.json (an admin call reading no key: ${baseline})`);
    const views = readKeysFile(keysPath(state))!.records.map((record) => keyView(record, Date.now(), new Map()));
    const expected = views.filter((v) => v.state !== 'revoked').sort(compareKeys({ sort: 'name', descending: true }));
    assert.equal(page.json().data.map((k: { id: string }) => k.id), expected.slice(100, 150).map((k) => k.id), 'the third page of the sort');
    assert.equal(page.json().pagination, { page: 3, per_page: 50, total: expected.length, total_pages: Math.ceil(expected.length / 50) });
  } finally {
    await stopProcess(server.child);
  }
});

scale('a list of every key is sent as it is read (chunked), the keys a whole read gives in its order', async () => {
  const { snapshotDir } = await buildFixture(join(root, 'list'));
  const state = join(root, 'list', 'state');
  writeScaleKeys(state, KEYS);
  createKey(state, { tier: 'pro', org: 'acme', user: 'ana' });
  const { token } = fileTokenStore(state).create('scale', { now: () => Date.now() }) as { token: string };
  const adminPort = await freePort();
  const server = await spawnServer(['--port', '0', '--admin-port', String(adminPort), '--snapshot', snapshotDir, '--state', state, '--quiet']);
  const admin = (method: string, path: string) => request(`http://127.0.0.1:${adminPort}`, `/admin/api${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  try {
    const revoked = await admin('DELETE', `/keys/${scaleKeyId(7)}`);
    assert.is(revoked.status, 200, revoked.text);
    const list = await admin('GET', '/keys');
    assert.is(list.status, 200, list.text.slice(0, 200));
    // Held whole, 100,000 keys took the server to 245-251 MB resident (scripts/bench/admin-scale.ts).
    assert.is(list.headers['transfer-encoding'], 'chunked', 'sent as made, not held to be measured first');
    assert.is(list.headers['content-length'], undefined);
    // No key expires and none was used: each is listed active or revoked, with no last use.
    const views = readKeysFile(keysPath(state))!.records.map((record) => keyView(record, Date.now(), new Map()));
    // ok, not is: on a mismatch, uvu's diff of two 8 MB strings would run for many minutes.
    assert.ok(list.text === JSON.stringify({ data: views }), 'the bytes the whole list was');
    assert.is(list.json().data[7].revoked_at, revoked.json().record.revoked_at);
    const org = await admin('GET', '/keys?org=org7&revoked=true');
    const expected = readKeysFile(keysPath(state))!.records.filter((r) => r.org === 'org7' && r.revoked_at !== null);
    assert.ok(expected.some((r) => r.id === scaleKeyId(7)));
    assert.equal(org.json().data, expected.map((record) => keyView(record, Date.now(), new Map())));
  } finally {
    await stopProcess(server.child);
  }
});

scale('an export to a client that reads nothing stops reading the days; read, it is whole', async () => {
  const { snapshotDir } = await buildFixture(join(root, 'export'));
  const state = join(root, 'export', 'state');
  ensurePrivateDir(state);
  const dir = ensureUsageDir(state);
  const keys = Array.from({ length: EXPORT_SCOPES }, (_, i) => usageKey('data', scaleWindowScope(i))).sort();
  const counts = new Map(keys.map((key, i) => [key, 1 + i]));
  const today = utcDay(Date.now());
  const days = Array.from({ length: EXPORT_DAYS }, (_, d) => addDays(today, d + 1 - EXPORT_DAYS));
  let size = 0;
  for (const day of days) {
    writeFileAtomic(join(dir, dayFileName(day)), dayFileText(day, 1, keys, counts));
    size += statSync(join(dir, dayFileName(day))).size;
  }
  const { token } = fileTokenStore(state).create('scale', { now: () => Date.now() }) as { token: string };
  const adminPort = await freePort();
  const server = await spawnServer(['--port', '0', '--admin-port', String(adminPort), '--snapshot', snapshotDir, '--state', state, '--quiet']);
  try {
    const pid = server.child.pid!;
    assert.is((await request(`http://127.0.0.1:${adminPort}`, '/admin/api/audit?limit=1', { headers: { authorization: `Bearer ${token}` } })).status, 200);
    const before = await quiet(pid);
    const path = `/admin/api/usage/history?from=${days[0]}&to=${today}&format=csv`;
    const answer = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet({ port: adminPort, host: '127.0.0.1', path, headers: { authorization: `Bearer ${token}` } }, resolve).on('error', reject),
    );
    assert.is(answer.statusCode, 200);
    // Nothing read: the server makes pieces until the socket and its own bound (send.ts) are full, then waits.
    const read = (await quiet(pid)) - before;
    assert.ok(read < size / 2, `for a client reading nothing the server read ${read} bytes of ${size} bytes of days`);
    let text = '';
    answer.setEncoding('utf8');
    for await (const piece of answer) text += piece;
    let expected = CSV_HEADER;
    for (const day of days) for (const key of keys) expected += `${day},data,${key.split(' ')[0]},${counts.get(key)}\r\n`;
    // ok, not is: on a mismatch, uvu's diff of two long strings would run for minutes.
    assert.ok(text === expected, `the export is whole: ${text.length} characters of ${expected.length}`);
  } finally {
    await stopProcess(server.child);
  }
});

scale.run();
