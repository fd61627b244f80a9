/**
 * The key records in Redis as the keys command and the admin listener read and change them
 * (redis-keys.ts is the servers' lookup of a request's key; redis-scripts.ts lays out both).
 *
 * Changes are the same KeyChange functions the file store applies, made safe against concurrent
 * commands by a check-and-set: they are written only if every record they touch is still as it
 * was read, else read and applied again. With --store-replicas a change is confirmed on that many
 * replicas (WAIT) before the command reports it done. Every write leaves the store's marker.
 */
import { runLookingUp, type KeyChange } from './table.ts';
import { KeyStoreError, parseRecord } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { RedisClient } from '../redis/client.ts';
import { ADOPT, CHANGE_COUNT, CHANGES, INDEX, PUT, RECORDS, STORE_MARKER } from './redis-scripts.ts';

/** Reads and writes of a change before it gives up, records changing under it each time. */
const MAX_ATTEMPTS = 20;

interface Stored {
  records: KeyRecord[];
  /** The JSON each record was read as, by id: what a check-and-set compares against. */
  json: Map<string, string>;
}

export class RedisRecords {
  constructor(
    private readonly client: RedisClient,
    /** For the marker's `created_at`. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Add the marker to a store written before it existed; true when it did. */
  async adopt(): Promise<boolean> {
    return (await this.client.eval(ADOPT, [RECORDS, STORE_MARKER], [this.markerJson()])) === 1;
  }

  /**
   * Write the marker if absent: the store is this Redis's from now on, even with no key in it (keys
   * migrate of an empty folder).
   */
  async mark(): Promise<void> {
    await this.client.sendReplicated(['SET', STORE_MARKER, this.markerJson(), 'NX']);
  }

  private markerJson(): string {
    return JSON.stringify({ created_at: new Date(this.clock.now()).toISOString() });
  }

  /** One key by its id, revoked or not; null when no key has it. */
  async record(id: string): Promise<KeyRecord | null> {
    const text = (await this.client.send(['HGET', RECORDS, id])) as string | null;
    return text === null ? null : parseRecord(text);
  }

  /** Every key, revoked ones included, oldest first. */
  async records(): Promise<KeyRecord[]> {
    return (await this.read()).records;
  }

  private async read(): Promise<Stored> {
    const values = (await this.client.send(['HVALS', RECORDS])) as string[];
    const json = new Map<string, string>();
    const records = values.map((text) => {
      const record = parseRecord(text);
      json.set(record.id, text);
      return record;
    });
    records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return { records, json };
  }

  /**
   * Apply a change of the keys command; throws what it throws (KeyStoreError, KeyInputError). It
   * reads the keys it touches (runLookingUp: HMGET), not every key: at 100,000 keys reading them
   * all (HVALS) for a change took some 27 MB a change.
   */
  async update<T>(change: KeyChange<T>): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const json = new Map<string, string>();
      const { result, pending } = await runLookingUp(change, async (ids) => {
        const texts = (await this.client.send(['HMGET', RECORDS, ...ids])) as (string | null)[];
        const found = new Map<string, KeyRecord | null>();
        [...ids].forEach((id, i) => {
          const text = texts[i] ?? null;
          if (text !== null) json.set(id, text);
          found.set(id, text === null ? null : parseRecord(text));
        });
        return found;
      });
      if (pending.size === 0 || (await this.put([...pending.values()], json))) return result;
    }
    throw new KeyStoreError(`the keys in Redis kept changing under this command (${MAX_ATTEMPTS} attempts); try again`);
  }

  /**
   * Add records from a state folder (keys migrate): each one absent is added, one already
   * there as it is is left alone, one there with other contents is a conflict (not changed).
   */
  async import(records: readonly KeyRecord[]): Promise<{ added: number; present: number; conflicts: string[] }> {
    const { json } = await this.read();
    const outcome = { added: 0, present: 0, conflicts: [] as string[] };
    for (const record of records) {
      const existing = json.get(record.id);
      if (existing === undefined && (await this.put([record], json))) outcome.added++;
      else if (existing === JSON.stringify(record)) outcome.present++;
      else outcome.conflicts.push(record.id);
    }
    return outcome;
  }

  private async put(changed: readonly KeyRecord[], json: Map<string, string>): Promise<boolean> {
    const args = [this.markerJson()];
    for (const record of changed) {
      const old = json.get(record.id);
      const oldHashes = old === undefined ? '' : indexedHashes(JSON.parse(old) as KeyRecord);
      args.push(record.id, old ?? '', JSON.stringify(record), oldHashes, indexedHashes(record));
    }
    return (await this.client.evalReplicated(PUT, [RECORDS, INDEX, STORE_MARKER, CHANGES, CHANGE_COUNT], args)) === 1;
  }
}

/**
 * The hashes the index finds a record by, comma-separated for the PUT script: none when revoked,
 * else its value's and, while the record holds one, its replaced value's (the lookup decides
 * whether that still works, by the request's clock).
 */
function indexedHashes(record: KeyRecord): string {
  if (record.revoked_at !== null) return '';
  return record.previous ? `${record.hash},${record.previous.hash}` : record.hash;
}
