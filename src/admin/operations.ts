/**
 * The admin API's operations, as a table: method, path, what the body must be, and what it does.
 * The listener (listener.ts) matches a request to a row and calls it; the key-management page
 * (page.ts) calls the same rows in-process; the OpenAPI document (openapi.ts) is made from them.
 * Every change goes through the keys command's own changes (src/keys/changes.ts) on the same
 * store, so the command and the API always agree, and is written to the audit trail.
 *
 * A change is applied whole or not at all (each is one change of the store). Changes that HTTP
 * calls idempotent (PUT, DELETE) answer 200 with the record as it stands when it already is as
 * asked, change nothing and write no audit entry.
 */
import {
  creation,
  critptApproval,
  providerGrant,
  providerUngrant,
  quotaChange,
  regeneration,
  revocation,
} from '../keys/changes.ts';
import type { KeyPieces } from '../keys/file-list.ts';
import { NAME_PATTERN, publicRecord, type KeyFilter } from '../keys/record.ts';
import type { KeyRecord, KeyScope } from '../state/key-record.ts';
import { QUOTA_KINDS } from '../state/quota-counter.ts';
import type { Tier } from '../shared/routes.ts';
import { HttpError } from '../http/error.ts';
import { checkBody } from './input.ts';
import {
  activeAnd,
  allKeys,
  audit,
  findKey,
  idempotent,
  JsonPieces,
  keyIdParam,
  ok,
  usage,
  type AdminAnswer,
  type AdminCall,
  type AdminContext,
  type Operation,
} from './operation.ts';
import { checkProviders } from './providers.ts';

export type { AdminAnswer, AdminCall, AdminContext, Caller, Operation } from './operation.ts';

const NAME = { type: 'string' as const, pattern: NAME_PATTERN.source };

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
async function* listText(pieces: KeyPieces, keep: (record: KeyRecord) => boolean): AsyncGenerator<string> {
  yield '{"data":[';
  let first = true;
  for await (const piece of pieces) {
    let text = '';
    for (const record of piece) {
      if (!keep(record)) continue;
      text += (first ? '' : ',') + JSON.stringify(publicRecord(record));
      first = false;
    }
    if (text !== '') yield text;
  }
  yield ']}';
}
const BOOLEAN_TEXT = { type: 'string' as const, enum: ['true', 'false'] };

