/**
 * A key as the admin API and the keys command list it: what may be shown of its record, what it is
 * now, and its last use.
 */
import { keyState, publicRecord, type KeyState, type PublicKeyRecord } from '../keys/record.ts';
import type { KeyRecord } from '../state/key-record.ts';

export type KeyView = PublicKeyRecord & { state: KeyState; last_used_at: string | null };

/** `record` at `now` (active, expired or revoked), with its time in `lastUsed` (by key id), if any. */
export function keyView(record: KeyRecord, now: number, lastUsed: ReadonlyMap<string, number>): KeyView {
  const used = lastUsed.get(record.id);
  return {
    ...publicRecord(record),
    state: keyState(record, now),
    last_used_at: used === undefined ? null : new Date(used).toISOString(),
  };
}
