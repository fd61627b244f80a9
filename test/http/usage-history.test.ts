/**
 * The usage history (issue 51, item 3) on a real server, on the state folder and on Redis, with an
 * injected clock: 200s counted on the UTC day they were served (across midnight), 304s, 401s and
 * 429s not; the admin API's JSON (valid against its OpenAPI) and CSV agree, and with `keys usage
 * --history`; a graceful stop and a restart keep the days; days past the retention are dropped
 * (the state folder: at the fold; Redis: the hash's expiry) and a range past it is a 400.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { RedisClient } from '../../src/redis/client.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { createAjv } from '../../src/shared/ajv.ts';
import { addDays, dayStart, DAY_MS, utcDay } from '../../src/quota/usage-day.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis } from '../helpers/redis.ts';
import { buildFixture, TestClock } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const PRO_LIST = '/api/v2/language/models';
const FREE_LIST = '/api/v2/language/models/free';
const root = mkdtempSync(join(tmpdir(), 'usage-history-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const test = suite('usage history');
let snapshotDir: string;
const logged: string[] = [];

// Today's real date: Redis expires a day's hash by its own clock, so the injected one stays near it.
const DAY1 = utcDay(Date.now());
const DAY2 = addDays(DAY1, 1);
const RETENTION = 3;

function start(store: ServerOptions['store'], stateDir: string, clock: TestClock): Promise<RunningServer> {
  const limits = { ...DEFAULT_OPTIONS.limits, free: 2 };
  return startServer(
    { ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir, store, limits, usageRetentionDays: RETENTION, quiet: true },
    { clock, log: (line) => logged.push(line), logError: (line) => logged.push(line), redisProbeMs: 3_600_000 },
  );
}

async function keys(where: string[], ...args: string[]): Promise<string> {
  const done = await keysCommand(...args, ...where);
  assert.is(done.status, 0, done.stderr);
  return done.stdout;
}

const admin = (server: RunningServer, token: string, path: string): Promise<Reply> =>
  request(server.admin!.url, path, { headers: { authorization: `Bearer ${token}` } });

/** CSV text's rows as the JSON rows read. */
function csvRows(text: string): { day: string; kind: string; scope: string; served: number }[] {
  const [header, ...lines] = text.trimEnd().split('\r\n');
  assert.is(header, 'day,kind,scope,served');
  return lines.map((line) => {
    const [day, kind, scope, served] = line.split(',');
    return { day, kind, scope, served: Number(served) };
  });
}

test.before(async () => {
  ({ snapshotDir } = await buildFixture(root));
});

test.after(() => {
  for (const line of logged) assert.not.match(line, /bdk_|bdat_/, `a log line holds a key or token: ${line}`);
});

