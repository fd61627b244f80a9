import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../src/http/error.ts';
import type { KeyRecord } from '../../../src/state/key-record.ts';
import { admitKey, admitProvider } from '../../../src/policy.ts';
import { critptScope, dataLimit } from '../../../src/quota/scopes.ts';
import type { Route } from '../../../src/shared/routes.ts';

function key(fields: Partial<KeyRecord> = {}): KeyRecord {
  return { id: 'key_000000000001', hash: 'h', tier: 'commercial', org: 'acme', user: 'ann', scope: 'user', quota: null, grants: [], critpt: false, created_at: '2026-11-01T00:00:00.000Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null, ...fields };
}

/** A route of a table made up for the test, carrying the flags under test. */
function route(fields: Partial<Route> = {}): Route {
  return { id: 'made.up', method: 'GET', path: '/api/v2/made-up/{slug}', summary: 'test', tiers: ['pro', 'commercial'], query: {}, answer: 'snapshot', keyParams: [], paginated: false, ...fields };
}

function refusal(act: () => void): { status: number; message: string; details: Record<string, unknown> } | null {
  try {
    act();
    return null;
  } catch (error) {
    assert.instance(error, HttpError);
    const { status, message, details } = error as HttpError;
    return { status, message, details };
  }
}

const admit = suite('admitKey and admitProvider');

admit('should refuse a tier the route does not admit with 403 naming the lowest tier it does', () => {
  assert.equal(refusal(() => admitKey(route(), key({ tier: 'free' }), 'ops@example.org')), { status: 403, message: 'Pro access required', details: { required_tier: 'pro', tier: 'free' } });
  assert.equal(refusal(() => admitKey(route({ tiers: ['commercial'] }), key({ tier: 'pro' }), 'x'))?.message, 'Commercial access required');
  assert.is(refusal(() => admitKey(route(), key({ tier: 'pro' }), 'x')), null);
});

admit('should enforce CritPt approval on any route whose table entry asks for it', () => {
  const gated = route({ needsCritptApproval: true, tiers: ['free', 'pro', 'commercial'] });
  const refused = refusal(() => admitKey(gated, key({ critpt: false }), 'ops@example.org'));
  assert.is(refused?.status, 403);
  assert.match(refused!.message, /^CritPt grading access is not granted to this key\. Request approval by e-mail to ops@example\.org/);
  assert.equal(refused!.details, { contact: 'ops@example.org' });
  assert.is(refusal(() => admitKey(gated, key({ critpt: true }), 'x')), null);
  assert.is(refusal(() => admitKey(route(), key({ critpt: false }), 'x')), null, 'a route without the flag needs no approval');
});

admit('should enforce a provider grant on any route whose table entry asks for it', () => {
  const gated = route({ needsProviderGrant: true });
  assert.equal(refusal(() => admitProvider(gated, key({ grants: ['other'] }), 'acme-cloud')), {
    status: 403,
    message: "This key has no grant for provider acme-cloud's measurements; ask the operator for one",
    details: { provider: 'acme-cloud' },
  });
  assert.is(refusal(() => admitProvider(gated, key({ grants: ['acme-cloud'] }), 'acme-cloud')), null);
  assert.is(refusal(() => admitProvider(route(), key(), 'acme-cloud')), null, 'a route without the flag needs no grant');
});

admit.run();

const scopes = suite('critptScope');

scopes('should count every key of one user together, whatever its data scope', () => {
  assert.is(critptScope(key({ id: 'key_000000000001', scope: 'user' })), 'user:acme/ann');
  assert.is(critptScope(key({ id: 'key_000000000002', scope: 'org' })), 'user:acme/ann');
});

scopes('should give each user-less key a counter of its own, apart from a user named null', () => {
  const first = critptScope(key({ id: 'key_00000000000a', user: null, scope: 'org' }));
  const second = critptScope(key({ id: 'key_00000000000b', user: null, scope: 'org' }));
  const named = critptScope(key({ id: 'key_00000000000c', user: 'null' }));
  assert.is(first, 'key:key_00000000000a');
  assert.is(new Set([first, second, named]).size, 3);
});

scopes.run();

const limits = suite('dataLimit');

limits("should give each tier its limit and a Commercial key its own quota or the default", () => {
  const table = { free: 100, pro: 500, commercialDefault: 10_000, critpt: 10 };
  assert.is(dataLimit({ tier: 'free', quota: null }, table), 100);
  assert.is(dataLimit({ tier: 'pro', quota: null }, table), 500);
  assert.is(dataLimit({ tier: 'commercial', quota: null }, table), 10_000);
  assert.is(dataLimit({ tier: 'commercial', quota: 3 }, table), 3);
});

limits.run();
