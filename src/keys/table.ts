/**
 * The keys a change of the keys command sees (changes.ts), whichever store holds them: the file
 * store finds a key by its id without reading every record (file-append.ts; a server, between
 * turns: file-change.ts), Redis and a new store hold a list (listTable).
 */
import type { KeyRecord } from '../state/key-record.ts';

/** The keys a change reads and writes. */
export interface KeyTable {
  /** The record with this id, revoked or not. */
  byId(id: string): KeyRecord | undefined;
  /** Store a new record, or a changed copy of one (records are never mutated). */
  put(record: KeyRecord): void;
  /**
   * An id no key holds: the first of `draw`'s ids that is free. A table that looks ids up between
   * turns (file-change.ts) runs a change again once it has, and hands out the same ids again.
   */
  freshId(draw: () => string): string;
}

/** `freshId` for a table that answers every id at once. */
export function firstFree(byId: (id: string) => KeyRecord | undefined, draw: () => string): string {
  for (;;) {
    const id = draw();
    if (byId(id) === undefined) return id;
  }
}

/** A table over a list of records, in order, that keeps the records put in it. */
export function listTable(records: readonly KeyRecord[]): KeyTable & { records: KeyRecord[]; changed: KeyRecord[] } {
  const list = [...records];
  const at = new Map(list.map((r, i) => [r.id, i]));
  const changed: KeyRecord[] = [];
  const byId = (id: string) => list[at.get(id) ?? -1];
  return {
    records: list,
    changed,
    byId,
    freshId: (draw) => firstFree(byId, draw),
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
 * keys command prints. Each store applies it its own way: the file under its lock (updateKeys;
 * a server, changeKeysInTurns), Redis with a check-and-set (redis-keys.ts). It changes nothing but the
 * table and lets whatever the table throws pass: a store may run it again (file-change.ts).
 */
export type KeyChange<T> = (table: KeyTable) => T;
