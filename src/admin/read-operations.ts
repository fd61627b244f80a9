/**
 * The admin API's reading operations (rows of the table in operations.ts): one key, the usage of
 * their quota scopes and the audit trail (the list of keys is list-keys.ts's). They change nothing.
 */
import { keyView } from '../key-admin/key-view.ts';
import { QUOTA_KINDS } from '../state/quota-counter.ts';
import { HttpError } from '../http/error.ts';
import { NAME, allKeys, findKey, keyIdParam, ok, usage, type Operation } from './operation.ts';

export { listKeys } from './list-keys.ts';

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
