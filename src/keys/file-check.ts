/**
 * keys.json's schema (file.ts's keysFileSchema) as a direct check: true exactly when the schema
 * holds. At 100,000 keys ajv's validator took 371 ms of a 1.4 s read (scripts/bench/keys-scale.ts),
 * most of it for its error bookkeeping (allErrors); this check takes a fraction of that, and
 * builds nothing. It only says yes or no: a file it refuses is checked again by ajv, whose
 * errors are the messages (file.ts), so a corrupt file is refused as it always was.
 *
 * It must never accept what the schema refuses: test/unit/src/keys/file-check.test.ts holds the
 * two to the same answer, field by field.
 */
import { isTimestamp } from '../shared/ajv.ts';
import { TIERS } from '../shared/routes.ts';
import { KEY_ID_PATTERN, KEY_SCOPES, KEYS_FORMAT, MAX_QUOTA, NAME_PATTERN, PROVIDER_SLUG_PATTERN, type KeyRecord } from './record.ts';

const RECORD_FIELDS = ['id', 'hash', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'created_at', 'revoked_at'] as const;
/** The schema's `^[0-9a-f]{64}$`, its length tested first: 41 ms -> 27 ms at 100,000 keys. */
const HEX = /^[0-9a-f]+$/;
const isHash = (value: unknown) => typeof value === 'string' && value.length === 64 && HEX.test(value);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Exactly these fields, no other (required, additionalProperties: false). */
function hasExactly(value: Record<string, unknown>, fields: readonly string[]): boolean {
  let count = 0;
  for (const field in value) {
    if (!Object.hasOwn(value, field)) continue;
    if (!fields.includes(field)) return false;
    count++;
  }
  return count === fields.length;
}

function isString(value: unknown, pattern: RegExp): boolean {
  return typeof value === 'string' && pattern.test(value);
}

function isGrants(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const slug of value) if (!isString(slug, PROVIDER_SLUG_PATTERN)) return false;
  return value.length < 2 || new Set(value).size === value.length; // uniqueItems
}

function isRecord(r: unknown): boolean {
  if (!isObject(r) || !hasExactly(r, RECORD_FIELDS)) return false;
  const { tier, user, scope, quota, revoked_at } = r;
  return (
    isString(r.id, KEY_ID_PATTERN) &&
    isHash(r.hash) &&
    (TIERS as readonly unknown[]).includes(tier) &&
    isString(r.org, NAME_PATTERN) &&
    (user === null || isString(user, NAME_PATTERN)) &&
    (KEY_SCOPES as readonly unknown[]).includes(scope) &&
    (quota === null || (Number.isInteger(quota) && (quota as number) >= 1 && (quota as number) <= MAX_QUOTA)) &&
    isGrants(r.grants) &&
    typeof r.critpt === 'boolean' &&
    typeof r.created_at === 'string' &&
    isTimestamp(r.created_at) &&
    (revoked_at === null || (typeof revoked_at === 'string' && isTimestamp(revoked_at))) &&
    // The schema's allOf: a user-scoped key names its user; only commercial keys set a quota.
    (scope !== 'user' || typeof user === 'string') &&
    (tier === 'commercial' || quota === null)
  );
}

/** Does the parsed file hold to keysFileSchema? */
export function isKeysFile(data: unknown): data is { format: number; keys: KeyRecord[] } {
  if (!isObject(data) || !hasExactly(data, ['format', 'keys']) || data.format !== KEYS_FORMAT || !Array.isArray(data.keys)) return false;
  for (const record of data.keys) if (!isRecord(record)) return false;
  return true;
}
