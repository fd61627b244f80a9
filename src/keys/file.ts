/**
 * The key store on disk: `keys.json` in the private state folder (format, parsing with errors
 * that name the key and field, atomic rewrites) and the lock that keeps two keys commands from
 * losing each other's change.
 */
import { closeSync, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { KEY_ID_PATTERN, KEY_SCOPES, KEYS_FORMAT, KeyStoreError, keysPath, MAX_QUOTA, NAME_PATTERN, PROVIDER_SLUG_PATTERN, type KeyRecord } from './record.ts';
import type { ErrorObject } from 'ajv';
import { createAjv, TRUSTED_SCHEMAS } from '../shared/ajv.ts';
import { isAccessError, ownershipNote } from '../shared/file-owner.ts';
import { takePidLock } from '../shared/pid-lock.ts';
import { TIERS } from '../shared/routes.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE, writeFileAtomic, type Keep } from '../shared/state-files.ts';
import { keepForWrites } from './store-owner.ts';

export const keysFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'keys'],
  properties: {
    format: { const: KEYS_FORMAT },
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

/** The records of a valid file, frozen, and all of them (revoked ones too) by hash. */
export interface KeysFile {
  records: KeyRecord[];
  byHash: Map<string, KeyRecord>;
}

function parseKeysFile(path: string, text: string): KeysFile {
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
  const records = data.keys;
  // One pass finds repeats and builds the server's index: at 100,000 keys two Maps of indexes,
  // a copy of every record and a second Map took 430 ms (scripts/bench/keys-scale.ts).
  const ids = new Set<string>();
  const byHash = new Map<string, KeyRecord>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (ids.has(record.id)) throw repeated(path, records, i, 'id');
    ids.add(record.id);
    if (byHash.has(record.hash)) throw repeated(path, records, i, 'hash');
    // Fresh from JSON.parse, so nothing else holds it: frozen where it is, not copied.
    Object.freeze(record.grants);
    byHash.set(record.hash, Object.freeze(record));
  }
  return { records, byHash };
}

function repeated(path: string, records: readonly KeyRecord[], i: number, field: 'id' | 'hash'): KeyStoreError {
  const first = records.findIndex((r) => r[field] === records[i][field]);
  return new KeyStoreError(`${path} is not a valid key store: /keys/${i}/${field} repeats /keys/${first}/${field}`);
}

export function freezeRecord(record: KeyRecord): KeyRecord {
  return Object.freeze({ ...record, grants: Object.freeze([...record.grants]) });
}

export interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

export function stampOf(stats: Stats | undefined): FileStamp | null {
  return stats ? { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs } : null;
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  if (a === null || b === null) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/** The file could not be read (or looked at) this time (its owner or mode, descriptors exhausted, an I/O error): worth another try. */
export class KeyFileUnreadable extends KeyStoreError {}

/** The failure to read (or look at) the key file, with the owner named when access was refused. */
export function unreadable(verb: 'read' | 'look at', path: string, error: unknown): KeyFileUnreadable {
  return new KeyFileUnreadable(`cannot ${verb} ${path}: ${(error as Error).message}${isAccessError(error) ? `; ${ownerAdvice(path)}` : ''}`);
}

/** What a refused read most often means here: the keys command was run as another user than the server. */
function ownerAdvice(path: string): string {
  const note = ownershipNote(path);
  return `${note ? `${note}. ` : ''}Was the keys command run as another user? Give the state folder and its files back to the user the server runs as (chown -R), and run the keys command as that user`;
}

/** Read the key file; null when there is none yet. The stamp is of the very bytes read. */
export function readKeysFile(path: string): (KeysFile & { stamp: FileStamp }) | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw unreadable('read', path, error);
  }
  let stamp: FileStamp;
  let text: string;
  try {
    stamp = stampOf(fstatSync(fd)) as FileStamp;
    // Read whole, then decoded: 71 ms against 111 ms for readFileSync's own utf8 at 100,000 keys (37 MB).
    text = readFileSync(fd).toString('utf8');
  } catch (error) {
    throw unreadable('read', path, error);
  } finally {
    closeSync(fd);
  }
  return { ...parseKeysFile(path, text), stamp };
}

/** The keys in the store, revoked ones included; null when no store exists yet. */
export function loadKeys(stateDir: string): KeyRecord[] | null {
  return readKeysFile(keysPath(stateDir))?.records ?? null;
}

/** Only under the store lock, which has made the folder private and says what the file keeps (its owner and mode). */
export function saveKeys(stateDir: string, records: readonly KeyRecord[], keep: Keep): void {
  writeFileAtomic(keysPath(stateDir), `${JSON.stringify({ format: KEYS_FORMAT, keys: records }, null, 2)}\n`, keep);
}

const LOCK_WAIT_MS = 5000;

/**
 * Changes read, modify and rewrite the file; the lock keeps two keys commands from losing each
 * other's change. Whose the files are is settled first: a user who could not keep the store's
 * owner is refused before anything is made or changed (see store-owner.ts); `change` is told
 * what the files it writes keep.
 */
export function withStoreLock<T>(stateDir: string, change: (keep: Keep) => T): T {
  const keep = keepForWrites(stateDir);
  ensurePrivateDir(stateDir);
  const lock = `${keysPath(stateDir)}.lock`;
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    const taken = takePidLock(lock, PRIVATE_FILE_MODE, keep.owner);
    if (typeof taken === 'function') {
      try {
        return change(keep);
      } finally {
        taken();
      }
    }
    if (performance.now() > deadline) throw new KeyStoreError(`${lock} is held by another keys command (pid ${taken.holder}); if none is running, delete it`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}

/** Load, change and save the store under the lock; `change` edits the list in place. */
export function updateKeys<T>(stateDir: string, change: (records: KeyRecord[]) => T): T {
  return withStoreLock(stateDir, (keep) => {
    const records = loadKeys(stateDir) ?? [];
    const result = change(records);
    saveKeys(stateDir, records, keep);
    return result;
  });
}
