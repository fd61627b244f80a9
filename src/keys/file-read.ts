/**
 * Reading the whole key store: every key as its last line says, in the order they were first
 * written, and where the file stands; at once (the keys command), or in turns of the event loop
 * (a server, which must keep answering meanwhile).
 */
import { closeSync } from 'node:fs';
import { invalidStore } from './file-format.ts';
import { openKeysFile, stampOfOpen, type FileStamp } from './file.ts';
import { recordsOf, type WholeRead } from './file-lines.ts';
import { keysPath, matchesFilter, type KeyFilter } from './record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { drain, drainInTurns } from '../lib/drain.ts';

/**
 * The keys of a key file, each as its last line says, in the order they were first written, and
 * where the file stands.
 */
export interface StoredKeys extends WholeRead {
  records: KeyRecord[];
  stamp: FileStamp;
}

/**
 * The keys of a whole read that a filter lets through (all of them without one), each id as its
 * last line says, in the order they were first written. A key's fields the filter reads never
 * change, so a line that does not pass is dropped as read; should a hand edit have changed one,
 * the key's last line decides all the same.
 */
class StoreOrder {
  private readonly records: (KeyRecord | null)[] = [];
  private readonly at = new Map<string, number>();

  constructor(private readonly filter: KeyFilter = {}) {}

  add = ([record]: readonly [KeyRecord, number, number]): void => {
    const i = this.at.get(record.id);
    if (!matchesFilter(record, this.filter)) {
      if (i === undefined) return;
      this.records[i] = null;
      this.at.delete(record.id);
    } else if (i === undefined) this.at.set(record.id, this.records.push(record) - 1);
    else this.records[i] = record;
  };

  /** The keys, once no two of them share a hash. */
  checked(path: string): KeyRecord[] {
    const records = this.records.filter((record) => record !== null);
    const hashes = new Map<string, string>();
    for (const record of records) {
      const holder = hashes.get(record.hash);
      if (holder !== undefined) throw invalidStore(path, `keys ${holder} and ${record.id} have the same hash`);
      hashes.set(record.hash, record.id);
    }
    return records;
  }
}

/** Read the key file; null when there is none yet. The stamp is of the very bytes read. */
export function readKeysFile(path: string): StoredKeys | null {
  const fd = openKeysFile(path);
  if (fd === null) return null;
  try {
    const stamp = stampOfOpen(fd, path);
    const order = new StoreOrder();
    const read = drain(recordsOf(fd, path, stamp.size), order.add);
    return { ...read, records: order.checked(path), stamp };
  } finally {
    closeSync(fd);
  }
}

/** A slice of the event loop a read in turns takes at most (in steps of 256 records). */
export const READ_SLICE_MS = 10;

/**
 * `readKeysFile` for a server, which must keep answering while it reads: the file is read in
 * slices of `sliceMs` with a turn of the event loop between them. A read of 100,000 keys (a file
 * written by scripts/bench/keys-scale.ts) took 780 ms, which in one piece held every public
 * request that long. The read stops at the size the file had when opened: a change appended or a
 * file renamed over it meanwhile is in the next read. Only the keys `filter` lets through are
 * kept (their hashes alone checked against each other): every key of 100,000 held at once took
 * the server to 187-195 MB resident for a list of one org's, 136 MB now (scripts/bench/admin-scale.ts).
 */
export async function readKeysFileInTurns(
  path: string,
  filter: KeyFilter = {},
  sliceMs = READ_SLICE_MS,
): Promise<StoredKeys | null> {
  const fd = openKeysFile(path);
  if (fd === null) return null;
  try {
    const stamp = stampOfOpen(fd, path);
    const order = new StoreOrder(filter);
    const read = await drainInTurns(recordsOf(fd, path, stamp.size), order.add, sliceMs);
    return { ...read, records: order.checked(path), stamp };
  } finally {
    closeSync(fd);
  }
}

/** The keys in the store, revoked ones included; null when no store exists yet. */
export function loadKeys(stateDir: string): KeyRecord[] | null {
  return readKeysFile(keysPath(stateDir))?.records ?? null;
}
