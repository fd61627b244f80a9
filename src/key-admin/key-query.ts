/**
 * A view of the keys as an operator asks for one: filtered (organisation, user, tier, state, a
 * text found in the id, name, organisation, user or the value's kept characters), sorted by a
 * column, a page at a time. Pure: the admin API's list (src/admin/read-operations.ts) and the page
 * run it on the keys a store gives.
 */
import { keptValue, type KeyState } from '../keys/record.ts';
import type { KeyView } from './key-view.ts';

export const SORT_COLUMNS = ['org', 'name', 'id', 'tier', 'scope', 'last_used', 'expires', 'state', 'created'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
export const KEY_STATES: readonly KeyState[] = ['active', 'expired', 'revoked'];
export const MAX_PER_PAGE = 500;
export const DEFAULT_PER_PAGE = 50;

export interface KeyQuery {
  org: string | null;
  user: string | null;
  tier: string | null;
  /** Only keys in these states (all three: every key). */
  states: readonly KeyState[];
  /** Found, case-insensitively, in the id, name, organisation, user, or `bdk_AbCd…wxyz`; null: no text. */
  text: string | null;
  /** Found, case-insensitively, in the key's name; null: any name, or none. */
  name: string | null;
  sort: SortColumn;
  descending: boolean;
}

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export function matchesQuery(view: KeyView, query: KeyQuery): boolean {
  if (query.org !== null && view.org !== query.org) return false;
  if (query.user !== null && view.user !== query.user) return false;
  if (query.tier !== null && view.tier !== query.tier) return false;
  if (!query.states.includes(view.state)) return false;
  if (query.name !== null && !(view.name ?? '').toLowerCase().includes(query.name.toLowerCase())) return false;
  return query.text === null || searchText(view).includes(query.text.toLowerCase());
}

function searchText(view: KeyView): string {
  const value = keptValue(view) ?? '';
  return `${view.id}\n${view.name ?? ''}\n${view.org}\n${view.user ?? ''}\n${value}`.toLowerCase();
}

/** What a column sorts by; a missing value (no name, never used, no expiry) sorts after every present one. */
function sortValue(view: KeyView, column: SortColumn): string | null {
  switch (column) {
    case 'org':
      return view.org;
    case 'name':
      return view.name;
    case 'id':
      return view.id;
    case 'tier':
      return view.tier;
    case 'scope':
      return view.scope;
    case 'last_used':
      return view.last_used_at;
    case 'expires':
      return view.expires_at;
    case 'state':
      return view.state;
    case 'created':
      return view.created_at;
  }
}

/**
 * The order of a query: its column (code-point order, the same on every server; times are ISO
 * strings of one length, so they sort as text), missing values last either way, then the id, so
 * every page of a view holds the same keys however often it is asked for.
 */
export function compareKeys(query: Pick<KeyQuery, 'sort' | 'descending'>): (a: KeyView, b: KeyView) => number {
  const sign = query.descending ? -1 : 1;
  return (a, b) => {
    const [x, y] = [sortValue(a, query.sort), sortValue(b, query.sort)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sign;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/** One page of `sorted` (a page past the last is empty, and says how many there are). */
export function pageOf<T>(sorted: readonly T[], page: number, perPage: number): { items: T[]; pagination: Pagination } {
  const totalPages = Math.ceil(sorted.length / perPage);
  const items = sorted.slice((page - 1) * perPage, page * perPage);
  return { items, pagination: { page, per_page: perPage, total: sorted.length, total_pages: totalPages } };
}
