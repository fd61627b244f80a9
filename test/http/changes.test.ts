/**
 * GET /api/v2/changes over a real sequence of builds: the small fixture rebuilt after random
 * edits of its data (names, evaluations, prices, models added and removed: over 1,000 of them),
 * each build served by the running server. What the route says changed is held, build by build
 * and list by list, to what the server's own list routes served before and after: applying each
 * build's changes to the previous lists must give the next lists exactly, and nothing else may
 * have moved. Then `since`, pages, the 404, the free 304 and the tier's own fields. And each
 * model's history: a point exactly where its item in a Pro list changed, the item as served then.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PROMPT_TYPES } from '../../src/shared/routes.ts';
import { get } from '../helpers/http.ts';
import { startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { seededRandom } from '../helpers/random.ts';

type Item = Record<string, any>;
type Lists = Map<string, Item[]>;

const t = await startTestServer();

/** Every page of a list route, as a key reads it. */
async function allPages(path: string, key: string): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const body = (await get(t.url, `${path}${path.includes('?') ? '&' : '?'}page=${page}`, key)).json();
    items.push(...body.data);
    if (!body.pagination.has_more) return items;
  }
}

/** The lists the server serves now: the Free list, and the Pro list of each prompt type. */
async function servedLists(): Promise<Lists> {
  const lists: Lists = new Map([['free', await allPages('/api/v2/language/models/free', t.keys.free)]]);
  for (const type of PROMPT_TYPES) lists.set(`pro ${type}`, await allPages(`/api/v2/language/models?prompt_type=${type}`, t.keys.pro));
  return lists;
}

/** Every page of the changes a key reads (`query` without page). */
async function allChanges(key: string, query = ''): Promise<Item[]> {
  return allPages(`/api/v2/changes${query ? `?${query}` : ''}`, key);
}

async function servedBuild(): Promise<string> {
  return (await get(t.url, '/readyz')).json().snapshot;
}


const next = seededRandom(50);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 16).toString(16)).join('');
const readJson = (file: string) => JSON.parse(readFileSync(join(t.dataDir, file), 'utf8'));
const writeJson = (file: string, value: unknown) => writeFileSync(join(t.dataDir, file), JSON.stringify(value, null, 2));

/** `count` random edits of the data folder: renames, evaluations, prices, a model added or one added before removed. */
function editData(count: number): number {
  const models = readJson('language-models.json') as Item[];
  const endpoints = readJson('provider-endpoints.json') as Item[];
  let edits = 0;
  for (; edits < count; edits++) {
    const kind = next();
    if (kind < 0.3) pick(models).name = `Model ${hex(6)}`;
    else if (kind < 0.65) {
      const model = pick(models);
      const numeric = Object.keys(model.evaluations).filter((k) => typeof model.evaluations[k] === 'number');
      const name = pick(numeric);
      model.evaluations[name] = Math.round(model.evaluations[name] * (0.8 + next() * 0.2) * 1e4) / 1e4;
    } else if (kind < 0.93) {
      const endpoint = pick(endpoints);
      if (typeof endpoint.price_1m_input_tokens === 'number') endpoint.price_1m_input_tokens = Math.round((endpoint.price_1m_input_tokens + next()) * 100) / 100;
    } else if (kind < 0.97) {
      const id = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
      models.push({ ...structuredClone(models[0]), id, slug: `extra-${id.slice(0, 8)}`, name: `Extra ${id.slice(0, 8)}` });
    } else {
      const extra = models.findIndex((m) => m.slug.startsWith('extra-'));
      if (extra >= 0) models.splice(extra, 1);
    }
  }
  writeJson('language-models.json', models);
  writeJson('provider-endpoints.json', endpoints);
  return edits;
}

/** Read a dotted path of an item (undefined where it has none). */
const at = (item: Item, field: string) => field.split('.').reduce<any>((value, key) => value?.[key], item);
/** Set a dotted path of an item. */
function setAt(item: Item, field: string, value: unknown): void {
  const keys = field.split('.');
  let into = item;
  for (const key of keys.slice(0, -1)) into = into[key] ??= {};
  into[keys[keys.length - 1]!] = structuredClone(value);
}

