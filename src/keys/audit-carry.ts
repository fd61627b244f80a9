/**
 * A state folder's audit trail carried into Redis (`keys migrate`): every entry of `audit.log`,
 * in the file's order and as written (its own `at`, actor and changes), added to the stream
 * `bda:audit` under a stream id made from its time, so the stream stays in time order and
 * `keys audit` and the admin API list the carried entries where they belong.
 *
 * Running it again adds nothing: an entry's id depends only on the entries before it in the file,
 * so a second run finds each carried entry under the same id with the same text. A stream grows
 * only at its end, so an entry older than the newest one Redis holds can only be found there, not
 * added: when any such entry is missing (changes were made on Redis before the folder's trail was
 * carried), none is added, since the trail would list them out of order; the caller says so, and
 * `audit.log` stays the record of what came before. Lines that are not entries (a hand edit, a
 * line a crash cut short) are skipped and counted.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { RedisCommandError, type RedisClient } from '../redis/client.ts';
import { AUDIT_FILE, AUDIT_REDIS_KEY, AUDIT_STREAM_MAX } from './audit.ts';
import { KeyStoreError } from './record.ts';

export interface CarriedAudit {
  added: number;
  /** Carried by an earlier run: found under its id, the same. */
  present: number;
  /** Not carried: older than the newest entry Redis held, and not there. */
  older: number;
  /** Lines of the file that are not audit entries. */
  skipped: number;
  /** When the newest entry Redis held was made (its stream id's time); null when the stream was empty. */
  redisNewest: string | null;
}

/** Commands in flight at once: enough to fill the pipeline, few enough to bound the memory held. */
const BATCH = 500;
const CHUNK = 64 * 1024;

type StreamId = readonly [ms: number, seq: number];

const idText = ([ms, seq]: StreamId) => `${ms}-${seq}`;
const after = (a: StreamId, b: StreamId) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/** The whole lines of a file in order (a last line without its newline was cut short: not one). */
function* linesOf(path: string): Generator<string> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new KeyStoreError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let rest = Buffer.alloc(0);
    for (let read; (read = readSync(fd, chunk, 0, CHUNK, null)) > 0;) {
      const bytes = Buffer.concat([rest, chunk.subarray(0, read)]);
      let start = 0;
      for (let nl; (nl = bytes.indexOf(10, start)) !== -1; start = nl + 1)
        yield bytes.subarray(start, nl).toString('utf8');
      rest = bytes.subarray(start);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The file's entries with their stream ids: from `at`, kept increasing in file order (a clock that
 * stepped back, two commands at one millisecond).
 */
function* entriesOf(path: string, outcome: CarriedAudit): Generator<{ id: StreamId; json: string }> {
  let last: StreamId = [0, 0];
  for (const line of linesOf(path)) {
    if (!line.trim()) continue;
    let entry: { at?: unknown } | null;
    try {
      entry = JSON.parse(line) as { at?: unknown } | null;
    } catch {
      entry = null;
    }
    const ms = typeof entry?.at === 'string' ? Date.parse(entry.at) : NaN;
    if (!(ms > 0)) {
      outcome.skipped++;
      continue;
    }
    last = ms > last[0] ? [ms, 0] : [last[0], last[1] + 1];
    yield { id: last, json: JSON.stringify(entry) };
  }
}

/** The id of the newest entry in the stream, or null. */
async function newestId(client: RedisClient): Promise<StreamId | null> {
  const reply = (await client.send(['XREVRANGE', AUDIT_REDIS_KEY, '+', '-', 'COUNT', 1])) as
    [string, string[]][] | null;
  const id = reply?.[0]?.[0];
  if (id === undefined) return null;
  const [ms, seq] = id.split('-').map(Number);
  return [ms, seq];
}

/** Whether the stream holds `json` under `id`. XREVRANGE, not XRANGE: the one the documented ACL user may run. */
async function holds(client: RedisClient, id: StreamId, json: string): Promise<boolean> {
  const reply = (await client.send(['XREVRANGE', AUDIT_REDIS_KEY, idText(id), idText(id)])) as
    [string, string[]][] | null;
  const fields = reply?.[0]?.[1] ?? [];
  return fields[fields.indexOf('entry') + 1] === json;
}

/** Add one entry under its id; false when the stream has moved past it meanwhile (a change made on Redis now). */
async function add(client: RedisClient, id: StreamId, json: string): Promise<boolean> {
  try {
    await client.sendReplicated(['XADD', AUDIT_REDIS_KEY, 'MAXLEN', '~', AUDIT_STREAM_MAX, idText(id), 'entry', json]);
    return true;
  } catch (error) {
    if (error instanceof RedisCommandError && /equal or smaller/i.test(error.message)) return false;
    throw error;
  }
}

/** Carry the folder's audit trail into Redis (see the top of this file). */
export async function carryAudit(client: RedisClient, stateDir: string): Promise<CarriedAudit> {
  const top = await newestId(client);
  const outcome: CarriedAudit = {
    added: 0,
    present: 0,
    older: 0,
    skipped: 0,
    redisNewest: top && new Date(top[0]).toISOString(),
  };
  let batch: Promise<void>[] = [];
  const flush = async () => {
    await Promise.all(batch);
    batch = [];
  };
  // Ids increase in file order, so the entries at or before Redis's newest come first: every
  // one of them is checked before the first is added.
  let checked = top === null;
  for (const { id, json } of entriesOf(join(stateDir, AUDIT_FILE), outcome)) {
    if (!checked && !after(id, top!))
      batch.push(holds(client, id, json).then((found) => void (found ? outcome.present++ : outcome.older++)));
    else {
      if (!checked) {
        await flush();
        checked = true;
      }
      if (outcome.older > 0) outcome.older++;
      else batch.push(add(client, id, json).then((added) => void (added ? outcome.added++ : outcome.older++)));
    }
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return outcome;
}
