/**
 * API keys: the record format, the `keys.json` file in the private state folder, the changes
 * the keys command makes, and the in-memory index the server authenticates against.
 *
 * A plain key is shown once when it is issued and never stored: the file keeps only its
 * SHA-256. Keys carry the `bdk_` prefix so secret scanners can spot a leaked one; a record's
 * `id` is public and stable (regenerating a key keeps it), so the operator works with ids.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, rmSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { createAjv, TRUSTED_SCHEMAS } from './shared/ajv.ts';
import { systemClock, type Clock } from './clock.ts';
import { TIERS, type Tier } from './shared/routes.ts';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from './shared/slug.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE, writeFileAtomic } from './shared/state-files.ts';

export const KEY_PREFIX = 'bdk_';
/** A plain key: the prefix and 32 random bytes in base64url (43 characters). */
export const KEY_PATTERN = /^bdk_[A-Za-z0-9_-]{43}$/;
export const KEY_ID_PATTERN = /^key_[0-9a-f]{12}$/;
/** Organisation and user names: no `/` or `:` (they delimit quota scope ids), no spaces. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/;
/** The dataset schema's provider slug (build/schemas/datasets.ts); repeated so the server need not import the build. */
export const PROVIDER_SLUG_PATTERN = SLUG_PATTERN;
export const KEYS_FILE = 'keys.json';
const FORMAT = 1;
const MAX_QUOTA = 1e9;

export const KEY_SCOPES = ['user', 'org'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface KeyRecord {
  /** Public, stable id (`key_` + 12 hex); survives regeneration. */
  readonly id: string;
  /** SHA-256 (hex) of the plain key; never shown. */
  readonly hash: string;
  readonly tier: Tier;
  readonly org: string;
  readonly user: string | null;
  /** Who shares the quota: this user in the org, or the whole org. */
  readonly scope: KeyScope;
  /** Commercial only: requests per window; null means the server's commercial default. */
  readonly quota: number | null;
  /** Provider slugs whose measurements this key may read; sorted, unique. */
  readonly grants: readonly string[];
  /** Approved for CritPt grading. */
  readonly critpt: boolean;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

export type PublicKeyRecord = Omit<KeyRecord, 'hash'>;

/** A freshly issued plain key with its record: the only moment the key is known. */
export interface IssuedKey {
  key: string;
  record: KeyRecord;
}

export interface NewKey {
  tier: Tier;
  org: string;
  user?: string | null;
  /** Default: `user` when a user is given, else `org`. */
  scope?: KeyScope;
  quota?: number | null;
  grants?: readonly string[];
  critpt?: boolean;
}

/** What the server needs of a key store: the record a presented plain key stands for, if any. */
export interface KeyLookup {
  lookup(plainKey: string): KeyRecord | undefined;
}

/** The key file is unreadable, corrupt or invalid, or a change names a key it cannot apply to. */
export class KeyStoreError extends Error {}
/** A value given for a new key or a change is not acceptable. */
export class KeyInputError extends Error {}

export function keysPath(stateDir: string): string {
  return join(stateDir, KEYS_FILE);
}

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashKey(plainKey: string): string {
  return createHash('sha256').update(plainKey).digest('hex');
}

/** Everything about a key that may be shown: the record without its hash. */
export function publicRecord(r: KeyRecord): PublicKeyRecord {
  return { id: r.id, tier: r.tier, org: r.org, user: r.user, scope: r.scope, quota: r.quota, grants: r.grants, critpt: r.critpt, created_at: r.created_at, revoked_at: r.revoked_at };
}

// ---------------------------------------------------------------------------------------------
// The file

export const keysFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'keys'],
  properties: {
    format: { const: FORMAT },
    keys: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'hash', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'created_at', 'revoked_at'],
        properties: {
          id: { type: 'string', pattern: KEY_ID_PATTERN.source },
          hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          tier: { enum: TIERS },
          org: { type: 'string', pattern: NAME_PATTERN.source },
          user: { type: ['string', 'null'], pattern: NAME_PATTERN.source },
          scope: { enum: KEY_SCOPES },
          quota: { type: ['integer', 'null'], minimum: 1, maximum: MAX_QUOTA },
          grants: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: PROVIDER_SLUG_PATTERN.source } },
          critpt: { type: 'boolean' },
          created_at: { type: 'string', format: 'date-time' },
          revoked_at: { type: ['string', 'null'], format: 'date-time' },
        },
        allOf: [
          { if: { properties: { scope: { const: 'user' } } }, then: { properties: { user: { type: 'string' } } } },
          { if: { properties: { tier: { not: { const: 'commercial' } } } }, then: { properties: { quota: { type: 'null' } } } },
        ],
      },
    },
  },
};
const validateKeysFile = createAjv(TRUSTED_SCHEMAS).compile<{ format: number; keys: KeyRecord[] }>(keysFileSchema);

