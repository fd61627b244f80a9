import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { produceBodies, type EmptyPage, type ProducedBody } from '../../../../build/shape/bodies.ts';
import { createBuildContext } from '../../../../build/shape/build-context.ts';
import { keyParamCombinations } from '../../../../build/shape/key-params.ts';
import { emptyPageTemplate, paginate } from '../../../../build/shape/pages.ts';
import type { BuildContext } from '../../../../build/shape/route-builder.ts';
import { builtRouteIds, routeBuilders } from '../../../../build/shape/route-builders.ts';
import { PROMPT_TYPES, routeById } from '../../../../src/shared/routes.ts';
import { TINY_STATS, tinyDataset } from '../../../helpers/tiny-dataset.ts';

const pages = suite('paginate');

pages('should split items into pages of page_size, the last one partial', () => {
  // 5 items, 2 a page: ceil(5/2) = 3 pages of 2, 2 and 1
  assert.equal(paginate([1, 2, 3, 4, 5], 2), [
    { pagination: { page: 1, page_size: 2, total_pages: 3, has_more: true }, items: [1, 2] },
    { pagination: { page: 2, page_size: 2, total_pages: 3, has_more: true }, items: [3, 4] },
    { pagination: { page: 3, page_size: 2, total_pages: 3, has_more: false }, items: [5] },
  ]);
});

pages('should make no partial page when the items fill the pages exactly', () => {
  // 4 items, 2 a page: 2 full pages
  const result = paginate(['a', 'b', 'c', 'd'], 2);
  assert.is(result.length, 2);
  assert.equal(result[1], { pagination: { page: 2, page_size: 2, total_pages: 2, has_more: false }, items: ['c', 'd'] });
});

pages('should make one page when the items fit', () => {
  assert.equal(paginate([1, 2, 3], 200), [{ pagination: { page: 1, page_size: 200, total_pages: 1, has_more: false }, items: [1, 2, 3] }]);
});

pages('should make no pages for no items', () => {
  assert.equal(paginate([], 200), []);
});

pages.run();

const template = suite('emptyPageTemplate');

template('should give the envelope of an empty page once the page number is put between before and after', () => {
  const { before, after } = emptyPageTemplate({ tier: 'pro', intelligence_index_version: 4.3 }, 200, 3);
  const body = `${before}7${after}`;
  const expected = { tier: 'pro', intelligence_index_version: 4.3, pagination: { page: 7, page_size: 200, total_pages: 3, has_more: false }, data: [] };
  assert.equal(JSON.parse(body), expected);
  // the same bytes the build would write for that body, key order included
  assert.is(body, JSON.stringify(expected));
});

template('should work for any page number and for a list without pages', () => {
  const { before, after } = emptyPageTemplate({ tier: 'free' }, 50, 0);
  assert.equal(JSON.parse(`${before}10000${after}`), { tier: 'free', pagination: { page: 10000, page_size: 50, total_pages: 0, has_more: false }, data: [] });
  assert.equal(JSON.parse(`${before}1${after}`).pagination.page, 1);
});

template.run();

const combos = suite('keyParamCombinations');

combos('should enumerate every combination of the enum key parameters', () => {
  const all = keyParamCombinations(routeById('language.model.performance'));
  // window 3 x interval 3 x prompt_type 6 = 54
  assert.is(all.length, 54);
  assert.is(new Set(all.map((c) => JSON.stringify(c))).size, 54);
  assert.equal(all[0], { window: '7d', interval: 'daily', prompt_type: 'medium' });
  assert.equal(all[53], { window: '90d', interval: 'monthly', prompt_type: 'medium_parallel' });
});

combos('should enumerate false and true for a boolean key parameter', () => {
  assert.equal(keyParamCombinations(routeById('media.text-to-image')), [{ include_categories: false }, { include_categories: true }]);
});

combos('should take numeric enum values as they are, and only the allowed combinations', () => {
  const all = keyParamCombinations(routeById('legacy.llms.models'));
  // prompt_length 3 x parallel_queries 2 = 6, of which 4 were measured (10 parallel only with medium)
  assert.equal(all, [
    { prompt_length: 'medium', parallel_queries: 1 },
    { prompt_length: 'medium', parallel_queries: 10 },
    { prompt_length: 'long', parallel_queries: 1 },
    { prompt_length: '100k', parallel_queries: 1 },
  ]);
});

combos('should leave page out', () => {
  assert.equal(keyParamCombinations(routeById('language.models.free')), [{}]);
  assert.equal(
    keyParamCombinations(routeById('language.models')),
    PROMPT_TYPES.map((prompt_type) => ({ prompt_type })),
  );
});

