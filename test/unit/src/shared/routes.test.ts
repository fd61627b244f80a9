import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROUTES, TIERS, keyParamValues, lowestTier, routeById, entryName } from '../../../../src/shared/routes.ts';

const keys = suite('entryName');

keys('should name the route, the tier, the key parameters in route order and the slug', () => {
  const route = routeById('language.model.performance');
  // route order is window, interval, prompt_type whatever the order of the params object
  const params = { prompt_type: 'long', interval: 'daily', window: '30d' };
  assert.is(entryName(route, 'commercial', params, 'model-one'), 'language.model.performance commercial window=30d interval=daily prompt_type=long slug=model-one');
});

keys('should be stable: the same inputs give the same key, whatever the params order', () => {
  const route = routeById('language.models');
  assert.is(entryName(route, 'pro', { prompt_type: '100k', page: 2 }), entryName(route, 'pro', { page: 2, prompt_type: '100k' }));
  assert.is(entryName(route, 'pro', { prompt_type: '100k', page: 2 }), 'language.models pro prompt_type=100k page=2');
});

keys('should ignore parameters that do not select a body', () => {
  const route = routeById('language.provider.measurements');
  assert.is(entryName(route, 'commercial', { prompt_type: 'medium', start_date: '2025-06-01' }, 'acme'), 'language.provider.measurements commercial prompt_type=medium slug=acme');
});

keys('should tell tiers, values and slugs apart', () => {
  const route = routeById('language.model');
  const base = entryName(route, 'pro', { prompt_type: 'long' }, 'a');
  assert.is.not(base, entryName(route, 'commercial', { prompt_type: 'long' }, 'a'));
  assert.is.not(base, entryName(route, 'pro', { prompt_type: 'medium' }, 'a'));
  assert.is.not(base, entryName(route, 'pro', { prompt_type: 'long' }, 'b'));
});

keys('should write booleans and numbers as text, and a route without key parameters as id and tier', () => {
  assert.is(entryName(routeById('media.text-to-image'), 'pro', { include_categories: true }), 'media.text-to-image pro include_categories=true');
  assert.is(entryName(routeById('legacy.llms.models'), 'free', { prompt_length: 'medium', parallel_queries: 10 }), 'legacy.llms.models free prompt_length=medium parallel_queries=10');
  assert.is(entryName(routeById('media.text-to-speech.free'), 'free', {}), 'media.text-to-speech.free free');
});

keys.run();

const table = suite('ROUTES');

table('should give every route a unique id', () => {
  assert.is(new Set(ROUTES.map((r) => r.id)).size, ROUTES.length);
});

table('should give every route a unique method and path', () => {
  assert.is(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size, ROUTES.length);
});

table('should let /free routes admit every tier', () => {
  const free = ROUTES.filter((r) => r.path.endsWith('/free'));
  assert.ok(free.length > 0);
  for (const route of free) assert.equal(route.tiers, TIERS, route.id);
});

table('should say what the slug names on every route with {slug}, and only there', () => {
  for (const route of ROUTES) assert.is(route.path.includes('{slug}'), route.slugOf !== undefined, route.id);
});

table('should take page on every paginated route and only there', () => {
  for (const route of ROUTES) assert.is(route.keyParams.includes('page'), route.paginated, route.id);
});

table('should declare every key parameter, each enumerable or enumerated by the build from its data (page, since)', () => {
  for (const route of ROUTES) {
    for (const name of route.keyParams) {
      assert.ok(route.query[name], `${route.id} ${name}`);
      if (name !== 'page' && name !== 'since') assert.ok(keyParamValues(route.query[name]).length > 0, `${route.id} ${name}`);
    }
  }
});

table('should admit tiers in ascending order, at least one', () => {
  for (const route of ROUTES) {
    assert.ok(route.tiers.length > 0, route.id);
    assert.equal([...route.tiers], TIERS.filter((t) => route.tiers.includes(t)), route.id);
  }
});

table.run();

const lowest = suite('lowestTier');

lowest('should name the lowest tier a route admits', () => {
  assert.is(lowestTier(routeById('language.models.free')), 'free');
  assert.is(lowestTier(routeById('language.models')), 'pro');
  assert.is(lowestTier(routeById('language.model')), 'pro');
  assert.is(lowestTier(routeById('language.providers')), 'commercial');
  assert.is(lowestTier(routeById('critpt.evaluate')), 'free');
});

lowest.run();

const values = suite('keyParamValues');

values('should enumerate an enum, and false then true for a boolean', () => {
  assert.equal(keyParamValues({ type: 'string', description: '', enum: ['a', 'b'] }), ['a', 'b']);
  assert.equal(keyParamValues({ type: 'boolean', description: '' }), [false, true]);
});

values('should refuse a parameter it cannot enumerate', () => {
  assert.throws(() => keyParamValues({ type: 'string', description: '', format: 'date' }), /enum or a boolean/);
});

values.run();

const byId = suite('routeById');

byId('should find a route and throw for an unknown id', () => {
  assert.is(routeById('language.model').path, '/api/v2/language/models/{slug}');
  assert.throws(() => routeById('nope'), /no route with id nope/);
});

byId.run();
