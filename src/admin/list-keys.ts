/**
 * The admin API's list of keys (a row of the table in operations.ts): every key a query asks for,
 * sent as it is read; or, given a page, a sort or a text to find, one sorted page of them with its
 * pagination (src/key-admin/key-query.ts), as the key-management page shows them.
 */
import type { KeyPieces } from '../keys/file-list.ts';
import type { KeyFilter } from '../keys/record.ts';
import { keyView, type KeyView } from '../key-admin/key-view.ts';
import {
  compareKeys,
  DEFAULT_PER_PAGE,
  KEY_STATES,
  matchesQuery,
  MAX_PER_PAGE,
  pageOf,
  SORT_COLUMNS,
  type KeyQuery,
  type Pagination,
} from '../key-admin/key-query.ts';
import { drainInTurns } from '../lib/drain.ts';
import { sortInTurns } from '../lib/sort-in-turns.ts';
import { READ_SLICE_MS } from '../keys/file-read.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { HttpError } from '../http/error.ts';
import { NAME, allKeys, JsonPieces, ok, type AdminContext, type Operation } from './operation.ts';

/**
 * The keys a list's query asks for by their org, user and tier, which the store may keep alone as
 * it reads (the state is not one: it changes).
 */
function filterOf(query: URLSearchParams): KeyFilter {
  const filter: KeyFilter = {};
  for (const field of ['org', 'user', 'tier'] as const) {
    const value = query.get(field);
    if (value !== null) Object.assign(filter, { [field]: value });
  }
  return filter;
}

/** The query's view of the keys; `revoked` (the older filter) is a state: true revoked, false the others. */
function keyQueryOf(query: URLSearchParams): KeyQuery {
  const revoked = query.get('revoked');
  const state = query.get('state');
  const states = KEY_STATES.filter(
    (s) => (state === null || s === state) && (revoked === null || (s === 'revoked') === (revoked === 'true')),
  );
  const text = query.get('q')?.trim();
  const name = query.get('name')?.trim();
  return {
    org: query.get('org'),
    user: query.get('user'),
    tier: query.get('tier'),
    states,
    text: text ? text : null,
    name: name ? name : null,
    sort: (query.get('sort') ?? 'org') as KeyQuery['sort'],
    descending: query.get('order') === 'desc',
  };
}

/** `{"data":[...]}` of the keys `keep` lets through, as JSON.stringify writes it, a piece of keys at a time. */
async function* listText(
  pieces: KeyPieces,
  keep: (view: KeyView) => boolean,
  view: (record: KeyRecord) => KeyView,
): AsyncGenerator<string> {
  yield '{"data":[';
  let first = true;
  for await (const piece of pieces) {
    let text = '';
    for (const record of piece) {
      const shown = view(record);
      if (!keep(shown)) continue;
      text += (first ? '' : ',') + JSON.stringify(shown);
      first = false;
    }
    if (text !== '') yield text;
  }
  yield ']}';
}

/**
 * The keys a query lets through, as views, read in pieces where the store gives them: what a
 * sorted page needs, every one of them (held, for the sort: a page of 100,000 keys is made from
 * them all).
 */
async function viewsOf(
  context: AdminContext,
  query: URLSearchParams,
  piecesWanted: boolean,
  view: (record: KeyRecord) => KeyView,
  keep: (view: KeyView) => boolean,
): Promise<KeyView[] | KeyPieces> {
  // A list of one org's or user's keys is held whole: the pieces' first read notes every key,
  // which for a list of org1's 101 keys of 100,000 peaked at 152-160 MB, not 135, and took
  // 1.4-2.0 s, not 0.8 (scripts/bench/admin-scale.ts --only list, 3 runs each).
  const many = !query.has('org') && !query.has('user');
  const given = many && context.keys.pieces ? await context.keys.pieces(filterOf(query)) : undefined;
  if (given && piecesWanted) return given;
  const views: KeyView[] = [];
  if (given) {
    for await (const piece of given) for (const record of piece) pushKept(views, view(record), keep);
  } else if (given === undefined) {
    for (const record of await allKeys(context, filterOf(query))) pushKept(views, view(record), keep);
  }
  return views;
}

function pushKept(views: KeyView[], shown: KeyView, keep: (view: KeyView) => boolean): void {
  if (keep(shown)) views.push(shown);
}

interface PageAsked {
  view: (record: KeyRecord) => KeyView;
  keep: (view: KeyView) => boolean;
  compare: (a: KeyView, b: KeyView) => number;
  page: number;
  perPage: number;
}

