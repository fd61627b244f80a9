import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get } from '../helpers/http.ts';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.ts';

const DAY = 86_400_000;
const providerSlugs = (JSON.parse(readFileSync(join(FIXTURES, 'sample-small/providers.json'), 'utf8')) as { slug: string }[]).map((p) => p.slug);

let t: TestServer;
let provider: string;
let modelSlug: string;

async function setup(): Promise<void> {
  if (t) return;
  t = await startTestServer({
    keys: {
      free: { tier: 'free', org: 'f' },
      pro: { tier: 'pro', org: 'p' },
      commercial: { tier: 'commercial', org: 'c', grants: providerSlugs },
      ungranted: { tier: 'commercial', org: 'u' },
    },
  });
  const providers = (await get(t.url, '/api/v2/language/providers', t.keys.commercial)).json().data;
  // The provider serving the most models gives the strongest checks.
  provider = providers.sort((a: { models: unknown[] }, b: { models: unknown[] }) => b.models.length - a.models.length)[0].slug;
  modelSlug = providers[0].models[0].slug;
}

function median(values: number[]): number | null {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return Math.round((v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2) * 1000) / 1000;
}

const ROUTES = () => [
  '/api/v2/language/providers',
  `/api/v2/language/providers/${provider}`,
  `/api/v2/language/providers/${provider}/performance`,
  `/api/v2/language/providers/${provider}/measurements`,
  `/api/v2/language/models/${modelSlug}/performance`,
];

const access = suite('Commercial routes: tiers and grants');
access.before(setup);

access('should answer Commercial keys and refuse Free and Pro keys naming the tier needed', async () => {
  for (const path of ROUTES()) {
    assert.is((await get(t.url, path, t.keys.commercial)).status, 200, path);
    for (const tier of ['free', 'pro']) {
      const reply = await get(t.url, path, t.keys[tier]);
      assert.is(reply.status, 403, `${tier} ${path}`);
      assert.is(reply.json().error, 'Commercial access required');
    }
  }
});

access('should answer 404 for an unknown slug on every slug route', async () => {
  for (const path of ['/api/v2/language/providers/nope', '/api/v2/language/providers/nope/performance', '/api/v2/language/providers/nope/measurements']) {
    const reply = await get(t.url, path, t.keys.commercial);
    assert.is(reply.status, 404, path);
    assert.is(reply.json().error, 'Provider not found: nope');
  }
  assert.is((await get(t.url, '/api/v2/language/models/nope/performance', t.keys.commercial)).json().error, 'Model not found: nope');
});

access('should refuse measurements without a grant for that provider, naming it', async () => {
  const reply = await get(t.url, `/api/v2/language/providers/${provider}/measurements`, t.keys.ungranted);
  assert.is(reply.status, 403);
  assert.match(reply.json().error, new RegExp(`no grant for provider ${provider}`));
  assert.is((await get(t.url, `/api/v2/language/providers/${provider}`, t.keys.ungranted)).status, 200, 'other routes need no grant');
});

access('should reject bad dates, windows and intervals with 400 naming the field', async () => {
  const base = `/api/v2/language/providers/${provider}`;
  for (const [path, field] of [
    [`${base}/measurements?start_date=2026-02-30`, 'start_date'],
    [`${base}/measurements?start_date=2026-1-5`, 'start_date'],
    [`${base}/performance?window=14d`, 'window'],
    [`${base}/performance?interval=hourly`, 'interval'],
  ]) {
    const reply = await get(t.url, path, t.keys.commercial);
    assert.is(reply.status, 400, path);
    assert.match(reply.json().error, new RegExp(`^Invalid ${field}`));
  }
});

access.run();

const series = suite('performance over time');
series.before(setup);

series('should give 13 weekly points for 90d (the default), starting on Mondays, in date order', async () => {
  const body = (await get(t.url, `/api/v2/language/models/${modelSlug}/performance`, t.keys.commercial)).json().data;
  assert.equal(Object.keys(body), ['id', 'slug', 'name', 'providers']);
  assert.ok(body.providers.length > 0);
  for (const p of body.providers) {
    assert.equal(Object.keys(p), ['id', 'name', 'slug', 'series']);
    assert.is(p.series.length, 13);
    const dates = p.series.map((point: { date: string }) => point.date);
    assert.equal(dates, [...dates].sort());
    for (const date of dates) assert.is(new Date(`${date}T00:00:00Z`).getUTCDay(), 1, date);
    assert.equal(Object.keys(p.series[0]), ['date', 'median_output_tokens_per_second', 'median_time_to_first_token_seconds', 'median_time_to_first_answer_token_seconds', 'median_end_to_end_response_time_seconds']);
  }
});

series('should derive the interval from the window and count points per window', async () => {
  const count = async (query: string) => (await get(t.url, `/api/v2/language/providers/${provider}/performance?${query}`, t.keys.commercial)).json().data.models[0].series;
  assert.is((await count('window=7d')).length, 7);
  assert.is((await count('window=30d')).length, 30);
  assert.is((await count('window=90d&interval=daily')).length, 90);
  const monthly = await count('window=90d&interval=monthly');
  assert.is(monthly.length, 3);
  for (const point of monthly) assert.match(point.date, /-01$/);
});

