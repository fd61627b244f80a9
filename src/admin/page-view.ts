/**
 * What the key-management page is showing: the table of keys as filtered, searched, sorted and
 * paged (`?q=nightly&org=acme&user=ana&name=export&tier=pro&state=expired&sort=last_used&order=desc&page=3`), or one
 * key's own page (`?key=key_0123456789ab`), with the new-key dialog open or not (`create=1`). It
 * lives in the page's query and travels in every form as hidden `view_*` fields (`org` is
 * already the new key's organisation), so a change returns the operator to the view they acted
 * from. A value that could not match a key (a name that is no name) is dropped, never echoed.
 */
import { KEY_ID_PATTERN, NAME_PATTERN } from '../keys/record.ts';
import { SORT_COLUMNS, type SortColumn } from '../key-admin/key-query.ts';
import { hiddenField } from './page-html.ts';

/** The states the table shows: `live` (the default) is every key not revoked. */
export const VIEW_STATES = ['live', 'active', 'expired', 'revoked', 'all'] as const;
export type ViewState = (typeof VIEW_STATES)[number];
const TIERS = ['free', 'pro', 'commercial'];

export interface PageView {
  /** Only this organisation's keys; null: every organisation. */
  org: string | null;
  user: string | null;
  /** Text to find in a key's name; null: any. */
  name: string | null;
  tier: string | null;
  state: ViewState;
  /** Text to find in a key's id, name, organisation, user or kept characters; null: none. */
  q: string | null;
  sort: SortColumn;
  descending: boolean;
  page: number;
  /** One key's own page instead of the table. */
  key: string | null;
  /** The new-key dialog shown open (without JavaScript, the "New key" link opens it so). */
  create: boolean;
  /** A key's page asking to confirm its revocation before the form that makes it is shown. */
  confirmRevoke: boolean;
}

export const ALL_KEYS: PageView = {
  org: null,
  user: null,
  name: null,
  tier: null,
  state: 'live',
  q: null,
  sort: 'org',
  descending: false,
  page: 1,
  key: null,
  create: false,
  confirmRevoke: false,
};

const QUERY_TEXT = /^[^\p{Cc}]{1,100}$/u;

/** A view from its fields, however they were named (the page's query, or a form's `view_*` fields). */
function viewOf(get: (name: string) => string | null): PageView {
  const org = get('org');
  const user = get('user');
  const name = get('name')?.trim() ?? '';
  const tier = get('tier');
  const state = get('state') ?? (get('revoked') === 'show' ? 'all' : 'live');
  const q = get('q')?.trim() ?? '';
  const sort = get('sort');
  const page = Number(get('page') ?? 1);
  const key = get('key');
  return {
    org: org !== null && NAME_PATTERN.test(org) ? org : null,
    user: user !== null && NAME_PATTERN.test(user) ? user : null,
    name: QUERY_TEXT.test(name) ? name : null,
    tier: tier !== null && TIERS.includes(tier) ? tier : null,
    state: (VIEW_STATES as readonly string[]).includes(state) ? (state as ViewState) : 'live',
    q: QUERY_TEXT.test(q) ? q : null,
    sort: (SORT_COLUMNS as readonly string[]).includes(sort ?? '') ? (sort as SortColumn) : 'org',
    descending: get('order') === 'desc',
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
    key: key !== null && KEY_ID_PATTERN.test(key) ? key : null,
    create: get('create') === '1',
    confirmRevoke: key !== null && get('confirm') === 'revoke',
  };
}

export function viewOfQuery(query: URLSearchParams): PageView {
  return viewOf((name) => query.get(name));
}

export function viewOfForm(form: URLSearchParams): PageView {
  return { ...viewOf((name) => form.get(`view_${name}`)), create: false, confirmRevoke: false };
}

/** The view's fields that differ from the default view's, as text: the query and the hidden fields both. */
function viewEntries(view: PageView): [string, string][] {
  const entries: [string, string][] = [];
  if (view.key !== null) entries.push(['key', view.key]);
  if (view.q !== null) entries.push(['q', view.q]);
  if (view.org !== null) entries.push(['org', view.org]);
  if (view.user !== null) entries.push(['user', view.user]);
  if (view.name !== null) entries.push(['name', view.name]);
  if (view.tier !== null) entries.push(['tier', view.tier]);
  if (view.state !== 'live') entries.push(['state', view.state]);
  if (view.sort !== 'org') entries.push(['sort', view.sort]);
  if (view.descending) entries.push(['order', 'desc']);
  if (view.page !== 1) entries.push(['page', String(view.page)]);
  return entries;
}

/** The hidden fields that carry the view through a form. */
export function viewFields(view: PageView): string {
  return viewEntries(view)
    .map(([name, value]) => hiddenField(`view_${name}`, value))
    .join('');
}

/** The page's address for a view, with a one-line message after a change. */
export function viewUrl(view: PageView, done: string | null = null): string {
  const query = new URLSearchParams(viewEntries(view));
  if (view.create) query.set('create', '1');
  if (view.confirmRevoke) query.set('confirm', 'revoke');
  if (done !== null) query.set('done', done);
  const text = query.toString();
  return text ? `/admin/?${text}` : '/admin/';
}

/** The list operation's query for a view's page of keys. */
export function listQuery(view: PageView, perPage: number): Record<string, string> {
  const query: Record<string, string> = {
    sort: view.sort,
    order: view.descending ? 'desc' : 'asc',
    page: String(view.page),
    per_page: String(perPage),
  };
  if (view.q !== null) query.q = view.q;
  if (view.org !== null) query.org = view.org;
  if (view.user !== null) query.user = view.user;
  if (view.name !== null) query.name = view.name;
  if (view.tier !== null) query.tier = view.tier;
  if (view.state === 'live') query.revoked = 'false';
  else if (view.state !== 'all') query.state = view.state;
  return query;
}

/**
 * Anyone can send an operator a link with any `done`; only a short line of the characters the
 * page's own messages use is shown (escaped like everything else), so a link cannot put a
 * convincing paragraph on the page.
 */
const FLASH_PATTERN = /^[A-Za-z0-9 ._@+:/()-]{1,160}$/;

export function flashOfQuery(query: URLSearchParams): string | null {
  const done = query.get('done');
  return done !== null && FLASH_PATTERN.test(done) ? done : null;
}