/**
 * How long a page is made between turns: half a read's slice (READ_SLICE_MS), since a request
 * waiting on Redis waits for two turns or more (its command out, its reply in): while page 1 or a
 * search of 100,000 keys on Redis was made, a keyed request took up to 52-53 ms with 10 ms slices,
 * 27-30 ms with 5 ms (scripts/bench/admin-scale.ts --store redis, the views after the first).
 */
const PAGE_SLICE_MS = READ_SLICE_MS / 2;

/**
 * One sorted page of the keys a server holds in memory (its state folder's directory, or Redis's
 * as its admin listener follows them), made without reading every key: every key looked at in
 * slices between turns (no request waits more than a slice), the first `page x perPage` in order
 * kept, sorted down (in turns too) whenever twice that many have gathered. At 100,000 keys see
 * scripts/bench/admin-scale.ts (groups page, search, deep).
 */
async function pageOfDirectory(
  directory: ReadonlyMap<string, KeyRecord>,
  { view, keep, compare, page, perPage }: PageAsked,
): Promise<{ data: KeyView[]; pagination: Pagination }> {
  const need = page * perPage;
  let kept: KeyView[] = [];
  let total = 0;
  await drainInTurns(
    directory.values(),
    (record) => {
      const shown = view(record);
      if (!keep(shown)) return;
      total++;
      kept.push(shown);
      // Sorted between turns too: page 1,000 sorts 100,000 views, which held the loop 300-380 ms at once.
      if (kept.length >= 2 * need)
        return sortInTurns(kept, compare).then((sorted) => {
          kept = sorted.slice(0, need);
        });
    },
    PAGE_SLICE_MS,
  );
  const data = (await sortInTurns(kept, compare)).slice((page - 1) * perPage, need);
  return { data, pagination: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) } };
}

/** A query asking for a page, a sort or a text is answered one sorted page at a time. */
const PAGED_BY = ['page', 'per_page', 'sort', 'order', 'q'];

export const listKeys: Operation = {
  id: 'listKeys',
  method: 'GET',
  path: '/keys',
  summary:
    'List keys (never their values) with their state and last use, filtered; given page, per_page, sort, order or ' +
    'q, one sorted page of them with its pagination',
  query: {
    org: { description: 'only keys of this organisation', schema: NAME },
    user: { description: 'only keys of this user', schema: NAME },
    tier: { description: 'only keys of this tier', schema: { type: 'string', enum: ['free', 'pro', 'commercial'] } },
    state: { description: 'only keys in this state', schema: { type: 'string', enum: [...KEY_STATES] } },
    revoked: {
      description: 'true: only revoked keys; false: only the others',
      schema: { type: 'string', enum: ['true', 'false'] },
    },
    q: {
      description: 'only keys whose id, name, organisation, user or kept characters hold this text (any case)',
      schema: { type: 'string', pattern: '^[^\\p{Cc}]{1,100}$' },
    },
    name: {
      description: 'only keys whose name holds this text (any case)',
      schema: { type: 'string', pattern: '^[^\\p{Cc}]{1,100}$' },
    },
    sort: {
      description: 'the column a page is sorted by (default org); keys without a value sort last',
      schema: { type: 'string', enum: [...SORT_COLUMNS] },
    },
    order: { description: 'asc (default) or desc', schema: { type: 'string', enum: ['asc', 'desc'] } },
    page: { description: 'the page, from 1', schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' } },
    per_page: {
      description: `keys a page (1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE})`,
      schema: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' },
    },
  },
  answer: { status: 200, schema: 'KeyList' },
  async run(context, { query, pieces }) {
    const keyQuery = keyQueryOf(query);
    const lastUsed = await context.keys.lastUsed(null);
    const now = context.clock.now();
    const view = (record: KeyRecord) => keyView(record, now, lastUsed);
    const keep = (shown: KeyView) => matchesQuery(shown, keyQuery);
    const paged = PAGED_BY.some((name) => query.has(name));
    if (!paged) {
      const found = await viewsOf(context, query, pieces === true, view, keep);
      return ok(Array.isArray(found) ? { data: found } : new JsonPieces(listText(found, keep, view)));
    }
    const perPage = Number(query.get('per_page') ?? DEFAULT_PER_PAGE);
    if (perPage > MAX_PER_PAGE)
      throw new HttpError(400, 'Invalid query parameter', {
        details: { parameter: 'per_page', expected: `an integer from 1 to ${MAX_PER_PAGE}`, got: String(perPage) },
      });
    const page = Number(query.get('page') ?? 1);
    const compare = compareKeys(keyQuery);
    const directory = await context.keys.directory?.();
    if (directory) return ok(await pageOfDirectory(directory, { view, keep, compare, page, perPage }));
    const views = (await viewsOf(context, query, false, view, keep)) as KeyView[];
    const { items, pagination } = pageOf(views.sort(compare), page, perPage);
    return ok({ data: items, pagination });
  },
};
