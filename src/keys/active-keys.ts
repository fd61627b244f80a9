/**
 * The index the server authenticates against: the active keys by hash, as the lines of
 * `keys.json` read so far leave them.
 */
import { invalidStore } from './file-format.ts';
import type { KeyRecord } from '../state/key-record.ts';

/**
 * The active keys by hash, as the lines read so far leave them. Revoked keys are not kept: the
 * server never answers from them, and at 100,000 keys every byte per key counts.
 */
export class ActiveKeys {
  readonly byHash = new Map<string, KeyRecord>();
  private readonly hashOfId = new Map<string, string>();

  /** A record as its latest line says: it replaces the id's earlier one, and a revoked one is dropped. */
  apply(path: string, record: KeyRecord, line: number): void {
    const previous = this.hashOfId.get(record.id);
    if (previous !== undefined) {
      this.byHash.delete(previous);
      this.hashOfId.delete(record.id);
    }
    if (record.revoked_at !== null) return;
    const holder = this.byHash.get(record.hash);
    if (holder) throw invalidStore(path, `line ${line}: key ${record.id} has the hash of key ${holder.id}`);
    this.byHash.set(record.hash, record);
    this.hashOfId.set(record.id, record.hash);
  }
}