/** Apply one build's changes to the lists before it; they must give the lists after it, and say only what moved. */
function assertChangesReplay(before: Item[], change: Item, after: Item[], label: string): void {
  const ids = (items: Item[]) => items.map((m) => m.id);
  const beforeIds = new Set(ids(before));
  const afterIds = new Set(ids(after));
  assert.equal(change.added.map((m: Item) => m.id).sort(), ids(after).filter((id) => !beforeIds.has(id)).sort(), `${label}: added`);
  assert.equal(change.removed.map((m: Item) => m.id).sort(), ids(before).filter((id) => !afterIds.has(id)).sort(), `${label}: removed`);
  const byId = new Map(before.map((m) => [m.id, structuredClone(m)]));
  const changedIds = new Set<string>();
  for (const model of change.changed) {
    changedIds.add(model.id);
    const item = byId.get(model.id)!;
    assert.ok(item, `${label}: ${model.slug} changed but was not listed before`);
    assert.ok(model.changes.length > 0, `${label}: ${model.slug} listed with no change`);
    for (const { field, from, to } of model.changes) {
      assert.equal(at(item, field) ?? null, from, `${label}: ${model.slug} ${field} was ${JSON.stringify(from)}`);
      assert.not.equal(from, to, `${label}: ${model.slug} ${field} did not change`);
      setAt(item, field, to);
    }
  }
  for (const item of after) {
    if (!beforeIds.has(item.id)) continue;
    assert.equal(byId.get(item.id), item, `${label}: ${item.slug} is as served after the changes`);
    if (!changedIds.has(item.id)) assert.equal(before.find((m) => m.id === item.id), item, `${label}: ${item.slug} unchanged`);
  }
}

const changes = suite('GET /api/v2/changes over a sequence of builds');

const builds: string[] = [await servedBuild()];
const lists: Lists[] = [await servedLists()];
let edits = 0;

changes.after(() => t.close());

changes.before(async () => {
  for (let n = 0; n < 11; n++) {
    edits += editData(95);
    const summary = await t.rebuild(false);
    assert.ok(summary.built, `build ${n + 1} was built`);
    await until(async () => (await servedBuild()) === summary.buildId, `the server serves ${summary.buildId}`);
    builds.push(summary.buildId);
    lists.push(await servedLists());
  }
});

changes('should list every build, oldest first, each with exactly what changed in the lists the key reads', async () => {
  assert.ok(edits >= 1000, `${edits} random edits`);
  const shapes: [string, string, string][] = [
    ['free', 'free', ''],
    ...PROMPT_TYPES.map((type): [string, string, string] => [`pro ${type}`, 'pro', `prompt_type=${type}`]),
    [`pro ${PROMPT_TYPES[1]}`, 'commercial', `prompt_type=${PROMPT_TYPES[1]}`],
  ];
  let fieldChanges = 0;
  for (const [shape, tier, query] of shapes) {
    const served = await allChanges(t.keys[tier]!, query);
    assert.equal(served.map((c) => c.build_id), builds, `${shape} (${tier}): every build, oldest first`);
    assert.is(served[0].previous_build_id, null, 'the history starts at the first build');
    assert.equal(served[0].added.map((m: Item) => m.id), lists[0]!.get(shape)!.map((m) => m.id), 'where it starts, every model is added');
    for (let k = 1; k < builds.length; k++) {
      assert.is(served[k].previous_build_id, builds[k - 1]);
      assertChangesReplay(lists[k - 1]!.get(shape)!, served[k], lists[k]!.get(shape)!, `${shape} (${tier}) build ${k}`);
      fieldChanges += served[k].changed.reduce((n: number, m: Item) => n + m.changes.length, 0);
    }
  }
  assert.ok(fieldChanges >= 1000, `${fieldChanges} field changes served`);
});

changes('should answer the builds after `since`, nothing after the current one, and 404 naming the oldest for one it does not hold', async () => {
  const after = await allChanges(t.keys.pro, `since=${builds[4]}`);
  assert.equal(after.map((c) => c.build_id), builds.slice(5));
  const none = (await get(t.url, `/api/v2/changes?since=${builds.at(-1)}`, t.keys.free)).json();
  assert.equal(none.data, []);
  const unknown = await get(t.url, '/api/v2/changes?since=20200101T000000Z-0badc0de', t.keys.free);
  assert.is(unknown.status, 404);
  assert.equal(unknown.json(), { error: 'Build not found: 20200101T000000Z-0badc0de', details: { since: '20200101T000000Z-0badc0de', oldest_build_id: builds[0] } });
});

