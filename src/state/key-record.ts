/**
 * A key as the server's state holds it, and what the server needs of a key store. Here, below
 * both keys/ and quota/, because both read the record: the quota counts by its scope, and a
 * store shared by several servers checks it in the same step as a count.
 */
import type { Eventually } from '../lib/eventually.ts';
import type { Tier } from '../shared/routes.ts';

export const KEY_SCOPES = ['user', 'org'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface KeyRecord {
  /** Public, stable id (`key_` + 12 hex); survives regeneration. */
  readonly id: string;
  /** SHA-256 (hex) of the plain key; never shown. */
  readonly hash: string;
  readonly tier: Tier;
  readonly org: string;
  readonly user: string | null;
  /** Who shares the quota: this user in the org, or the whole org. */
  readonly scope: KeyScope;
  /** Commercial only: requests per window; null means the server's commercial default. */
  readonly quota: number | null;
  /** Provider slugs whose measurements this key may read; sorted, unique. */
  readonly grants: readonly string[];
  /** Approved for CritPt grading. */
  readonly critpt: boolean;
  readonly created_at: string;
  readonly revoked_at: string | null;
  /** The operator's label for the key (what it is for), shown beside its id; null for none. */
  readonly name: string | null;
  /** When the key stops working (its next request after is a 401 saying so); null: never. */
  readonly expires_at: string | null;
  /**
   * The plain key's first eight characters (`bdk_` and four) and last four, kept for display so a
   * leaked key can be matched to its record by eye; null for a key issued before they were kept.
   */
  readonly prefix: string | null;
  readonly last4: string | null;
  /** The value a regeneration replaced, still working until `until` (an overlap); null for none. */
  readonly previous: PreviousValue | null;
}

/** A key's replaced value during its overlap: what a client not yet rolled over still presents. */
export interface PreviousValue {
  /** SHA-256 (hex) of the replaced plain key; never shown. */
  readonly hash: string;
  readonly prefix: string | null;
  readonly last4: string | null;
  /** The replaced value's last moment: a request at or after it is a 401. */
  readonly until: string;
}

/**
 * The record as a lookup finds it by one of its values: the record itself for its value, a frozen
 * copy whose `hash` is the replaced value's for that (the request's quota step checks the record
 * by the hash presented, and the policy tells the replaced value by it: isReplacedValue).
 */
export function presentedAs(record: KeyRecord, hash: string): KeyRecord {
  return hash === record.hash ? record : Object.freeze({ ...record, hash });
}

/** Whether a lookup found this record by the value its regeneration replaced. */
export function isReplacedValue(found: KeyRecord): boolean {
  return found.previous !== null && found.hash === found.previous.hash;
}

/**
 * What the server needs of a key store: the record a presented plain key stands for, if any.
 * The state folder's store answers at once; a store shared over the network answers later.
 */
export interface KeyLookup {
  lookup(plainKey: string): Eventually<KeyRecord | undefined>;
  /**
   * The record as the store holds it now, for a store whose lookup may answer from a record it
   * met before (Redis's): the request refuses an expired key only on this, since the key may
   * have been given a later expiry since. A store read afresh at every lookup has none.
   */
  lookupAgain?(plainKey: string): Eventually<KeyRecord | undefined>;
}
