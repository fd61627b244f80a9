/**
 * The admin API's changes (rows of the table in operations.ts): create, revoke, regenerate, grant
 * and ungrant a provider, CritPt approval, a quota. Each goes through the keys command's own
 * change (src/keys/changes.ts), whole or not at all, and into the audit trail; PUT and DELETE
 * answer 200 with the record as it stands, changing nothing and writing nothing, when it already
 * is as asked.
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
import { publicRecord } from '../keys/record.ts';
import type { KeyScope } from '../state/key-record.ts';
import type { Tier } from '../shared/routes.ts';
import { NAME, activeAnd, audit, idempotent, keyIdParam, ok, type Operation } from './operation.ts';
import { checkProviders } from './providers.ts';

export const createKey: Operation = {
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
};

export const revokeKey: Operation = {
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
};

export const regenerateKey: Operation = {
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
};

export const grantProvider: Operation = {
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
};

export const ungrantProvider: Operation = {
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
};

export const setCritpt: Operation = {
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
};

export const setQuota: Operation = {
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
};