function describeSchemaError(e: ErrorObject): string {
  const where = e.instancePath || '/';
  if (e.keyword === 'enum') return `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'additionalProperties') return `${where} has an unknown field ${JSON.stringify(e.params.additionalProperty)}`;
  return `${where} ${e.message}`;
}

/** V8's JSON messages quote a stretch of the text, which may hold a hash: keep only the reason. */
function describeJsonError(error: Error): string {
  return error.message.replace(/,? ".*" is not valid JSON$/s, '').replace(/[A-Za-z0-9_-]{20,}/g, '…');
}

function parseKeysFile(path: string, text: string): KeyRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new KeyStoreError(`${path} is not valid JSON (${describeJsonError(error as Error)})`);
  }
  if (!validateKeysFile(data)) {
    // `if` errors only say "must match then"; the `then` error beside it names the field.
    const problems = (validateKeysFile.errors ?? []).filter((e) => e.keyword !== 'if').map(describeSchemaError);
    throw new KeyStoreError(`${path} is not a valid key store: ${problems.join('; ')}`);
  }
  const seen = { id: new Map<string, number>(), hash: new Map<string, number>() };
  data.keys.forEach((record, i) => {
    for (const field of ['id', 'hash'] as const) {
      const first = seen[field].get(record[field]);
      if (first !== undefined) throw new KeyStoreError(`${path} is not a valid key store: /keys/${i}/${field} repeats /keys/${first}/${field}`);
      seen[field].set(record[field], i);
    }
  });
  return data.keys.map(freezeRecord);
}

function freezeRecord(record: KeyRecord): KeyRecord {
  return Object.freeze({ ...record, grants: Object.freeze([...record.grants]) });
}

interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

function stampOf(stats: Stats | undefined): FileStamp | null {
  return stats ? { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs } : null;
}

function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  if (a === null || b === null) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/** Read the key file; null when there is none yet. The stamp is of the very bytes read. */
function readKeysFile(path: string): { records: KeyRecord[]; stamp: FileStamp } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new KeyStoreError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stamp = stampOf(fstatSync(fd)) as FileStamp;
    return { records: parseKeysFile(path, readFileSync(fd, 'utf8')), stamp };
  } finally {
    closeSync(fd);
  }
}

/** The keys in the store, revoked ones included; null when no store exists yet. */
export function loadKeys(stateDir: string): KeyRecord[] | null {
  return readKeysFile(keysPath(stateDir))?.records ?? null;
}

/** Only under the store lock, which has made the folder private. */
function saveKeys(stateDir: string, records: readonly KeyRecord[]): void {
  writeFileAtomic(keysPath(stateDir), `${JSON.stringify({ format: FORMAT, keys: records }, null, 2)}\n`);
}

const LOCK_WAIT_MS = 5000;

/** Changes read, modify and rewrite the file; the lock keeps two keys commands from losing each other's change. */
function withStoreLock<T>(stateDir: string, change: () => T): T {
  ensurePrivateDir(stateDir);
  const lock = `${keysPath(stateDir)}.lock`;
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', PRIVATE_FILE_MODE));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (performance.now() > deadline) throw new KeyStoreError(`${lock} is held by another keys command; if none is running, delete it`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return change();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Load, change and save the store under the lock; `change` edits the list in place. */
function updateKeys<T>(stateDir: string, change: (records: KeyRecord[]) => T): T {
  return withStoreLock(stateDir, () => {
    const records = loadKeys(stateDir) ?? [];
    const result = change(records);
    saveKeys(stateDir, records);
    return result;
  });
}

// ---------------------------------------------------------------------------------------------
// Changes made by the keys command

function checkName(field: 'org' | 'user', value: string): string {
  if (!NAME_PATTERN.test(value)) throw new KeyInputError(`--${field} must be 1 to 100 letters, digits or . _ @ + - (starting with a letter or digit), got ${JSON.stringify(value)}`);
  return value;
}

export function checkProviderSlug(slug: string): string {
  if (!PROVIDER_SLUG_PATTERN.test(slug) || slug.length > SLUG_MAX_LENGTH) throw new KeyInputError(`not a provider slug: ${JSON.stringify(slug)} (lowercase letters and digits, joined by - . _)`);
  return slug;
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

function newKeyId(records: readonly KeyRecord[]): string {
  for (;;) {
    const id = `key_${randomBytes(6).toString('hex')}`;
    if (!records.some((r) => r.id === id)) return id;
  }
}

/** Check a new key's settings and fill in the defaults; throws KeyInputError. */
function settingsOf(input: NewKey): Omit<KeyRecord, 'id' | 'hash' | 'created_at' | 'revoked_at'> {
  if (!(TIERS as readonly string[]).includes(input.tier)) throw new KeyInputError(`--tier must be one of ${TIERS.join(', ')}, got ${JSON.stringify(input.tier)}`);
  const org = checkName('org', input.org);
  const user = input.user == null ? null : checkName('user', input.user);
  const scope = input.scope ?? (user === null ? 'org' : 'user');
  if (!KEY_SCOPES.includes(scope)) throw new KeyInputError(`--scope must be user or org, got ${JSON.stringify(scope)}`);
  if (scope === 'user' && user === null) throw new KeyInputError('--scope user needs --user: a user-scoped quota belongs to one user of the org');
  const quota = input.quota ?? null;
  if (quota !== null && input.tier !== 'commercial') throw new KeyInputError(`--quota is only for commercial keys; ${input.tier} keys have the server's ${input.tier} quota`);
  if (quota !== null && !(Number.isSafeInteger(quota) && quota >= 1 && quota <= MAX_QUOTA)) throw new KeyInputError(`--quota must be an integer from 1 to ${MAX_QUOTA}, got ${quota}`);
  const grants = sortedUnique((input.grants ?? []).map(checkProviderSlug));
  return { tier: input.tier, org, user, scope, quota, grants, critpt: input.critpt ?? false };
}