async function scenario(store: ServerOptions['store'], stateDir: string, where: string[]): Promise<void> {
  const clock = new TestClock(dayStart(DAY2) - 60_000);
  const { token } = JSON.parse(await keys(where, 'admin-token', 'create', '--name', 'billing', '--json'));
  const pro = JSON.parse(await keys(where, 'create', '--tier', 'pro', '--org', 'acme', '--user', 'pat', '--json')).key;
  const free = JSON.parse(await keys(where, 'create', '--tier', 'free', '--org', 'acme', '--user', 'fran', '--json')).key;
  const other = JSON.parse(await keys(where, 'create', '--tier', 'pro', '--org', 'zeta', '--user', 'zed', '--json')).key;
  let server = await start(store, stateDir, clock);
  try {
    // Day 1: three 200s, a 304 (free), a 401 (no such key); the free key's third is a 429.
    const realBeforeDay1 = Date.now();
    const first = await get(server.url, PRO_LIST, pro);
    assert.is(first.status, 200);
    for (let i = 0; i < 2; i++) assert.is((await get(server.url, PRO_LIST, pro)).status, 200);
    assert.is((await get(server.url, PRO_LIST, pro, { 'if-none-match': String(first.headers.etag) })).status, 304);
    assert.is((await get(server.url, PRO_LIST, `${pro.slice(0, -4)}AAAA`)).status, 401);
    for (let i = 0; i < 2; i++) assert.is((await get(server.url, FREE_LIST, free)).status, 200);
    assert.is((await get(server.url, FREE_LIST, free)).status, 429);
    // Past midnight UTC: day 2.
    clock.advance(2 * 60_000);
    for (let i = 0; i < 2; i++) assert.is((await get(server.url, PRO_LIST, pro)).status, 200);
    assert.is((await get(server.url, PRO_LIST, other)).status, 200);

    const expected = [
      { day: DAY1, kind: 'data', scope: 'user:acme/fran', served: 2 },
      { day: DAY1, kind: 'data', scope: 'user:acme/pat', served: 3 },
      { day: DAY2, kind: 'data', scope: 'user:acme/pat', served: 2 },
      { day: DAY2, kind: 'data', scope: 'user:zeta/zed', served: 1 },
    ];
    const json = await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}`);
    assert.is(json.status, 200, json.text);
    assert.equal(json.json(), { from: DAY1, to: DAY2, data: expected });
    // Valid against the admin OpenAPI's schema.
    const document = (await admin(server, token, '/admin/openapi.json')).json();
    const ajv = createAjv();
    for (const [name, schema] of Object.entries(document.components.schemas as Record<string, object>)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    const described = document.paths['/admin/api/usage/history'].get.responses['200'].content;
    assert.ok(described['text/csv'], 'the CSV answer is described');
    const validate = ajv.getSchema(described['application/json'].schema.$ref)!;
    assert.ok(validate(json.json()), JSON.stringify(validate.errors));
    // The default range is the last 30 days ending today.
    const defaults = (await admin(server, token, '/admin/api/usage/history')).json();
    assert.is(defaults.to, DAY2);
    assert.is(defaults.data.length, 4);

    const csv = await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}&format=csv`);
    assert.is(csv.status, 200);
    assert.is(csv.headers['content-type'], 'text/csv; charset=utf-8');
    assert.is(csv.headers['content-disposition'], `attachment; filename="usage-${DAY1}-${DAY2}.csv"`);
    assert.equal(csvRows(csv.text), expected, 'the CSV and the JSON agree');

    const acme = (await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}&org=acme`)).json();
    assert.equal(acme.data, expected.slice(0, 3));
    const critpt = (await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}&kind=critpt`)).json();
    assert.equal(critpt.data, []);
    // One scope, as a key's page asks: read by its own lines or fields, the same rows.
    const pat = (await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}&scope=user:acme/pat`)).json();
    assert.equal(pat.data, expected.filter((row) => row.scope === 'user:acme/pat'));
    const none = (await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}&scope=user:acme/nobody`)).json();
    assert.equal(none.data, []);

    // Past the retention (3 days ending today, day 2: from day 0), a bad day, a range backwards: 400, JSON.
    const old = await admin(server, token, `/admin/api/usage/history?from=${addDays(DAY2, -RETENTION)}&to=${DAY2}`);
    assert.is(old.status, 400);
    assert.is(old.json().error, 'Range over the retention');
    assert.is((await admin(server, token, '/admin/api/usage/history?from=2026-02-30')).status, 400);
    assert.is((await admin(server, token, `/admin/api/usage/history?from=${DAY2}&to=${DAY1}`)).status, 400);
    assert.is((await request(server.admin!.url, '/admin/api/usage/history')).status, 401);

    // The keys command beside the running server (the state folder's journal, or Redis).
    await until(async () => (await keys(where, 'usage', '--history', '--from', DAY1, '--to', DAY2, '--json')).includes('zeta'), 'the served marks of a second reach the keys command');
    assert.equal(JSON.parse(await keys(where, 'usage', '--history', '--from', DAY1, '--to', DAY2, '--json')), expected);
    assert.match(await keys(where, 'usage', '--history', '--from', DAY1, '--to', DAY2, '--org', 'zeta'), new RegExp(`${DAY2} +data +user:zeta/zed +1`));

    // A graceful stop and a restart keep the days.
    await server.close();
    server = await start(store, stateDir, clock);
    assert.equal((await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}`)).json().data, expected);
    assert.equal((await admin(server, token, `/admin/api/usage/history?from=${DAY1}&to=${DAY2}&scope=user:acme/pat`)).json().data, expected.filter((row) => row.scope === 'user:acme/pat'), 'one scope from the day files, after a restart');
    assert.equal(JSON.parse(await keys(where, 'usage', '--history', '--from', DAY1, '--to', DAY2, '--json')), expected);

    // Retention: on Redis each day's hash expires at the start of the day the retention ends it,
    // by the servers' clock (set as a time to live from the last count, some seconds ago at most).
    if (store !== 'file') {
      const client = new RedisClient({ address: store });
      try {
        await client.started();
        const left = Number(await client.send(['PTTL', `bda:usage:${DAY1}`]));
        const lived = Date.now() - realBeforeDay1; // at least as long as since day 1's last count
        const end = dayStart(DAY1) + RETENTION * DAY_MS;
        const lastCountOnDay1 = dayStart(DAY2) - 60_000; // the clock stood there for all of day 1's counts
        const given = end - lastCountOnDay1;
        assert.ok(left <= given && left >= given - lived, `${left} ms to live, of ${given} given ${lived} ms ago at most`);
      } finally {
        client.close();
      }
      return;
    }
    // On the state folder, day 1's file goes at the first fold of the day it falls out (a running server's, once a day).
    assert.ok(existsSync(join(stateDir, 'usage', `${DAY1}.jsonl`)));
    clock.advance(2 * DAY_MS);
    await until(() => !existsSync(join(stateDir, 'usage', `${DAY1}.jsonl`)), 'the day past the retention is dropped');
    assert.ok(existsSync(join(stateDir, 'usage', `${DAY2}.jsonl`)));
    assert.equal(JSON.parse(await keys(where, 'usage', '--history', '--from', DAY1, '--to', DAY2, '--json')), expected.slice(2));
  } finally {
    await server.close();
  }
}

test('on the state folder', async () => {
  const stateDir = join(root, 'file');
  await scenario('file', stateDir, ['--state', stateDir]);
});

if (REDIS_INSTALLED) {
  test('on Redis', async () => {
    const redis = await startRedis();
    try {
      await scenario(redis.address, join(root, 'redis-state'), ['--store', redis.url]);
    } finally {
      await redis.close();
    }
  });
} else skipWithoutRedis(test, ['on Redis']);

test.run();
