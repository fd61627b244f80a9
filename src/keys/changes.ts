/** The changes the keys command makes to the store: issue, revoke, regenerate, grants, CritPt approval, demo keys. */
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../lib/clock.ts';
import { loadKeys } from './file-read.ts';
import { withStoreLock } from './store-lock.ts';
import { updateKeys, writeKeysFile } from './file-append.ts';
import { listTable, type KeyChange, type KeyTable } from './table.ts';
import {
  generateKey,
  hashKey,
  keyHint,
  KEY_NAME_PATTERN,
  KeyConflict,
  KeyInputError,
  KeyNotFound,
  keysPath,
  MAX_OVERLAP_MS,
  MAX_QUOTA,
  NAME_PATTERN,
  PROVIDER_SLUG_PATTERN,
  type IssuedKey,
  freezeRecord,
  type NewKey,
} from './record.ts';
import { KEY_SCOPES, type KeyRecord } from '../state/key-record.ts';
import { TIERS } from '../shared/routes.ts';
import { isTimestamp } from '../shared/string-formats.ts';
import { SLUG_MAX_LENGTH } from '../shared/slug.ts';

function checkName(field: 'org' | 'user', value: string): string {
  if (!NAME_PATTERN.test(value))
    throw new KeyInputError(
      `--${field} must be 1 to 100 letters, digits or . _ @ + - (starting with a letter or digit), got ` +
        `${JSON.stringify(value)}`,
    );
  return value;
}

export function checkProviderSlug(slug: string): string {
  if (!PROVIDER_SLUG_PATTERN.test(slug) || slug.length > SLUG_MAX_LENGTH)
    throw new KeyInputError(
      `not a provider slug: ${JSON.stringify(slug)} (lowercase letters and digits, joined by - . _)`,
    );
  return slug;
}

/** A custom quota: null (the server's default for the tier) or a whole number of requests a window. */
function checkQuota(quota: number | null): number | null {
  if (quota !== null && !(Number.isSafeInteger(quota) && quota >= 1 && quota <= MAX_QUOTA))
    throw new KeyInputError(`--quota must be an integer from 1 to ${MAX_QUOTA}, got ${quota}`);
  return quota;
}

/** A key's label: null (none) or 1 to 100 characters, no control characters, not blank. */
function checkKeyName(name: string | null): string | null {
  if (name !== null && !KEY_NAME_PATTERN.test(name))
    throw new KeyInputError(
      `--name must be 1 to 100 characters, not all blank, with no control characters, got ` +
        `${JSON.stringify(name.slice(0, 120))}`,
    );
  return name;
}

/**
 * An expiry: null (never), else an ISO date-time (with its offset) after `now`, kept as the UTC
 * instant it names. A moment already past would make a key that never works, or end one at once:
 * revoking says that plainly.
 */
function checkExpiry(expiresAt: string | null, now: number): string | null {
  if (expiresAt === null) return null;
  if (!isTimestamp(expiresAt))
    throw new KeyInputError(
      `--expires must be a date and time with its offset, like 2027-01-31T00:00:00Z, got ${JSON.stringify(expiresAt)}`,
    );
  const at = Date.parse(expiresAt);
  if (at <= now)
    throw new KeyInputError(
      `--expires ${expiresAt} is not in the future (now ${new Date(now).toISOString()}); to end a key now, revoke it`,
    );
  return new Date(at).toISOString();
}