combos('should give one empty combination for a route without key parameters', () => {
  assert.equal(keyParamCombinations(routeById('media.text-to-speech.free')), [{}]);
});

combos.run();

const producing = suite('produceBodies');

function tinyContext(pageSize = 1): BuildContext {
  return createBuildContext(tinyDataset(), { ...TINY_STATS, pageSize });
}

/** The builders of the language model routes only, so counts below stay readable. */
const MODEL_ROUTES = ['language.models.free', 'language.models', 'language.model'];
const modelBuilders = Object.fromEntries(Object.entries(routeBuilders()).filter(([id]) => MODEL_ROUTES.includes(id)));

function modelEntries(ctx: BuildContext) {
  return [...produceBodies(ctx, modelBuilders)] as (ProducedBody | EmptyPage)[];
}

function isTemplate(entry: ProducedBody | EmptyPage): entry is EmptyPage {
  return 'before' in entry;
}

producing('should yield one body per tier, key parameter values and page or slug, and one empty-page template per list combination', () => {
  const entries = modelEntries(tinyContext(1));
  // 2 models, 1 a page -> 2 pages per list
  // language.models.free: 3 tiers x (2 pages + 1 template) = 9 (6 bodies)
  // language.models:      2 tiers x 6 prompt types x (2 pages + 1 template) = 36 (24 bodies)
  // language.model:       2 tiers x 6 prompt types x 2 slugs = 24 bodies
  assert.is(entries.length, 69);
  assert.is(entries.filter((e) => !isTemplate(e)).length, 54);
  assert.is(entries.filter(isTemplate).length, 3 + 12);
  assert.is(new Set(entries.map((e) => e.key)).size, 69);
  const byRoute = (id: string) => entries.filter((e) => e.route.id === id).length;
  assert.equal([byRoute('language.models.free'), byRoute('language.models'), byRoute('language.model')], [9, 36, 24]);
});

producing('should come in route table order', () => {
  const ids = modelEntries(tinyContext(1)).map((e) => e.route.id);
  assert.equal([...new Set(ids)], ['language.models.free', 'language.models', 'language.model']);
});

producing('should put the envelope, the pagination and the page of items in each list body', () => {
  const entries = new Map(modelEntries(tinyContext(1)).map((e) => [e.key, e]));
  const first = entries.get('language.models.free pro page=1') as ProducedBody;
  const body = first.body as Record<string, unknown>;
  assert.equal(Object.keys(body), ['tier', 'intelligence_index_version', 'pagination', 'data']);
  assert.is(body.tier, 'pro');
  assert.is(body.intelligence_index_version, 4.3);
  assert.equal(body.pagination, { page: 1, page_size: 1, total_pages: 2, has_more: true });
  // model-1 leads (index 70.2); model-2 (null) is on page 2
  assert.equal(
    (body.data as { id: string }[]).map((m) => m.id),
    ['model-1'],
  );
  const second = (entries.get('language.models commercial prompt_type=100k page=2') as ProducedBody).body as Record<string, unknown>;
  assert.equal(second.pagination, { page: 2, page_size: 1, total_pages: 2, has_more: false });
  assert.equal(
    (second.data as { id: string }[]).map((m) => m.id),
    ['model-2'],
  );
});

producing('should name the empty-page template with page=* and fill it with the real total_pages', () => {
  const entries = new Map(modelEntries(tinyContext(1)).map((e) => [e.key, e]));
  const empty = entries.get('language.models pro prompt_type=long page=*') as EmptyPage;
  assert.ok(isTemplate(empty));
  assert.equal(JSON.parse(`${empty.before}3${empty.after}`), {
    tier: 'pro',
    intelligence_index_version: 4.3,
    pagination: { page: 3, page_size: 1, total_pages: 2, has_more: false },
    data: [],
  });
});

producing('should answer a model detail per slug, with providers for Commercial keys only', () => {
  const entries = new Map(modelEntries(tinyContext(1)).map((e) => [e.key, e]));
  const commercial = (entries.get('language.model commercial prompt_type=medium slug=model-one') as ProducedBody).body as Record<string, any>;
  const pro = (entries.get('language.model pro prompt_type=medium slug=model-one') as ProducedBody).body as Record<string, any>;
  assert.equal(Object.keys(commercial), ['tier', 'intelligence_index_version', 'data']);
  assert.is(commercial.data.id, 'model-1');
  // the medium figures: only Beta measured, 300 tok/s (see language.test.ts)
  assert.is(commercial.data.performance.median_output_tokens_per_second, 300);
  assert.equal(
    commercial.data.providers.map((p: { slug: string }) => p.slug),
    ['alpha-cloud', 'beta-cloud'],
  );
  assert.not.ok('providers' in pro.data);
  assert.ok(entries.has('language.model pro prompt_type=long slug=model-two'));
});

