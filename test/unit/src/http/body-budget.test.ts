import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BodyBudget, type BodyReservation } from '../../../../src/http/body-budget.ts';

const budget = suite('BodyBudget');

budget('should refuse past the scope budget first, then past the server budget, holding nothing for a refusal', () => {
  const b = new BodyBudget({ totalBytes: 100, perScopeBytes: 60 });
  const a = b.reserve('a', 50) as BodyReservation;
  assert.is(b.reserve('a', 11), 'scope');
  assert.is(b.inScope('a'), 50);
  const other = b.reserve('b', 50) as BodyReservation;
  assert.is(b.reserve('c', 1), 'server');
  assert.is(a.grow(11), 'scope');
  assert.is(other.grow(1), 'server');
  assert.is(b.inFlight(), 100);
  a.release();
  assert.is(other.grow(10), null);
  assert.is(other.bytes, 60);
  assert.is(b.inFlight(), 60);
});

budget('should give back exactly what a reservation holds, once, and forget idle scopes', () => {
  const b = new BodyBudget({ totalBytes: 100, perScopeBytes: 100 });
  const a = b.reserve('a', 10) as BodyReservation;
  assert.is(a.grow(20), null);
  a.release();
  a.release();
  assert.is(b.inFlight(), 0);
  assert.is(b.inScope('a'), 0);
  assert.is(a.grow(5), 'server', 'a released reservation holds nothing more');
  assert.is(b.inFlight(), 0);
});

budget.run();