function issue(records: readonly KeyRecord[], input: NewKey, clock: Clock): IssuedKey {
  const key = generateKey();
  const record = freezeRecord({ id: newKeyId(records), hash: hashKey(key), ...settingsOf(input), created_at: new Date(clock.now()).toISOString(), revoked_at: null });
  return { key, record };
}

/** The index of a key that can still be changed; throws KeyStoreError naming the id. */
function activeIndex(records: readonly KeyRecord[], id: string): number {
  const i = records.findIndex((r) => r.id === id);
  if (i < 0) throw new KeyStoreError(`no key with id ${id}`);
  if (records[i].revoked_at !== null) throw new KeyStoreError(`key ${id} was revoked at ${records[i].revoked_at}`);
  return i;
}

export function createKey(stateDir: string, input: NewKey, clock: Clock = systemClock): IssuedKey {
  settingsOf(input); // a bad value must not create the state folder
  return updateKeys(stateDir, (records) => {
    const issued = issue(records, input, clock);
    records.push(issued.record);
    return issued;
  });
}

export function revokeKey(stateDir: string, id: string, clock: Clock = systemClock): KeyRecord {
  return updateKeys(stateDir, (records) => {
    const i = activeIndex(records, id);
    records[i] = freezeRecord({ ...records[i], revoked_at: new Date(clock.now()).toISOString() });
    return records[i];
  });
}

/** A new plain key for the same record: the old one stops working, id, scope and grants stay. */
export function regenerateKey(stateDir: string, id: string): IssuedKey {
  return updateKeys(stateDir, (records) => {
    const i = activeIndex(records, id);
    const key = generateKey();
    records[i] = freezeRecord({ ...records[i], hash: hashKey(key) });
    return { key, record: records[i] };
  });
}

export function grantProvider(stateDir: string, id: string, providerSlug: string): KeyRecord {
  checkProviderSlug(providerSlug);
  return updateKeys(stateDir, (records) => {
    const i = activeIndex(records, id);
    records[i] = freezeRecord({ ...records[i], grants: sortedUnique([...records[i].grants, providerSlug]) });
    return records[i];
  });
}

/**
 * First start: one demo key per tier in org `demo`, the commercial one approved for CritPt and
 * granted every provider. Null when a store already exists (even an empty one).
 */
