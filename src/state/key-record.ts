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
}

/**
 * What the server needs of a key store: the record a presented plain key stands for, if any.
 * The state folder's store answers at once; a store shared over the network answers later.
 */
export interface KeyLookup {
  lookup(plainKey: string): Eventually<KeyRecord | undefined>;
}