export const OPERATIONS: readonly Operation[] = [
  {
    id: 'listKeys',
    method: 'GET',
    path: '/keys',
    summary: 'List keys (never their values), filtered by org, user, tier or revocation',
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
      if (given) return ok(new JsonPieces(listText(given, asked)));
      const records = given === null ? [] : await allKeys(context, filterOf(query));
      return ok({ data: records.filter(asked).map(publicRecord) });
    },
  },
  {
    id: 'createKey',
    method: 'POST',
    path: '/keys',
    summary: 'Issue a key; its value is in this answer only',
    body: {
      tier: { schema: { type: 'string', enum: ['free', 'pro', 'commercial'] }, required: true },
      org: { schema: NAME, required: true },
      user: { schema: { ...NAME, nullable: true } },
      scope: {
        schema: { type: 'string', enum: ['user', 'org'] },
        description: 'who shares the quota; default user when a user is given, else org',
      },
      quota: {
        schema: { type: 'integer', minimum: 1, maximum: 1e9, nullable: true },
        description: 'commercial only: requests per 24 h window (null: the server default)',
      },
      grants: {
        schema: { type: 'array', items: { type: 'string' }, maxItems: 10000 },
        description: 'commercial only: provider slugs of the served snapshot whose measurements the key may read',
      },
      critpt: { schema: { type: 'boolean' }, description: 'approved for CritPt grading' },
    },
    answer: { status: 201, schema: 'IssuedKey' },
    async run(context, { body, caller }) {
      const grants = (body.grants as string[] | undefined) ?? [];
      const input = {
        tier: body.tier as Tier,
        org: body.org as string,
        user: (body.user as string | null | undefined) ?? null,
        scope: body.scope as KeyScope | undefined,
        quota: (body.quota as number | null | undefined) ?? null,
        grants,
        critpt: (body.critpt as boolean | undefined) ?? false,
      };
      const change = creation(input, context.clock);
      checkProviders(context.served(), grants);
      const issued = await context.keys.apply(change);
      const record = publicRecord(issued.record);
      const { id, created_at, revoked_at, ...settings } = record;
      const noted = await audit(context, caller, 'key.create', id, settings);
      return { status: 201, body: { key: issued.key, record, ...noted } };
    },
  },
  {
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
      return ok({ record: publicRecord(record), usage: scopes });
    },
  },
  {
    id: 'revokeKey',
    method: 'DELETE',
    path: '/keys/{id}',
    summary: 'Revoke a key: its next request is refused (again: the key as it stands, nothing changed)',
    answer: { status: 200, schema: 'KeyChange' },
    run(context, call) {
      return idempotent(
        context,
        call,
        'key.revoke',
        (r) => r.revoked_at !== null,
        revocation(keyIdParam(call), context.clock),
        {},
      );
    },
  },
  {
    id: 'regenerateKey',
    method: 'POST',
    path: '/keys/{id}/regenerate',
    summary: 'Give a key a new value (the old one fails at its next request); id, scope, quota and grants stay',
    answer: { status: 200, schema: 'IssuedKey' },
    async run(context, call) {
      const id = keyIdParam(call);
      const issued = await context.keys.apply(regeneration(id));
      const noted = await audit(context, call.caller, 'key.regenerate', id, {});
      return ok({ key: issued.key, record: publicRecord(issued.record), ...noted });
    },
  },
  {
    id: 'grantProvider',
    method: 'PUT',
    path: '/keys/{id}/grants/{provider}',
    summary: "Let a Commercial key read one provider's measurements (a provider of the served snapshot)",
    answer: { status: 200, schema: 'KeyChange' },
    run(context, call) {
      const provider = call.params.provider;
      checkProviders(context.served(), [provider]);
      return idempotent(
        context,
        call,
        'key.grant',
        activeAnd((r) => r.grants.includes(provider)),
        providerGrant(keyIdParam(call), provider),
        { provider },
      );
    },
  },
  {
    id: 'ungrantProvider',
    method: 'DELETE',
    path: '/keys/{id}/grants/{provider}',
    summary: 'Take a grant back',
    answer: { status: 200, schema: 'KeyChange' },
    run(context, call) {
      const provider = call.params.provider;
      return idempotent(
        context,
        call,
        'key.ungrant',
        activeAnd((r) => !r.grants.includes(provider)),
        providerUngrant(keyIdParam(call), provider),
        { provider },
      );
    },
  },
  {
    id: 'setCritpt',
    method: 'PUT',
    path: '/keys/{id}/critpt',
    summary: 'Approve or withdraw CritPt grading',
    body: { approved: { schema: { type: 'boolean' }, required: true } },
    answer: { status: 200, schema: 'KeyChange' },
    run(context, call) {
      const approved = call.body.approved as boolean;
      return idempotent(
        context,
        call,
        'key.critpt',
        activeAnd((r) => r.critpt === approved),
        critptApproval(keyIdParam(call), approved),
        { critpt: approved },
      );
    },
  },
  {
    id: 'setQuota',
    method: 'PUT',
    path: '/keys/{id}/quota',
    summary: "Set a Commercial key's quota (null: the server's Commercial default)",
    body: { quota: { schema: { type: 'integer', minimum: 1, maximum: 1e9, nullable: true }, required: true } },
    answer: { status: 200, schema: 'KeyChange' },
    run(context, call) {
      const quota = call.body.quota as number | null;
      return idempotent(
        context,
        call,
        'key.quota',
        activeAnd((r) => r.quota === quota && r.tier === 'commercial'),
        quotaChange(keyIdParam(call), quota),
        { quota },
      );
    },
  },
  {
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
  },
  {
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
  },
];

/** Check a call's body against its operation, then run it. */
export function runOperation(
  operation: Operation,
  context: AdminContext,
  call: Omit<AdminCall, 'body'> & { body: unknown },
): Promise<AdminAnswer> {
  const body = operation.body ? checkBody(operation.body, call.body) : {};
  return operation.run(context, { ...call, body });
}

export function operationById(id: string): Operation {
  const operation = OPERATIONS.find((o) => o.id === id);
  if (!operation) throw new Error(`no admin operation ${id}`);
  return operation;
}