export function ensureDemoKeys(stateDir: string, providerSlugs: readonly string[], clock: Clock = systemClock): IssuedKey[] | null {
  return withStoreLock(stateDir, () => {
    if (loadKeys(stateDir) !== null) return null;
    const issued: IssuedKey[] = [];
    const records = () => issued.map((k) => k.record);
    issued.push(issue(records(), { tier: 'free', org: 'demo', user: 'free-user' }, clock));
    issued.push(issue(records(), { tier: 'pro', org: 'demo', user: 'pro-user' }, clock));
    issued.push(issue(records(), { tier: 'commercial', org: 'demo', user: 'commercial-user', grants: providerSlugs, critpt: true }, clock));
    saveKeys(stateDir, records());
    return issued;
  });
}

// ---------------------------------------------------------------------------------------------
// The server's view

export interface KeyStoreOptions {
  /** Called once per broken version of the file met on a reload. */
  onError?: (error: KeyStoreError) => void;
  /** How often to look for changes to the file (see refresh); default every lookup. */
  recheck?: 'every-lookup' | 'every-turn';
}

/**
 * The keys the server authenticates against, indexed by hash. Every lookup first stats the
 * file (one syscall) and reloads when it changed, so a key the keys command revoked or
 * regenerated fails on the very next request, with no restart and no watcher to miss events.
 */
export class KeyStore implements KeyLookup {
  private byHash = new Map<string, KeyRecord>();
  private all: readonly KeyRecord[] = [];
  /** The version of the file last read, good or bad; null when there was none. */
  private stamp: FileStamp | null = null;
  private lastReported: string | null = null;
  private checkedThisTurn = false;

  private constructor(
    private readonly path: string,
    private readonly onError: (error: KeyStoreError) => void,
    private readonly recheck: 'every-lookup' | 'every-turn',
  ) {}

  /** Load the store; throws KeyStoreError when the file is unreadable or invalid. No file: no keys yet. */
  static open(stateDir: string, options: KeyStoreOptions = {}): KeyStore {
    ensurePrivateDir(stateDir);
    const store = new KeyStore(keysPath(stateDir), options.onError ?? (() => {}), options.recheck ?? 'every-lookup');
    store.use(readKeysFile(store.path));
    return store;
  }

  /** The active key with this value, if any; revoked keys are not found. */
  lookup(plainKey: string): KeyRecord | undefined {
    this.refresh();
    if (!KEY_PATTERN.test(plainKey)) return undefined;
    return this.byHash.get(hashKey(plainKey));
  }

  /** Every key, revoked ones included, as of the latest good version of the file. */
  records(): readonly KeyRecord[] {
    this.refresh();
    return this.all;
  }

  private use(loaded: { records: KeyRecord[]; stamp: FileStamp } | null): void {
    // No file (never created, or deleted while running) means no keys: failing closed is the
    // safe reading of a deleted store.
    this.all = Object.freeze(loaded?.records ?? []);
    this.byHash = new Map(this.all.filter((r) => r.revoked_at === null).map((r) => [r.hash, r]));
    this.stamp = loaded?.stamp ?? null;
    this.lastReported = null;
  }

  /**
   * Check whether the file changed: before every lookup, or (for the server) once per
   * event-loop turn. The latter is still "the very next request": every request handled in a
   * turn arrived before that turn's poll returned, so a change finished before a client sent
   * its request was made before the check that serves it.
   */
  private refresh(): void {
    if (this.checkedThisTurn) return;
    if (this.recheck === 'every-turn') {
      this.checkedThisTurn = true;
      setImmediate(() => (this.checkedThisTurn = false));
    }
    let current: FileStamp | null;
    try {
      current = stampOf(statSync(this.path, { throwIfNoEntry: false }));
    } catch (error) {
      this.report(new KeyStoreError(`cannot stat ${this.path}: ${(error as Error).message}`));
      return;
    }
    if (sameStamp(current, this.stamp)) return;
    try {
      this.use(readKeysFile(this.path));
    } catch (error) {
      if (!(error instanceof KeyStoreError)) throw error;
      // A broken file (a bad hand edit) keeps the last good keys instead of locking every
      // client out, and is reported once: the stamp is remembered, so it is not re-read on
      // every request until it changes again. Revocations in the broken version wait for a fix.
      this.stamp = current;
      this.report(error);
    }
  }

  private report(error: KeyStoreError): void {
    if (error.message === this.lastReported) return;
    this.lastReported = error.message;
    this.onError(error);
  }
}
