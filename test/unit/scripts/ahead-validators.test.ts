/**
 * The validators the bundle generates ahead (scripts/ahead-validators.ts) answer as the ones
 * compiled at run time: the key file's (src/keys/file-validators.ts), with the same verdict and
 * the same errors for a valid record, header and format 1 file and for each way the schemas can
 * fail them; the queries' (src/http/query-validators.ts), with the same verdict, errors, coerced
 * values and defaults for every query schema of the route table.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AHEAD_MODULES, aheadModuleCode } from '../../../scripts/ahead-validators.ts';
import { queryValidator, routeQuerySchemas } from '../../../src/http/query-validators.ts';
import {
  headerValidator,
  recordValidator,
  wholeFileValidator,
} from '../../../src/keys/file-validators.ts';

type Validator = ((data: unknown) => boolean) & { errors?: unknown };
type Accessors = Record<string, () => Validator>;

const ahead = suite('validators generated ahead');

const record = {
  id: 'key_0123456789ab',
  hash: 'a'.repeat(64),
  tier: 'pro',
  org: 'acme',
  user: null,
  scope: 'org',
  quota: null,
  grants: ['anvil-hosting'],
  critpt: false,
  created_at: '2026-11-01T10:00:00.000Z',
  revoked_at: null,
  name: 'nightly export',
  expires_at: null,
  prefix: 'bdk_abcd',
  last4: 'wxyz',
  previous: { hash: 'b'.repeat(64), prefix: 'bdk_efgh', last4: 'stuv', until: '2026-11-02T10:00:00.000Z' },
};
const { hash: _hash, ...withoutHash } = record;
const RECORDS: [string, unknown, boolean][] = [
  ['valid', record, true],
  ['a required field missing', withoutHash, false],
  ['an unknown field', { ...record, colour: 'red' }, false],
  ['an id off its pattern', { ...record, id: 'key_XYZ' }, false],
  ['a tier not of the enum', { ...record, tier: 'gold' }, false],
  ['a day that does not exist', { ...record, created_at: '2026-02-30T10:00:00.000Z' }, false],
  ['a quota on a key below the commercial tier', { ...record, quota: 500 }, false],
  ['a user scope without a user', { ...record, scope: 'user' }, false],
  ['a grant twice', { ...record, grants: ['anvil-hosting', 'anvil-hosting'] }, false],
  ['a previous hash without its end', { ...record, previous: { hash: 'b'.repeat(64), prefix: null, last4: null } }, false],
  ['several problems at once', { ...record, tier: 'gold', expires_at: 5, critpt: 'yes' }, false],
  ['not an object', ['key_0123456789ab'], false],
];
const header = { format: 2, file: '0123456789abcdef', replaces: null, records: 1, end: 300 };
const HEADERS: [string, unknown, boolean][] = [
  ['valid', header, true],
  ['replacing a file', { ...header, replaces: { file: null, ino: 5, size: 120 } }, true],
  ['a file name off its pattern', { ...header, file: 'keys.json' }, false],
  ['another format', { ...header, format: 1 }, false],
  ['a replaced file without its size', { ...header, replaces: { file: 'fedcba9876543210', ino: 5 } }, false],
];
const WHOLE_FILES: [string, unknown, boolean][] = [
  ['valid', { format: 1, keys: [record] }, true],
  ['a record that fails', { format: 1, keys: [record, { ...record, org: '' }] }, false],
  ['format 2', { format: 2, keys: [] }, false],
];

/** A module's replacement, written to a temporary folder and imported. */
async function generated(module: string): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ahead-validators-'));
  try {
    const file = join(dir, 'validators.mjs');
    writeFileSync(file, aheadModuleCode(module));
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

ahead('should replace the modules of both kinds of validators', () => {
  assert.equal(AHEAD_MODULES, ['src/keys/file-validators.ts', 'src/http/query-validators.ts']);
});

ahead('should give the verdicts and errors of the key file validators compiled at run time', async () => {
  const early = (await generated('src/keys/file-validators.ts')) as Accessors;
  const cases: [string, Validator, Validator, [string, unknown, boolean][]][] = [
    ['record', early.recordValidator(), recordValidator(), RECORDS],
    ['header', early.headerValidator(), headerValidator(), HEADERS],
    ['wholeFile', early.wholeFileValidator(), wholeFileValidator(), WHOLE_FILES],
  ];
  for (const [schema, ahead, late, inputs] of cases)
    for (const [what, input, valid] of inputs) {
      assert.is(late(input), valid, `${schema}, ${what}: as compiled at run time`);
      assert.is(ahead(input), valid, `${schema}, ${what}: as generated ahead`);
      assert.equal(ahead.errors, late.errors, `${schema}, ${what}: the errors`);
    }
});

/** Queries for a schema: none, each parameter right (as text, to coerce) and each wrong, and one unknown. */
function queriesFor(schema: Record<string, any>): Record<string, unknown>[] {
  const queries: Record<string, unknown>[] = [{}, { unknown_parameter: '1' }];
  for (const [name, spec] of Object.entries<Record<string, any>>(schema.properties)) {
    if (spec.enum) queries.push({ [name]: String(spec.enum.at(-1)) }, { [name]: 'no-such-value' });
    else if (spec.type === 'integer')
      queries.push({ [name]: String(spec.minimum ?? 1) }, { [name]: String((spec.minimum ?? 1) - 1) }, { [name]: '1.5' });
    else if (spec.type === 'boolean') queries.push({ [name]: 'true' }, { [name]: 'maybe' });
    else if (spec.format === 'date') queries.push({ [name]: '2026-02-28' }, { [name]: '2026-02-30' });
    else queries.push({ [name]: 'text' });
  }
  return queries;
}

ahead('should check, coerce and fill in every query schema of the route table as compiled at run time', async () => {
  const early = (await generated('src/http/query-validators.ts')) as { queryValidator: (text: string) => Validator };
  let failures = 0;
  for (const [text, schema] of routeQuerySchemas()) {
    const ahead = early.queryValidator(text);
    const late = queryValidator(text, schema) as Validator;
    for (const query of queriesFor(schema)) {
      const [mine, theirs] = [structuredClone(query), structuredClone(query)];
      const verdict = late(theirs);
      assert.is(ahead(mine), verdict, `${text} ${JSON.stringify(query)}`);
      assert.equal(ahead.errors, late.errors, `${text} ${JSON.stringify(query)}: the errors`);
      assert.equal(mine, theirs, `${text} ${JSON.stringify(query)}: the values as coerced and filled in`);
      if (!verdict) failures++;
    }
  }
  assert.ok(failures > 20, `the wrong queries fail (${failures})`);
  assert.throws(() => early.queryValidator('{"type":"object"}'), /no query validator was generated/);
});

ahead.run();
