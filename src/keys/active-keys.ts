/**
 * The index the server authenticates against: the active keys by hash, as the lines of
 * `keys.json` read so far leave them.
 */
import { invalidStore } from './file-format.ts';
import { presentedAs, type KeyRecord } from '../state/key-record.ts';

/**
 * The active keys by hash, as the lines read so far leave them. Revoked keys are not kept: the
 * server never answers from them, and at 100,000 keys every byte per key counts. A key in its
 * overlap after a regeneration is found by its replaced value too, as presentedAs(record, hash):
 * whether that value still works (and whether the key has expired) is the request's to decide,
 * by its clock (src/policy.ts), so nothing here needs to change when a moment passes.
 */
export class ActiveKeys {
  readonly byHash = new Map<string, KeyRecord>();
  /**
   * Every key by its id, revoked ones too, as its latest line says: the directory the admin
   * listener's table is made from without reading the file (src/admin/list-keys.ts). An active
   * key's record is the one `byHash` holds; a revoked one's, a tenth of the keys at most, is its own.
   */
  readonly byId = new Map<string, KeyRecord>();

  /** A record as its latest line says: it replaces the id's earlier one, and a revoked one is dropped. */
  apply(path: string, record: KeyRecord, line: number): void {
    // The hashes the id was found by are its earlier record's: its value's, and its replaced value's.
    const earlier = this.byId.get(record.id);
    if (earlier !== undefined && earlier.revoked_at === null) {
      this.byHash.delete(earlier.hash);
      if (earlier.previous) this.byHash.delete(earlier.previous.hash);
    }
    this.byId.set(record.id, record);
    if (record.revoked_at !== null) return;
    const found = record.previous ? [record, presentedAs(record, record.previous.hash)] : [record];
    for (const entry of found) {
      const holder = this.byHash.get(entry.hash);
      if (holder) throw invalidStore(path, `line ${line}: key ${record.id} has the hash of key ${holder.id}`);
    }
    for (const entry of found) this.byHash.set(entry.hash, entry);
  }
}
