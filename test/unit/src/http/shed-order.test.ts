import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { capReached, capsFor, isLoopback, pickShed, shedReason, type Candidate, type ConnectionFacts } from '../../../../src/http/shed-order.ts';

const GRACE = 1000;
const NOW = 100_000;
const quiet: ConnectionFacts = { address: '10.0.0.1', openedAt: 0, closing: false, requests: 0, partial: false, quietSince: 0, unsent: 0, unsentSince: NOW };

const reasons = suite('shedReason');

reasons('should call a closing connection lingering at once, however new', () => {
  assert.is(shedReason({ ...quiet, closing: true, openedAt: NOW }, NOW, GRACE), 'lingering');
});

reasons('should shed nothing opened within the grace: its request may be on the way', () => {
  assert.is(shedReason({ ...quiet, openedAt: NOW - GRACE + 1, quietSince: NOW - GRACE + 1 }, NOW, GRACE), null);
  assert.is(shedReason({ ...quiet, openedAt: NOW - GRACE + 1, partial: true }, NOW, GRACE), null);
});

reasons('should call a quiet keep-alive idle, and one receiving a request with no answer under way a slow request', () => {
  assert.is(shedReason(quiet, NOW, GRACE), 'idle');
  assert.is(shedReason({ ...quiet, partial: true }, NOW, GRACE), 'slow_request');
  // Just answered: not idle yet.
  assert.is(shedReason({ ...quiet, quietSince: NOW - 10 }, NOW, GRACE), null);
});

reasons('should never shed a connection whose request is being answered, unless its answer has stalled past the grace', () => {
  assert.is(shedReason({ ...quiet, requests: 1 }, NOW, GRACE), null);
  assert.is(shedReason({ ...quiet, requests: 1, partial: true }, NOW, GRACE), null);
  assert.is(shedReason({ ...quiet, requests: 1, unsent: 4096, unsentSince: NOW - 10 }, NOW, GRACE), null);
  assert.is(shedReason({ ...quiet, requests: 1, unsent: 4096, unsentSince: NOW - GRACE }, NOW, GRACE), 'stalled_reader');
});

reasons.run();

const picking = suite('pickShed');

const held = (counts: Record<string, number>) => (address: string) => counts[address] ?? 0;

picking('should shed lingering, then idle, then slow requests, then stalled readers', () => {
  const all: Candidate[] = [
    { reason: 'stalled_reader', address: 'a', since: 1 },
    { reason: 'slow_request', address: 'a', since: 1 },
    { reason: 'idle', address: 'a', since: 1 },
    { reason: 'lingering', address: 'a', since: 1 },
  ];
  const order: string[] = [];
  const left = [...all];
  while (left.length > 0) order.push(left.splice(pickShed(left, held({ a: 4 })), 1)[0].reason);
  assert.equal(order, ['lingering', 'idle', 'slow_request', 'stalled_reader']);
});

picking('should take from the address holding the most first, then the oldest', () => {
  const candidates: Candidate[] = [
    { reason: 'idle', address: 'few', since: 1 },
    { reason: 'idle', address: 'many', since: 5 },
    { reason: 'idle', address: 'many', since: 3 },
  ];
  assert.is(pickShed(candidates, held({ few: 1, many: 900 })), 2);
  assert.is(pickShed(candidates, held({ few: 1, many: 1 })), 0);
});

picking('should take only from the given address when its own cap is reached, and find none in an empty list', () => {
  const candidates: Candidate[] = [
    { reason: 'lingering', address: 'other', since: 1 },
    { reason: 'slow_request', address: 'me', since: 1 },
  ];
  assert.is(pickShed(candidates, held({ other: 10, me: 5 }), 'me'), 1);
  assert.is(pickShed(candidates, held({}), 'nobody'), -1);
  assert.is(pickShed([], held({})), -1);
});

picking.run();

const caps = suite('capsFor');

caps('should keep the connections and refusal slots an eighth (at least 64) under the descriptor limit', () => {
  assert.equal(capsFor(1024), { total: 864, perClient: 432, refusing: 32 });
  const small = capsFor(256);
  assert.is(small.total + small.refusing, 256 - 64);
  const big = capsFor(1_048_576);
  assert.is(big.refusing, 256);
  assert.ok(big.total + big.refusing <= 1_048_576 * (7 / 8));
});

caps('should take the caps given as they are, the per-client one half of the total by default', () => {
  assert.equal(capsFor(1024, { total: 100, perClient: null }), { total: 100, perClient: 50, refusing: 32 });
  assert.equal(capsFor(1024, { total: null, perClient: 7 }).perClient, 7);
});

caps.run();

const reached = suite('capReached');

reached('should hold a client address to its own cap, loopback to the total only (a reverse proxy)', () => {
  const c = { total: 10, perClient: 3, refusing: 2 };
  assert.is(capReached(5, 2, '10.0.0.1', c), 'room');
  assert.is(capReached(5, 3, '10.0.0.1', c), 'client');
  assert.is(capReached(10, 1, '10.0.0.1', c), 'server');
  assert.is(capReached(5, 5, '127.0.0.1', c), 'room');
  assert.is(capReached(10, 10, '::1', c), 'server');
  assert.ok(isLoopback('::ffff:127.0.0.1'));
  assert.not.ok(isLoopback('::ffff:10.0.0.1'));
});

reached.run();
