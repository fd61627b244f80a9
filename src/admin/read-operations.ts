/**
 * The admin API's reading operations (rows of the table in operations.ts): the keys, one key, the
 * usage of their quota scopes and the audit trail. They change nothing.
 */
import type { KeyPieces } from '../keys/file-list.ts';
import type { KeyFilter } from '../keys/record.ts';
import { keyView, type KeyView } from '../key-admin/key-view.ts';
import type { KeyRecord } from '../state/key-record.ts';
import { QUOTA_KINDS } from '../state/quota-counter.ts';
import { HttpError } from '../http/error.ts';
import { NAME, allKeys, findKey, JsonPieces, keyIdParam, ok, usage, type Operation } from './operation.ts';

/**
 * The keys a list's query asks for by their org, user and tier, which the store may keep alone as
 * it reads (revoked is not one: it changes).
 */
function filterOf(query: URLSearchParams): KeyFilter {
  const filter: KeyFilter = {};
  for (const field of ['org', 'user', 'tier'] as const) {
    const value = query.get(field);
    if (value !== null) Object.assign(filter, { [field]: value });
  }
  return filter;
}
/** `{"data":[...]}` of the keys `keep` lets through, as JSON.stringify writes it, a piece of keys at a time. */
async function* listText(
  pieces: KeyPieces,
  keep: (record: KeyRecord) => boolean,
  view: (record: KeyRecord) => KeyView,
): AsyncGenerator<string> {
  yield '{"data":[';
  let first = true;
  for await (const piece of pieces) {
    let text = '';
    for (const record of piece) {
      if (!keep(record)) continue;
      text += (first ? '' : ',') + JSON.stringify(view(record));
      first = false;
    }
    if (text !== '') yield text;
  }
  yield ']}';
}
const BOOLEAN_TEXT = { type: 'string' as const, enum: ['true', 'false'] };

export const listKeys: Operation = {
  id: 'listKeys',
  method: 'GET',
  path: '/keys',
  summary: 'List keys (never their values), with their state and last use, filtered by org, user, tier or revocation',
  query: {
    org: { description: 'only keys of this organisation', schema: NAME },
    user: { description: 'only keys of this user', schema: NAME },
    tier: { description: 'only keys of this tier', schema: { type: 'string', enum: ['free', 'pro', 'commercial'] } },
    revoked: { description: 'true: only revoked keys; false: only active ones', schema: BOOLEAN_TEXT },
  },
  answer: { status: 200, schema: 'KeyList' },
  async run(context, { query, pieces }) {
    const revoked = query.get('revoked');
    const asked = (r: KeyRecord) =>
      (!query.has('org') || r.org === query.get('org')) &&
      (!query.has('user') || r.user === query.get('user')) &&
      (!query.has('tier') || r.tier === query.get('tier')) &&
      (revoked === null || (r.revoked_at !== null) === (revoked === 'true'));
    // A list of one org's or user's keys is held whole: the pieces' first read notes every key,
    // which for a list of org1's 101 keys of 100,000 peaked at 152-160 MB, not 135, and took
    // 1.4-2.0 s, not 0.8 (scripts/bench/admin-scale.ts --only list, 3 runs each).
    const many = !query.has('org') && !query.has('user');
    const given = pieces && many && context.keys.pieces ? await context.keys.pieces(filterOf(query)) : undefined;
    const lastUsed = await context.keys.lastUsed(null);
    const now = context.clock.now();
    const view = (record: KeyRecord) => keyView(record, now, lastUsed);
    if (given) return ok(new JsonPieces(listText(given, asked, view)));
    const records = given === null ? [] : await allKeys(context, filterOf(query));
    return ok({ data: records.filter(asked).map(view) });
  },
};

export const getKey: Operation = {
  id: 'getKey',
  method: 'GET',
  path: '/keys/{id}',
  summary: 'One key and the quota scopes it counts in (data, and CritPt when approved)',
  answer: { status: 200, schema: 'KeyDetail' },
  async run(context, call) {
    const id = keyIdParam(call);
    const record = findKey(await allKeys(context, { id }), id);
    // The keys sharing a scope with it are of its org (a scope names it): those alone are kept.
    const scopes =
      record.revoked_at === null
        ? await usage(context, await allKeys(context, { org: record.org }), (row) => row.keys.includes(record.id))
        : [];
    const lastUsed = await context.keys.lastUsed([record.id]);
    return ok({ record: keyView(record, context.clock.now(), lastUsed), usage: scopes });
  },
};

export const listUsage: Operation = {
  id: 'listUsage',
  method: 'GET',
  path: '/usage',
  summary: 'Each quota scope of the active keys: counted, limit, remaining and window end (data and CritPt)',
  query: {
    org: { description: 'only scopes of keys of this organisation', schema: NAME },
    kind: { description: 'only data or only CritPt scopes', schema: { type: 'string', enum: [...QUOTA_KINDS] } },
  },
  answer: { status: 200, schema: 'UsageList' },
  async run(context, { query }) {
    const org = query.get('org');
    const kind = query.get('kind');
    // A scope's keys are all of one org (its name says which): that org's keys make its rows whole.
    const data = await usage(
      context,
      await allKeys(context, org === null ? {} : { org }),
      (row, records) =>
        (kind === null || row.kind === kind) && (org === null || row.keys.some((id) => records.get(id)?.org === org)),
    );
    return ok({ data });
  },
};

export const listAudit: Operation = {
  id: 'listAudit',
  method: 'GET',
  path: '/audit',
  summary: 'The latest changes, newest first',
  query: {
    limit: {
      description: 'how many entries (1 to 1000, default 100)',
      schema: { type: 'string', pattern: '^[0-9]{1,4}$' },
    },
  },
  answer: { status: 200, schema: 'AuditList' },
  async run(context, { query }) {
    const limit = Number(query.get('limit') ?? 100);
    if (!(limit >= 1 && limit <= 1000))
      throw new HttpError(400, 'Invalid limit', {
        details: { limit: query.get('limit'), expected: 'an integer from 1 to 1000' },
      });
    return ok({ data: await context.keys.audit.latest(limit) });
  },
};