producing('should yield only the empty-page template of a list without items', () => {
  const ctx = { ...tinyContext(200), models: [] };
  const free = modelEntries(ctx).filter((e) => e.route.id === 'language.models.free');
  assert.equal(
    free.map((e) => e.key),
    ['language.models.free free page=*', 'language.models.free pro page=*', 'language.models.free commercial page=*'],
  );
  const empty = free[0] as EmptyPage;
  assert.equal(JSON.parse(`${empty.before}1${empty.after}`).pagination, { page: 1, page_size: 200, total_pages: 0, has_more: false });
});

producing('should yield one body per tier and key parameter values of a route without pages or slugs', () => {
  const entries = [
    ...produceBodies(tinyContext(), {
      'media.text-to-image': { data: (_ctx, tier, params) => ({ tier, categories: params.include_categories }) },
    }),
  ] as ProducedBody[];
  assert.equal(
    entries.map((e) => [e.key, e.body]),
    [
      ['media.text-to-image pro include_categories=false', { tier: 'pro', data: { tier: 'pro', categories: false } }],
      ['media.text-to-image pro include_categories=true', { tier: 'pro', data: { tier: 'pro', categories: true } }],
      ['media.text-to-image commercial include_categories=false', { tier: 'commercial', data: { tier: 'commercial', categories: false } }],
      ['media.text-to-image commercial include_categories=true', { tier: 'commercial', data: { tier: 'commercial', categories: true } }],
    ],
  );
});

producing.run();

const built = suite('builtRouteIds');

built('should list the routes the build answers, in route table order, leaving out arenas without data', () => {
  assert.equal(builtRouteIds(tinyContext()), ['language.models.free', 'language.models', 'language.model', 'language.model.history', 'language.model.performance', 'language.providers', 'language.provider', 'language.provider.performance', 'language.provider.measurements', 'legacy.llms.models', 'critpt.problems', 'changes', 'index', 'index.api', 'openapi']);
});

built('should follow the builders given, in route table order', () => {
  assert.equal(builtRouteIds(tinyContext(), { 'critpt.evaluate': {}, 'language.model': {} }), ['language.model', 'critpt.evaluate']);
  assert.equal(builtRouteIds(tinyContext(), {}), []);
  assert.equal(builtRouteIds(tinyContext(), { 'language.model': { available: () => false } }), []);
});

built.run();

const open = suite('the bodies served without a key');

/** Every id, slug and name the tiny dataset gives, all of which only keyed answers may show. */
function keyedNames(): string[] {
  const d = tinyDataset();
  return [...d.creators, ...d.providers, ...d.models].flatMap((r) => [r.id, r.slug, r.name]);
}

/** The tiny dataset with other names, prices and problems, and another as-of. */
function otherContext(): BuildContext {
  const d = tinyDataset();
  const renamed = <T extends { name: string }>(r: T) => ({ ...r, name: `${r.name} Renamed` });
  const dataset = { ...d, models: d.models.map(renamed), providers: d.providers.map(renamed), endpoints: d.endpoints.map((e) => ({ ...e, price_1m_input_tokens: 9 })), critptProblems: ['Challenge_1_main'] };
  return createBuildContext(dataset, { asOf: TINY_STATS.asOf + 86_400_000, statsDays: 3, pageSize: 200 });
}

open('should make the same OpenAPI document whatever data is served, naming none of it', () => {
  const openapi = routeBuilders().openapi.body!;
  const text = JSON.stringify(openapi(tinyContext(200), {}));
  assert.is(JSON.stringify(openapi(otherContext(), {})), text);
  for (const name of keyedNames()) assert.not.ok(text.includes(name), name);
});

open('should name no model, provider or creator of the data on the front door, as JSON or HTML', () => {
  const door = routeBuilders().index.body!;
  const ctx = { ...tinyContext(200), buildId: '20250630T000000Z-00000000' };
  for (const format of ['json', 'html']) {
    const body = door(ctx, { format });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    for (const name of keyedNames()) assert.not.ok(text.includes(name), `${format}: ${name}`);
    assert.ok(text.includes('$API/language/models/$MODEL') && text.includes('$API/language/providers/$PROVIDER/measurements'), format);
  }
});

open.run();
