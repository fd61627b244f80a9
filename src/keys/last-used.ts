/**
 * When each key was last used: noted in memory by every request a key authenticates, written to
 * the store once every FLUSH_MS (the state folder's `last-used.txt`, or Redis), so the admin API
 * and the keys command show it at most a minute stale without a write per request. What is
 * written is advisory: a failed write keeps the notes for the next one and is said once in the
 * log, and nothing is refused for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../lib/clock.ts';
import { errorCode } from '../lib/error-code.ts';
import { writeFileAtomicAsync } from '../shared/state-files.ts';
import { KEY_ID_PATTERN } from './record.ts';
import { LuaScript, type RedisClient } from '../redis/client.ts';
import { REDIS_PREFIX } from '../redis/keyspace.ts';

/** How often the notes are written: twice a minute, so what is read is never more than a minute old. */
export const FLUSH_MS = 30_000;
export const LAST_USED_FILE = 'last-used.txt';
export const LAST_USED_REDIS_KEY = `${REDIS_PREFIX}last-used`;
/** Keys written to the file per part, a part a turn: 100,000 keys are 3 MB of text. */
const LINES_PER_PART = 5_000;
/** Keys a Redis script takes at once. */
const KEYS_PER_SCRIPT = 1_000;

/** When each key was last used, by id (milliseconds): a Map, or a lookup over the server's own. */
export type LastUses = Pick<ReadonlyMap<string, number>, 'get'>;

/** Where the notes go: all of them, to be merged with what is there (the latest time of each key wins). */
export interface LastUsedSink {
  write(notes: ReadonlyMap<string, number>): Promise<void>;
  /** Every key's time as written, where the sink holds them (the state folder's: its one writer holds all). */
  readonly written?: ReadonlyMap<string, number>;
}

export class LastUsed {
  private notes = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private failing = false;

  constructor(
    private readonly sink: LastUsedSink,
    private readonly clock: Clock,
    private readonly logError: (line: string) => void,
  ) {}

  /** A request authenticated with this key now: a Map set, nothing written. */
  note(id: string): void {
    this.notes.set(id, this.clock.now());
  }

  start(intervalMs = FLUSH_MS): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Write the notes since the last write; a failure keeps them for the next. */
  async flush(): Promise<void> {
    if (this.notes.size === 0) return;
    const batch = this.notes;
    this.notes = new Map();
    try {
      await this.sink.write(batch);
      if (this.failing) this.logError('last-used times are written again');
      this.failing = false;
    } catch (error) {
      for (const [id, at] of batch) if (!((this.notes.get(id) ?? -1) >= at)) this.notes.set(id, at);
      if (!this.failing)
        this.logError(`cannot write the keys' last-used times (kept for the next try): ${errorCode(error)}`);
      this.failing = true;
    }
  }

  /**
   * Each key's time as this server knows it, written or noted since, looked up where it is: a
   * table of 100,000 keys asks for each, and a copy of both maps would be made for every view. Only a
   * sink that holds what it wrote knows every key's: the state folder's, whose server is its one
   * writer. Read so by the server's own admin listener, in memory, at once.
   */
  lookup(): LastUses {
    const written = this.sink.written;
    return {
      get: (id) => {
        const at = Math.max(written?.get(id) ?? -1, this.notes.get(id) ?? -1);
        return at < 0 ? undefined : at;
      },
    };
  }

  /** Stop writing on a timer; a graceful stop then flushes once more, before the store closes. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The latest time of each key of `notes` folded into `into`. */
function merge(into: Map<string, number>, notes: ReadonlyMap<string, number>): void {
  for (const [id, at] of notes) if (!((into.get(id) ?? -1) >= at)) into.set(id, at);
}

/**
 * `last-used.txt`: a line a key, `key_0123456789ab 1764400000000` (its id, a space, milliseconds
 * since 1970). Read line by line without JSON: 100,000 keys. A line that is not so is skipped, and
 * no file means no key was used yet.
 */
export function readLastUsedFile(stateDir: string): Map<string, number> {
  let text: string;
  try {
    text = readFileSync(join(stateDir, LAST_USED_FILE), 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return new Map();
    throw error;
  }
  const times = new Map<string, number>();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    const id = line.slice(0, space);
    const at = Number(line.slice(space + 1));
    if (space > 0 && KEY_ID_PATTERN.test(id) && Number.isSafeInteger(at) && at > 0) times.set(id, at);
  }
  return times;
}

function* fileParts(times: ReadonlyMap<string, number>): Generator<string> {
  let part = '';
  let lines = 0;
  for (const [id, at] of times) {
    part += `${id} ${at}\n`;
    if (++lines % LINES_PER_PART === 0) {
      yield part;
      part = '';
    }
  }
  yield part;
}

/**
 * The state folder's sink: the server is the file's one writer (one server a state folder), so it
 * holds every key's time, read once at start, and rewrites the file whole (atomically, a part a
 * turn) with the new notes folded in.
 */
export function fileLastUsed(stateDir: string): LastUsedSink {
  const path = join(stateDir, LAST_USED_FILE);
  let times: Map<string, number>;
  try {
    times = readLastUsedFile(stateDir);
  } catch (error) {
    // Written over, the file would lose every other key's time: not written at all until a start
    // can read it (each flush fails, said once in the log).
    const unreadable = new Error(`${path} could not be read at start (${errorCode(error)}), so it is not rewritten`);
    return { write: () => Promise.reject(unreadable) };
  }
  return {
    written: times,
    async write(notes) {
      merge(times, notes);
      await writeFileAtomicAsync(path, fileParts(times));
    },
  };
}

/** KEYS: the hash. ARGV: pairs of id and time; each kept only when later than the one there. */
const KEEP_LATEST = new LuaScript(`
for i = 1, #ARGV, 2 do
  local now = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > now then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`);

/** Redis's sink: one hash of every server's notes, each key's latest time kept by a script. */
export function redisLastUsed(client: RedisClient): LastUsedSink {
  return {
    async write(notes) {
      let args: (string | number)[] = [];
      for (const [id, at] of notes) {
        args.push(id, at);
        if (args.length === 2 * KEYS_PER_SCRIPT) {
          await client.eval(KEEP_LATEST, [LAST_USED_REDIS_KEY], args);
          args = [];
        }
      }
      if (args.length > 0) await client.eval(KEEP_LATEST, [LAST_USED_REDIS_KEY], args);
    },
  };
}

/** Redis's times of these keys (every key's without ids: one HGETALL, at 100,000 keys 4 MB), by key id. */
export async function readLastUsedRedis(
  client: RedisClient,
  ids: readonly string[] | null,
): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  if (ids === null) {
    const flat = (await client.send(['HGETALL', LAST_USED_REDIS_KEY])) as string[];
    for (let i = 0; i < flat.length; i += 2) times.set(flat[i]!, Number(flat[i + 1]));
  } else if (ids.length > 0) {
    const values = (await client.send(['HMGET', LAST_USED_REDIS_KEY, ...ids])) as (string | null)[];
    ids.forEach((id, i) => values[i] != null && times.set(id, Number(values[i])));
  }
  return times;
}

/** The state folder's times of these keys (every key's without ids), as its server last wrote them. */
export function lastUsedInFile(stateDir: string, ids: readonly string[] | null): Map<string, number> {
  const all = readLastUsedFile(stateDir);
  if (ids === null) return all;
  return new Map(ids.flatMap((id) => (all.has(id) ? [[id, all.get(id)!] as const] : [])));
}