series('should give one series per provider on a model route and one per model on a provider route', async () => {
  const detail = (await get(t.url, `/api/v2/language/models/${modelSlug}`, t.keys.commercial)).json().data;
  const perf = (await get(t.url, `/api/v2/language/models/${modelSlug}/performance`, t.keys.commercial)).json().data;
  assert.equal(perf.providers.map((p: { slug: string }) => p.slug), detail.providers.map((p: { slug: string }) => p.slug));
  const one = (await get(t.url, `/api/v2/language/providers/${provider}`, t.keys.commercial)).json().data;
  const byModel = (await get(t.url, `/api/v2/language/providers/${provider}/performance`, t.keys.commercial)).json().data;
  assert.equal(byModel.models.map((m: { slug: string }) => m.slug), one.models.map((m: { slug: string }) => m.slug));
});

series.run();

const agreement = suite('every number agrees with every other');
agreement.before(setup);

agreement('should make a day\'s point in the series the median of that day\'s served records', async () => {
  const day = '2026-11-18';
  const records = (await get(t.url, `/api/v2/language/providers/${provider}/measurements?prompt_type=medium&start_date=${day}`, t.keys.commercial)).json().data.models;
  const points = (await get(t.url, `/api/v2/language/providers/${provider}/performance?window=7d&prompt_type=medium`, t.keys.commercial)).json().data.models;
  let compared = 0;
  for (const model of records) {
    const ofDay = model.measurements.filter((r: { date: string; success: boolean }) => r.date.startsWith(day) && r.success);
    const point = points.find((m: { id: string }) => m.id === model.id).series.find((p: { date: string }) => p.date === day);
    assert.is(point.median_output_tokens_per_second, median(ofDay.map((r: { output_tokens_per_second: number }) => r.output_tokens_per_second)), model.slug);
    assert.is(point.median_time_to_first_token_seconds, median(ofDay.map((r: { time_to_first_token_seconds: number }) => r.time_to_first_token_seconds)));
    assert.is(point.median_time_to_first_answer_token_seconds, median(ofDay.map((r: { time_to_first_answer_token: number }) => r.time_to_first_answer_token)));
    if (ofDay.length) compared++;
  }
  assert.ok(compared > 0);
});

agreement('should make a provider\'s median speed for a model the median of that endpoint\'s records over the statistics window', async () => {
  const asOf = Date.parse(t.running.snapshots.current.manifest.as_of);
  const windowStart = asOf - 14 * DAY;
  const records = (await get(t.url, `/api/v2/language/providers/${provider}/measurements`, t.keys.commercial)).json().data.models;
  const list = (await get(t.url, '/api/v2/language/providers', t.keys.commercial)).json().data.find((p: { slug: string }) => p.slug === provider);
  for (const model of list.models) {
    const served = records.find((m: { id: string }) => m.id === model.id).measurements;
    const inWindow = served.filter((r: { date: string; success: boolean }) => r.success && Date.parse(r.date) > windowStart && Date.parse(r.date) <= asOf);
    assert.is(model.performance.median_output_tokens_per_second, median(inWindow.map((r: { output_tokens_per_second: number }) => r.output_tokens_per_second)), model.slug);
  }
});

agreement('should make the model-level median the median across its providers', async () => {
  const models = (await get(t.url, '/api/v2/language/models', t.keys.commercial)).json().data;
  let compared = 0;
  for (const { slug } of models) {
    const detail = (await get(t.url, `/api/v2/language/models/${slug}`, t.keys.commercial)).json().data;
    const speeds = detail.providers.map((p: { performance: { median_output_tokens_per_second: number | null } }) => p.performance.median_output_tokens_per_second).filter((v: number | null) => v !== null);
    assert.is(detail.performance.median_output_tokens_per_second, median(speeds), slug);
    if (speeds.length > 1) compared++;
  }
  assert.ok(compared > 0, 'some model has several providers');
});

agreement.run();

const clamp = suite('measurements since start_date');
clamp.before(setup);

clamp('should default to, and clamp to, one month before the request', async () => {
  const path = `/api/v2/language/providers/${provider}/measurements`;
  const firstDate = (body: { data: { models: { measurements: { date: string }[] }[] } }) =>
    body.data.models.flatMap((m) => m.measurements.map((r) => r.date)).sort()[0];
  t.clock.t = Date.UTC(2026, 10, 21, 12); // one month before: 2026-10-21
  const byDefault = (await get(t.url, path, t.keys.commercial)).json();
  assert.ok(firstDate(byDefault) >= '2026-10-21' && firstDate(byDefault) < '2026-10-22', firstDate(byDefault));
  const early = (await get(t.url, `${path}?start_date=2026-01-01`, t.keys.commercial)).json();
  assert.equal(early, byDefault, 'an earlier start_date is clamped');
  const late = (await get(t.url, `${path}?start_date=2026-11-15`, t.keys.commercial)).json();
  assert.ok(firstDate(late) >= '2026-11-15');
  t.clock.advance(10 * DAY); // one month before: 2026-10-31
  assert.ok(firstDate((await get(t.url, path, t.keys.commercial)).json()) >= '2026-10-31');
});

clamp('should keep records in time order with stable ids and the original field names', async () => {
  const models = (await get(t.url, `/api/v2/language/providers/${provider}/measurements`, t.keys.commercial)).json().data.models;
  const again = (await get(t.url, `/api/v2/language/providers/${provider}/measurements`, t.keys.commercial, { 'accept-encoding': 'br' })).status;
  assert.is(again, 200);
  for (const model of models) {
    const dates = model.measurements.map((r: { date: string }) => r.date);
    assert.equal(dates, [...dates].sort());
    for (const r of model.measurements) {
      assert.equal(Object.keys(r), ['id', 'date', 'success', 'output_tokens_per_second', 'time_to_first_token_seconds', 'time_to_first_answer_token', 'end_to_end_response_time_seconds']);
      assert.match(r.id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  }
});

clamp.after(async () => t.close());
clamp.run();
