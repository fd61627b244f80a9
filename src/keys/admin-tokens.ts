/**
 * Admin tokens: what every request to the admin listener carries (src/admin/listener.ts). Made,
 * listed and revoked by the keys command only (`keys admin-token ...`): the admin API cannot
 * mint its own credentials. Like API keys, a token is shown once and stored as its SHA-256;
 * a presented token is hashed and compared with every active record in constant time, so
 * neither a token's bytes nor which record was close leak through timing.
 *
 * The file store keeps them in `admin-tokens.json` in the private state folder (rewritten whole,
 * atomically, under the key store's lock: tokens are few and change seldom); Redis in the hash
 * `bda:admin-tokens`, one field a token, so every server sharing that Redis accepts the same ones.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../lib/clock.ts';
import type { Eventually } from '../lib/eventually.ts';
import { withStoreLock } from './store-lock.ts';
import { hashKey, KeyInputError, KeyStoreError, NAME_PATTERN } from './record.ts';
import type { RedisClient } from '../redis/client.ts';
import { REDIS_PREFIX } from '../redis/keyspace.ts';
import { writeFileAtomic } from '../shared/state-files.ts';

export const ADMIN_TOKEN_PREFIX = 'bdat_';
export const ADMIN_TOKEN_PATTERN = /^bdat_[A-Za-z0-9_-]{43}$/;
export const ADMIN_TOKEN_ID_PATTERN = /^adm_[0-9a-f]{12}$/;
export const ADMIN_TOKENS_FILE = 'admin-tokens.json';
/** Format of admin-tokens.json as written (and read: the only one so far). */
export const ADMIN_TOKENS_FORMAT = 1;
export const ADMIN_TOKENS_REDIS_KEY = `${REDIS_PREFIX}admin-tokens`;

export interface AdminTokenRecord {
  /** Public id (`adm_` + 12 hex): what the audit trail names. */
  readonly id: string;
  readonly hash: string;
  /** Whose or what it is for (a person, a billing system), as the operator named it. */
  readonly name: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

export type PublicAdminToken = Omit<AdminTokenRecord, 'hash'>;

export function publicToken({ id, name, created_at, revoked_at }: AdminTokenRecord): PublicAdminToken {
  return { id, name, created_at, revoked_at };
}

/** Where tokens are kept: the state folder or Redis. */
export interface AdminTokenStore {
  /** Every token, revoked ones included. */
  list(): Eventually<AdminTokenRecord[]>;
  /** Issue a token; the plain token is returned once. */
  create(name: string, clock: Clock): Eventually<{ token: string; record: AdminTokenRecord }>;
  revoke(id: string, clock: Clock): Eventually<AdminTokenRecord>;
}

function checkTokenName(name: string): string {
  if (!NAME_PATTERN.test(name))
    throw new KeyInputError(
      `--name must be 1 to 100 letters, digits or . _ @ + - (starting with a letter or digit), got ` +
        `${JSON.stringify(name)}`,
    );
  return name;
}

function issue(
  name: string,
  clock: Clock,
  taken: (id: string) => boolean,
): { token: string; record: AdminTokenRecord } {
  const token = ADMIN_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  let id: string;
  do id = `adm_${randomBytes(6).toString('hex')}`;
  while (taken(id));
  return {
    token,
    record: {
      id,
      hash: hashKey(token),
      name: checkTokenName(name),
      created_at: new Date(clock.now()).toISOString(),
      revoked_at: null,
    },
  };
}

function revoked(records: readonly AdminTokenRecord[], id: string, clock: Clock): AdminTokenRecord {
  const record = records.find((r) => r.id === id);
  if (!record) throw new KeyStoreError(`no admin token with id ${id}`);
  if (record.revoked_at !== null) throw new KeyStoreError(`admin token ${id} was revoked at ${record.revoked_at}`);
  return { ...record, revoked_at: new Date(clock.now()).toISOString() };
}

/** A record as stored, checked field by field: a hand-edited file must not let a malformed record in. */
function parseRecord(value: unknown, where: string): AdminTokenRecord {
  const r = value as Record<string, unknown>;
  const ok =
    typeof r === 'object' &&
    r !== null &&
    typeof r.id === 'string' &&
    ADMIN_TOKEN_ID_PATTERN.test(r.id) &&
    typeof r.hash === 'string' &&
    /^[0-9a-f]{64}$/.test(r.hash) &&
    typeof r.name === 'string' &&
    typeof r.created_at === 'string' &&
    (r.revoked_at === null || typeof r.revoked_at === 'string');
  if (!ok) throw new KeyStoreError(`${where}: not an admin token record`);
  return {
    id: r.id as string,
    hash: r.hash as string,
    name: r.name as string,
    created_at: r.created_at as string,
    revoked_at: r.revoked_at as string | null,
  };
}

/** The state folder's tokens. */
export function fileTokenStore(stateDir: string): AdminTokenStore {
  const path = join(stateDir, ADMIN_TOKENS_FILE);
  const read = (): AdminTokenRecord[] => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new KeyStoreError(`cannot read ${path}: ${(error as Error).message}`);
    }
    let parsed: { tokens?: unknown };
    try {
      parsed = JSON.parse(text) as { tokens?: unknown };
    } catch {
      throw new KeyStoreError(`${path} is not valid JSON`);
    }
    if (!Array.isArray(parsed.tokens)) throw new KeyStoreError(`${path} holds no "tokens" list`);
    return parsed.tokens.map((t, i) => parseRecord(t, `${path}, token ${i + 1}`));
  };
  const write = (records: AdminTokenRecord[], keep: Parameters<typeof writeFileAtomic>[2]) =>
    writeFileAtomic(path, `${JSON.stringify({ format: ADMIN_TOKENS_FORMAT, tokens: records }, null, 1)}\n`, keep);
  return {
    list: read,
    create: (name, clock) =>
      withStoreLock(stateDir, (keep) => {
        const records = read();
        const issued = issue(name, clock, (id) => records.some((r) => r.id === id));
        write([...records, issued.record], keep);
        return issued;
      }),
    revoke: (id, clock) =>
      withStoreLock(stateDir, (keep) => {
        const records = read();
        const record = revoked(records, id, clock);
        write(
          records.map((r) => (r.id === id ? record : r)),
          keep,
        );
        return record;
      }),
  };
}

