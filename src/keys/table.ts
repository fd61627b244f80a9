/**
 * The keys a change of the keys command sees (changes.ts), whichever store holds them: the file
 * store finds a key by its id without reading every record (file-append.ts; a server, between
 * turns: file-change.ts, by runLookingUp), Redis looks up the keys a change reads (runLookingUp),
 * and a new store holds a list (listTable).
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

/** A change asks for one key, two at most: more runs than this is a bug. */
const MAX_RUNS = 8;

/** Thrown by the table when the change asks for a key not looked up yet. */
class NotLookedUp extends Error {}

/** A table over the keys looked up so far (null: no such key) that notes each one asked for and not looked up. */
function lookingUpTable(
  known: Map<string, KeyRecord | null>,
  drawn: string[],
): KeyTable & { pending: Map<string, KeyRecord>; missing: Set<string> } {
  const pending = new Map<string, KeyRecord>();
  const missing = new Set<string>();
  const byId = (id: string): KeyRecord | undefined => {
    const put = pending.get(id);
    if (put) return put;
    const record = known.get(id);
    if (record !== undefined) return record ?? undefined;
    missing.add(id);
    throw new NotLookedUp(id);
  };
  let draws = 0;
  // The ids drawn by the runs before, in the same order, then new ones.
  const again = (draw: () => string) => () => {
    if (draws === drawn.length) drawn.push(draw());
    return drawn[draws++];
  };
  return {
    pending,
    missing,
    byId,
    put: (record) => pending.set(record.id, record),
    freshId: (draw) => firstFree(byId, again(draw)),
  };
}

/**
 * Run a change against the keys looked up so far; when it asks for one not looked up yet, look
 * that one up (`lookUp`: each id's record, null for none) and run it again from the start (a change
 * touches nothing but its table, and a new key's id is drawn again as before: KeyTable.freshId). A
 * revoke runs twice, a create twice. What the change returned, and the records it put.
 */
export async function runLookingUp<T>(
  change: KeyChange<T>,
  lookUp: (ids: ReadonlySet<string>) => Promise<ReadonlyMap<string, KeyRecord | null>>,
): Promise<{ result: T; pending: Map<string, KeyRecord> }> {
  const known = new Map<string, KeyRecord | null>();
  const drawn: string[] = [];
  for (let run = 1; ; run++) {
    const table = lookingUpTable(known, drawn);
    try {
      return { result: change(table), pending: table.pending };
    } catch (error) {
      if (!(error instanceof NotLookedUp) || run === MAX_RUNS) throw error;
    }
    for (const [id, record] of await lookUp(table.missing)) known.set(id, record);
  }
}
