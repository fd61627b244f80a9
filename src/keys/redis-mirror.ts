/**
 * Every key in Redis, held in memory by a server's admin listener for its table, as the state
 * folder's server holds its keys anyway (ActiveKeys). Read whole once, a step at a time (HSCAN),
 * then kept as Redis has them by reading only what changed since: the entries of the keys' changes
 * stream (CHANGES, written by the same script that writes a record) and those records (HMGET). A
 * page of the table reads the changes since the last one, not every key.
 *
 * Read again whole when the changes cannot say what changed: the store's marker is not the one
 * read with (Redis lost its data, or another store took its place), or the changes' count has a
 * gap (the stream was trimmed past them: CHANGES_KEPT).
 */
import type { RedisClient } from '../redis/client.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { parseRecord } from './record.ts';
import { CHANGE_COUNT, CHANGES, RECORDS, STORE_MARKER } from './redis-scripts.ts';

/** Records asked for in one HSCAN or HMGET, and changes in one XREVRANGE: a few milliseconds of parsing each. */
const STEP = 1000;

type StreamEntry = [id: string, fields: string[]];

interface Change {
  at: string;
  n: number;
  id: string;
}

export class RedisMirror {
  private records = new Map<string, KeyRecord>();
  private loaded = false;
  /** The store's marker as it was when the records were read. */
  private marker: string | null = null;
  /** The stream entry of the last change read, and its count. */
  private lastAt = '0-0';
  private count = 0;
  /** The read under way: each one starts after the one before, so none answers from before it was asked. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Whole reads so far (a test's and an operator's figure). */
  wholeReads = 0;

  constructor(private readonly client: Pick<RedisClient, 'send'>) {}

  /** Every key, revoked ones too, by id, as Redis holds them now. */
  fresh(): Promise<ReadonlyMap<string, KeyRecord>> {
    const read = this.turn.then(() => this.refresh());
    this.turn = read.catch(() => {});
    return read;
  }

  private async refresh(): Promise<ReadonlyMap<string, KeyRecord>> {
    if (!this.loaded) return this.readWhole();
    // Sent together, read by Redis in this order: a change made meanwhile is in the count and the
    // stream, or in the stream alone.
    const [marker, count, changes] = await Promise.all([
      this.client.send(['GET', STORE_MARKER]),
      this.client.send(['HGET', CHANGE_COUNT, 'n']),
      this.changesSince(),
    ]);
    if (marker !== this.marker || !this.follows(Number(count ?? 0), changes)) return this.readWhole();
    await this.apply(changes);
    return this.records;
  }

  /**
   * Whether the changes since are all there is to read: counted on from the last one read without
   * a gap, and up to Redis's count (a count behind the last read is a store restored from before it).
   */
  private follows(count: number, changes: readonly Change[]): boolean {
    if (count < this.count || count > (changes.at(-1)?.n ?? this.count)) return false;
    return changes.every((change, i) => change.n === this.count + 1 + i);
  }

  /** Every record, a step at a time, then the changes made while they were read. */
  private async readWhole(): Promise<ReadonlyMap<string, KeyRecord>> {
    this.wholeReads++;
    // Until this read is done the keys held say nothing: a read that fails is made again whole.
    this.loaded = false;
    const marker = (await this.client.send(['GET', STORE_MARKER])) as string | null;
    const [newest] = (await this.client.send(['XREVRANGE', CHANGES, '+', '-', 'COUNT', 1])) as StreamEntry[];
    const last = newest ? changeOf(newest) : null;
    const count = last?.n ?? Number((await this.client.send(['HGET', CHANGE_COUNT, 'n'])) ?? 0);
    const records = new Map<string, KeyRecord>();
    let cursor = '0';
    do {
      const [next, flat] = (await this.client.send(['HSCAN', RECORDS, cursor, 'COUNT', STEP])) as [string, string[]];
      for (let i = 1; i < flat.length; i += 2) keep(records, flat[i]!);
      cursor = next;
    } while (cursor !== '0');
    // A new map, not the one held cleared: a page being made from the old one goes on with it.
    this.records = records;
    this.loaded = true;
    this.marker = marker;
    this.lastAt = last?.at ?? '0-0';
    this.count = count;
    // A record changed while the scan ran is among the changes since: read again, as it is now.
    return this.refresh();
  }

  /** The changes after the last one read, oldest first. */
  private async changesSince(): Promise<Change[]> {
    const changes: Change[] = [];
    for (let end = '+'; ;) {
      const entries = (await this.client.send(['XREVRANGE', CHANGES, end, `(${this.lastAt}`, 'COUNT', STEP])) as
        StreamEntry[] | null;
      for (const entry of entries ?? []) changes.push(changeOf(entry));
      if (!entries || entries.length < STEP) return changes.reverse();
      end = `(${entries.at(-1)![0]}`;
    }
  }

  /** The records the changes name, read as they are now. */
  private async apply(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return;
    const ids = [...new Set(changes.map((change) => change.id))];
    for (let from = 0; from < ids.length; from += STEP) {
      const some = ids.slice(from, from + STEP);
      const texts = (await this.client.send(['HMGET', RECORDS, ...some])) as (string | null)[];
      some.forEach((id, i) => {
        const text = texts[i];
        if (text === null || text === undefined) this.records.delete(id);
        else keep(this.records, text);
      });
    }
    const newest = changes.at(-1)!;
    this.lastAt = newest.at;
    this.count = newest.n;
  }
}

function keep(records: Map<string, KeyRecord>, text: string): void {
  const record = parseRecord(text);
  records.set(record.id, record);
}

function changeOf([at, fields]: StreamEntry): Change {
  const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
  return { at, n: Number(field('n')), id: field('id') };
}