function quotaRefusal(tier: string): string {
  return `--quota is only for commercial keys; ${tier} keys have the server's ${tier} quota`;
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

function newKeyId(table: KeyTable): string {
  return table.freshId(() => `key_${randomBytes(6).toString('hex')}`);
}

type Settings = Omit<KeyRecord, 'id' | 'hash' | 'created_at' | 'revoked_at' | 'prefix' | 'last4' | 'previous'>;

/** Check a new key's settings and fill in the defaults; throws KeyInputError. */
function settingsOf(input: NewKey, now: number): Settings {
  if (!(TIERS as readonly string[]).includes(input.tier))
    throw new KeyInputError(`--tier must be one of ${TIERS.join(', ')}, got ${JSON.stringify(input.tier)}`);
  const org = checkName('org', input.org);
  const user = input.user == null ? null : checkName('user', input.user);
  const scope = input.scope ?? (user === null ? 'org' : 'user');
  if (!KEY_SCOPES.includes(scope)) throw new KeyInputError(`--scope must be user or org, got ${JSON.stringify(scope)}`);
  if (scope === 'user' && user === null)
    throw new KeyInputError('--scope user needs --user: a user-scoped quota belongs to one user of the org');
  const quota = checkQuota(input.quota ?? null);
  if (quota !== null && input.tier !== 'commercial') throw new KeyInputError(quotaRefusal(input.tier));
  const grants = sortedUnique((input.grants ?? []).map(checkProviderSlug));
  if (grants.length > 0 && input.tier !== 'commercial') throw new KeyInputError(grantRefusal(input.tier));
  const name = checkKeyName(input.name ?? null);
  const expires_at = checkExpiry(input.expires_at ?? null, now);
  return { tier: input.tier, org, user, scope, quota, grants, critpt: input.critpt ?? false, name, expires_at };
}

function issue(table: KeyTable, input: NewKey, clock: Clock): IssuedKey {
  const key = generateKey();
  const now = clock.now();
  const record = freezeRecord({
    id: newKeyId(table),
    hash: hashKey(key),
    ...settingsOf(input, now),
    created_at: new Date(now).toISOString(),
    revoked_at: null,
    ...keyHint(key),
    previous: null,
  });
  table.put(record);
  return { key, record };
}

/** A key that can still be changed; throws KeyStoreError naming the id. */
function activeRecord(table: KeyTable, id: string): KeyRecord {
  const record = table.byId(id);
  if (record === undefined) throw new KeyNotFound(`no key with id ${id}`);
  if (record.revoked_at !== null) throw new KeyConflict(`key ${id} was revoked at ${record.revoked_at}`);
  return record;
}

/** Issue a key; its settings are checked now, before any store is touched. */
export function creation(input: NewKey, clock: Clock = systemClock): KeyChange<IssuedKey> {
  settingsOf(input, clock.now());
  return (table) => issue(table, input, clock);
}

/** Replace one active key's record with a changed copy. */
function recordChange(id: string, change: (record: KeyRecord) => KeyRecord): KeyChange<KeyRecord> {
  return (table) => {
    const record = freezeRecord(change(activeRecord(table, id)));
    table.put(record);
    return record;
  };
}

export function revocation(id: string, clock: Clock = systemClock): KeyChange<KeyRecord> {
  return recordChange(id, (record) => ({ ...record, revoked_at: new Date(clock.now()).toISOString() }));
}

/**
 * A new plain key for the same record (id, scope, quota and grants stay). The old value stops
 * working at once, or, given an overlap, keeps working until then so clients can roll over. A
 * record holds one replaced value: regenerating again during an overlap ends the first one's.
 */
export function regeneration(id: string, overlapMs = 0, clock: Clock = systemClock): KeyChange<IssuedKey> {
  if (!(Number.isSafeInteger(overlapMs) && overlapMs >= 0 && overlapMs <= MAX_OVERLAP_MS))
    throw new KeyInputError(`--overlap must be from 0 to 30 days, got ${overlapMs / 1000} s`);
  return (table) => {
    const key = generateKey();
    const old = activeRecord(table, id);
    const previous =
      overlapMs === 0
        ? null
        : {
            hash: old.hash,
            prefix: old.prefix,
            last4: old.last4,
            until: new Date(clock.now() + overlapMs).toISOString(),
          };
    const record = freezeRecord({ ...old, hash: hashKey(key), ...keyHint(key), previous });
    table.put(record);
    return { key, record };
  };
}

/** Label a key (null: no label). */
export function renaming(id: string, name: string | null): KeyChange<KeyRecord> {
  checkKeyName(name);
  return recordChange(id, (record) => ({ ...record, name }));
}

/** Set when a key stops working (null: never); a moment already past is refused. */
export function expiryChange(id: string, expiresAt: string | null, clock: Clock = systemClock): KeyChange<KeyRecord> {
  const expires_at = checkExpiry(expiresAt, clock.now());
  return recordChange(id, (record) => ({ ...record, expires_at }));
}

/** Only Commercial keys read measurements, so a grant on any other key could never be used. */
function grantRefusal(tier: string, id?: string): string {
  return (
    `${id ? `key ${id} is` : 'keys of'} tier ${tier}${id ? '' : ' cannot hold grants'}: provider grants open ` +
    `the measurements routes, which only commercial keys may read`
  );
}

export function providerGrant(id: string, providerSlug: string): KeyChange<KeyRecord> {
  checkProviderSlug(providerSlug);
  return recordChange(id, (record) => {
    if (record.tier !== 'commercial') throw new KeyConflict(grantRefusal(record.tier, id));
    return { ...record, grants: sortedUnique([...record.grants, providerSlug]) };
  });
}

/** Take one grant back; the key's next measurements request for that provider is refused. */
export function providerUngrant(id: string, providerSlug: string): KeyChange<KeyRecord> {
  checkProviderSlug(providerSlug);
  return recordChange(id, (record) => {
    if (!record.grants.includes(providerSlug)) throw new KeyConflict(`key ${id} holds no grant for ${providerSlug}`);
    return { ...record, grants: record.grants.filter((g) => g !== providerSlug) };
  });
}

/** Set a Commercial key's own quota, or (null) give it the server's Commercial default again. */
export function quotaChange(id: string, quota: number | null): KeyChange<KeyRecord> {
  checkQuota(quota);
  return recordChange(id, (record) => {
    if (record.tier !== 'commercial')
      throw new KeyConflict(`key ${id} is tier ${record.tier}: ${quotaRefusal(record.tier)}`);
    return { ...record, quota };
  });
}

/** Approve (true) or withdraw (false) CritPt grading for one key. */
export function critptApproval(id: string, approved: boolean): KeyChange<KeyRecord> {
  return recordChange(id, (record) => ({ ...record, critpt: approved }));
}

export function createKey(stateDir: string, input: NewKey, clock: Clock = systemClock): IssuedKey {
  return updateKeys(stateDir, creation(input, clock)); // a bad value must not create the state folder
}

export function revokeKey(stateDir: string, id: string, clock: Clock = systemClock): KeyRecord {
  return updateKeys(stateDir, revocation(id, clock));
}

export function regenerateKey(stateDir: string, id: string): IssuedKey {
  return updateKeys(stateDir, regeneration(id));
}

export function grantProvider(stateDir: string, id: string, providerSlug: string): KeyRecord {
  return updateKeys(stateDir, providerGrant(id, providerSlug));
}

/**
 * First start: one demo key per tier in org `demo`, the commercial one approved for CritPt and
 * granted every provider. Null when a store already exists (even an empty one).
 */
export function ensureDemoKeys(
  stateDir: string,
  providerSlugs: readonly string[],
  clock: Clock = systemClock,
): IssuedKey[] | null {
  return withStoreLock(stateDir, (keep) => {
    // Read, not only looked for: a store that does not load is refused here, as the server would.
    if (loadKeys(stateDir) !== null) return null;
    const table = listTable([]);
    const demo = [
      issue(table, { tier: 'free', org: 'demo', user: 'free-user' }, clock),
      issue(table, { tier: 'pro', org: 'demo', user: 'pro-user' }, clock),
      issue(
        table,
        { tier: 'commercial', org: 'demo', user: 'commercial-user', grants: providerSlugs, critpt: true },
        clock,
      ),
    ];
    writeKeysFile(keysPath(stateDir), table.records, null, keep);
    return demo;
  });
}