changes('should split the builds into pages of ten, with an empty page past the last', async () => {
  const first = (await get(t.url, '/api/v2/changes', t.keys.pro)).json();
  assert.equal(first.pagination, { page: 1, page_size: 10, total_pages: 2, has_more: true });
  assert.is(first.data.length, 10);
  const second = (await get(t.url, '/api/v2/changes?page=2', t.keys.pro)).json();
  assert.equal(second.pagination, { page: 2, page_size: 10, total_pages: 2, has_more: false });
  assert.equal(second.data.map((c: Item) => c.build_id), builds.slice(10));
  const past = (await get(t.url, '/api/v2/changes?page=3', t.keys.pro)).json();
  assert.equal([past.pagination, past.data], [{ page: 3, page_size: 10, total_pages: 2, has_more: false }, []]);
});

changes('should answer a poll with If-None-Match with a 304 that is not counted, until the next build', async () => {
  const path = `/api/v2/changes?since=${builds[8]}`;
  const first = await get(t.url, path, t.keys.pro, { 'accept-encoding': 'gzip' });
  assert.is(first.status, 200);
  const remaining = Number(first.headers['x-ratelimit-remaining']);
  const again = await get(t.url, path, t.keys.pro, { 'accept-encoding': 'gzip', 'if-none-match': String(first.headers.etag) });
  assert.is(again.status, 304);
  const after = await get(t.url, path, t.keys.pro, { 'accept-encoding': 'gzip' });
  assert.is(Number(after.headers['x-ratelimit-remaining']), remaining - 1, 'the 304 was not counted');
});

changes('should name only fields of the Free list to a Free key', async () => {
  const proOnly = Object.keys(lists[0]!.get(`pro ${PROMPT_TYPES[0]}`)![0]!).filter((k) => !(k in lists[0]!.get('free')![0]!));
  assert.ok(proOnly.length > 0);
  const fields = (await allChanges(t.keys.free)).flatMap((c) => c.changed.flatMap((m: Item) => m.changes.map((f: Item) => f.field.split('.')[0])));
  assert.ok(fields.length > 0);
  for (const field of fields) assert.not.ok(proOnly.includes(field), `a Free key was told of ${field}`);
});

changes('should give each model a point at every build that changed it in the Pro list, the model as that build served it', async () => {
  const slugs = new Set(lists.flatMap((l) => l.get(`pro ${PROMPT_TYPES[0]}`)!.map((m) => m.slug)));
  let points = 0;
  for (const type of [PROMPT_TYPES[0], PROMPT_TYPES[3]]) {
    const shape = `pro ${type}`;
    const current = new Set(lists.at(-1)!.get(shape)!.map((m) => m.slug));
    for (const slug of slugs) {
      // Where it moved, by the lists the server served: listed first, or listed differently from the build before.
      const expected = builds.flatMap((buildId, k) => {
        const now = lists[k]!.get(shape)!.find((m) => m.slug === slug);
        const was = k > 0 ? lists[k - 1]!.get(shape)!.find((m) => m.id === now?.id) : undefined;
        return now && JSON.stringify(now) !== JSON.stringify(was) ? [{ build_id: buildId, model: now }] : [];
      });
      const reply = await get(t.url, `/api/v2/language/models/${slug}/history?prompt_type=${type}`, t.keys.commercial);
      if (!current.has(slug) && expected.length === 0) continue;
      assert.is(reply.status, 200, `${slug} ${type}`);
      const body = reply.json();
      assert.is(body.tier, 'commercial');
      assert.equal(body.data.points.map((p: Item) => ({ build_id: p.build_id, model: p.model })), expected, `${slug} ${type}`);
      points += expected.length;
    }
  }
  assert.ok(points > 2 * slugs.size, `${points} points`);
  const slug = lists[0]!.get('free')![0]!.slug;
  assert.is((await get(t.url, `/api/v2/language/models/${slug}/history`, t.keys.free)).status, 403, 'Pro and Commercial only');
  assert.equal((await get(t.url, '/api/v2/language/models/no-such-model/history', t.keys.pro)).json().error, 'Model not found: no-such-model');
});

changes.run();
