/**
 * The keys a change of the keys command sees (changes.ts), whichever store holds them: the file
 * store finds a key by its id without reading every record (file-append.ts), Redis and a new
 * store hold a list (listTable).
 */
import type { KeyRecord } from './record.ts';

/** The keys a change reads and writes. */
export interface KeyTable {
  /** The record with this id, revoked or not. */
  byId(id: string): KeyRecord | undefined;
  /** Store a new record, or a changed copy of one (records are never mutated). */
  put(record: KeyRecord): void;
}

/** A table over a list of records, in order, that keeps the records put in it. */
export function listTable(records: readonly KeyRecord[]): KeyTable & { records: KeyRecord[]; changed: KeyRecord[] } {
  const list = [...records];
  const at = new Map(list.map((r, i) => [r.id, i]));
  const changed: KeyRecord[] = [];
  return {
    records: list,
    changed,
    byId: (id) => list[at.get(id) ?? -1],
    put(record) {
      const i = at.get(record.id);
      if (i === undefined) at.set(record.id, list.push(record) - 1);
      else list[i] = record;
      changed.push(record);
    },
  };
}

/**
 * A change to the keys: it puts new records or changed copies in the table, and returns what the
 * keys command prints. Each store applies it its own way: the file under its lock (updateKeys),
 * Redis with a check-and-set (redis.ts).
 */
export type KeyChange<T> = (table: KeyTable) => T;