/** The tokens every server sharing this Redis accepts. */
export function redisTokenStore(client: RedisClient): AdminTokenStore {
  const list = async (): Promise<AdminTokenRecord[]> => {
    const reply = (await client.send(['HGETALL', ADMIN_TOKENS_REDIS_KEY])) as string[] | null;
    const records: AdminTokenRecord[] = [];
    for (let i = 0; reply && i + 1 < reply.length; i += 2) {
      let value: unknown;
      try {
        value = JSON.parse(reply[i + 1]);
      } catch {
        throw new KeyStoreError(`${ADMIN_TOKENS_REDIS_KEY} field ${reply[i]} is not valid JSON`);
      }
      records.push(parseRecord(value, `${ADMIN_TOKENS_REDIS_KEY} field ${reply[i]}`));
    }
    return records.sort((a, b) => a.created_at.localeCompare(b.created_at));
  };
  return {
    list,
    async create(name, clock) {
      checkTokenName(name);
      for (;;) {
        const issued = issue(name, clock, () => false);
        // HSETNX: an id already taken (twelve random hex digits, so all but never) is drawn again.
        if (
          (await client.sendReplicated([
            'HSETNX',
            ADMIN_TOKENS_REDIS_KEY,
            issued.record.id,
            JSON.stringify(issued.record),
          ])) === 1
        )
          return issued;
      }
    },
    async revoke(id, clock) {
      const record = revoked(await list(), id, clock);
      await client.sendReplicated(['HSET', ADMIN_TOKENS_REDIS_KEY, id, JSON.stringify(record)]);
      return record;
    },
  };
}

/**
 * Copy a state folder's tokens into Redis as they are (`keys migrate`): hash, id, name and times,
 * so a token made on the folder signs in to every server on this Redis. A token Redis already
 * holds the same is counted present; one it holds under the same id with other contents is a
 * conflict, left as Redis has it (as key conflicts are: the operator decides which is right).
 */
export async function importTokens(
  client: RedisClient,
  records: readonly AdminTokenRecord[],
): Promise<{ added: number; present: number; conflicts: string[] }> {
  const outcome = { added: 0, present: 0, conflicts: [] as string[] };
  for (const record of records) {
    const json = JSON.stringify(record);
    // HSETNX: a token another host adds meanwhile is never overwritten, only compared.
    if ((await client.sendReplicated(['HSETNX', ADMIN_TOKENS_REDIS_KEY, record.id, json])) === 1) {
      outcome.added++;
      continue;
    }
    // Both sides were written by this module, fields in one order: equal records are equal text.
    if ((await client.send(['HGET', ADMIN_TOKENS_REDIS_KEY, record.id])) === json) outcome.present++;
    else outcome.conflicts.push(record.id);
  }
  return outcome;
}

/**
 * The active token a presented one matches, or null. Every active record is compared, each in
 * constant time, whatever matched before: the time taken depends on how many tokens exist, not on
 * what was presented.
 */
export function matchToken(records: readonly AdminTokenRecord[], presented: string): AdminTokenRecord | null {
  const wanted = Buffer.from(hashKey(presented), 'hex');
  let found: AdminTokenRecord | null = null;
  for (const record of records) {
    if (record.revoked_at !== null) continue;
    const equal = timingSafeEqual(wanted, Buffer.from(record.hash, 'hex'));
    if (equal && found === null) found = record;
  }
  return found;
}
