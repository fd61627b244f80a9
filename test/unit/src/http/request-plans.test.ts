import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../../src/http/error.ts';
import { QueryValidator } from '../../../../src/http/query.ts';
import { RecentMap } from '../../../../src/lib/recent-map.ts';
import { RequestPlans } from '../../../../src/http/request-plans.ts';
import { Router } from '../../../../src/http/router.ts';
import { entryName } from '../../../../src/shared/routes.ts';

const plans = () => new RequestPlans(new Router(), new QueryValidator());

function status(fn: () => unknown): number {
  try {
    fn();
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
  throw new Error('expected an HttpError');
}

const planning = suite('RequestPlans');

planning('should give a repeated read target the same plan, with the values and keys a fresh parse gives', () => {
  const book = plans();
  const first = book.plan('GET', '/api/v2/language/models?page=2&prompt_type=long');
  assert.is(book.plan('HEAD', '/api/v2/language/models?page=2&prompt_type=long'), first);
  const values = new QueryValidator().parse(first.route, 'page=2&prompt_type=long');
  assert.equal({ ...first.values() }, values);
  assert.ok(Object.isFrozen(first.values()));
  assert.is(first.entryName('pro'), entryName(first.route, 'pro', values));
  assert.is.not(first.entryName('commercial'), first.entryName('pro'));
});

planning('should carry the slug of a detail path into its entry name', () => {
  const plan = plans().plan('GET', '/api/v2/language/models/gpt-x');
  assert.is(plan.slug, 'gpt-x');
  assert.ok(plan.entryName('pro').endsWith(' slug=gpt-x'));
});

planning('should refuse what the router and the query check refuse, every time', () => {
  const book = plans();
  for (let i = 0; i < 2; i++) {
    assert.is(status(() => book.plan('GET', '/api/v2/nothing-here')), 404);
    assert.is(status(() => book.plan('DELETE', '/api/v2/language/models')), 405);
    assert.is(status(() => book.plan('GET', '/api/v2/language/models?page=zero').values()), 400);
  }
});

planning('should plan a long target without remembering it, and a grading afresh each time', () => {
  const book = plans();
  const long = `/api/v2/language/models?page=1${'&'.repeat(600)}`;
  assert.is.not(book.plan('GET', long), book.plan('GET', long));
  assert.is.not(book.plan('POST', '/api/v2/critpt/evaluate'), book.plan('POST', '/api/v2/critpt/evaluate'));
});

planning.run();

const recent = suite('RecentMap');

recent('should hold at most two generations and keep what is in use', () => {
  const map = new RecentMap<number, string>(4);
  map.set(0, 'kept');
  for (let i = 1; i < 100; i++) {
    map.set(i, String(i));
    assert.is(map.get(0), 'kept');
    assert.ok(map.size <= 8);
  }
  assert.is(map.get(1), undefined);
  assert.is(map.get(99), '99');
});

recent('should answer the last entry for an equal string read anew, and let clear forget it with the rest', () => {
  const map = new RecentMap<string, number>(4);
  const key = ['bdk', 'x'.repeat(43)].join('_');
  map.set(key, 1);
  // Equal text, another string (as each request's header is): found, first by the last entry.
  assert.is(map.get(['bdk', 'x'.repeat(43)].join('_')), 1);
  assert.is(map.get('other'), undefined);
  assert.is(map.get(key.slice(0)), 1);
  map.set(key, 2);
  assert.is(map.get(`${key}`), 2, 'a value set again replaces the last entry too');
  map.set('b', 3);
  assert.is(map.get('b'), 3);
  assert.is(map.get(key), 2, 'an earlier entry is still found in the Maps');
  map.clear();
  assert.is(map.size, 0);
  assert.is(map.get(key), undefined, 'the last entry is forgotten with the rest');
  assert.is(map.get('b'), undefined);
});

recent.run();
