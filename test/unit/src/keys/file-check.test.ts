import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isKeysFile } from '../../../../src/keys/file-check.ts';
import { keysFileSchema } from '../../../../src/keys/file.ts';
import { createAjv, TRUSTED_SCHEMAS } from '../../../../src/shared/ajv.ts';

const check = suite('isKeysFile');
const schema = createAjv(TRUSTED_SCHEMAS).compile(keysFileSchema);

function record(): Record<string, unknown> {
  return { id: 'key_0123456789ab', hash: 'a'.repeat(64), tier: 'commercial', org: 'acme', user: 'ana', scope: 'user', quota: 50, grants: ['anvil-hosting'], critpt: true, created_at: '2026-11-20T09:00:00.123Z', revoked_at: null };
}

/** Values each field is given in turn: the schema's edges, and what a hand edit might leave. */
const VALUES: unknown[] = [
  null, true, 0, 1, 1.5, -1, 1e9, 1e9 + 1, 'x', '', [], ['a'], {},
  'key_0123456789ab', 'key_0123456789AB', 'key_0123456789a', 'a'.repeat(64), 'A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), `${'a'.repeat(64)}\n`,
  'free', 'pro', 'commercial', 'gold', 'user', 'org', 'acme', 'a/b', 'al ice', 'x'.repeat(101), `a${'x'.repeat(99)}`,
  ['anvil-hosting', 'bastion-serve'], ['anvil-hosting', 'anvil-hosting'], ['Bad Slug'], [1], 'anvil-hosting',
  '2026-11-20T09:00:00Z', '2026-11-20T09:00:00+01:00', '2026-02-30T09:00:00Z', '2024-02-29T00:00:00Z', '2026-11-20T24:00:00Z', '2026-11-20 09:00:00Z', '2026-11-20',
];

/** Both must give the same answer; the message says which file. */
function same(data: unknown, what: string): void {
  assert.is(isKeysFile(data), schema(data), what);
}

check('should answer as the schema does for each value of each field, alone and in pairs with the fields the allOf ties', () => {
  same({ format: 1, keys: [record()] }, 'a good record');
  for (const field of Object.keys(record())) {
    for (const value of VALUES) same({ format: 1, keys: [{ ...record(), [field]: value }] }, `${field} = ${JSON.stringify(value)}`);
    const without = record();
    delete without[field];
    same({ format: 1, keys: [without] }, `no ${field}`);
  }
  for (const tier of ['free', 'pro', 'commercial', 'gold']) {
    for (const quota of [null, 1, 0]) same({ format: 1, keys: [{ ...record(), tier, quota, grants: [] }] }, `tier ${tier}, quota ${quota}`);
  }
  for (const scope of ['user', 'org']) for (const user of [null, 'ana', 'a/b']) same({ format: 1, keys: [{ ...record(), scope, user }] }, `scope ${scope}, user ${user}`);
});

check('should answer as the schema does for the file around the records', () => {
  for (const data of [null, [], 'x', 1, {}, { format: 1 }, { keys: [] }, { format: 1, keys: [] }, { format: 2, keys: [] }, { format: '1', keys: [] }, { format: 1, keys: {} }, { format: 1, keys: [], more: 1 }, { format: 1, keys: [null] }, { format: 1, keys: [[]] }]) {
    same(data, JSON.stringify(data));
  }
  same({ format: 1, keys: [record(), { ...record(), extra: 1 }] }, 'a bad record after a good one');
  same(JSON.parse(`{"format": 1, "keys": [${JSON.stringify(record()).replace('{', '{"__proto__": 1, ')}]}`), 'a __proto__ field');
});

check.run();
