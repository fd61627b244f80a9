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
  expiryChange,
  providerGrant,
  providerUngrant,
  quotaChange,
  regeneration,
  renaming,
  revocation,
} from '../keys/changes.ts';
import { creationSettings, KEY_NAME_PATTERN, MAX_OVERLAP_MS, publicRecord } from '../keys/record.ts';
import type { KeyScope } from '../state/key-record.ts';
import type { Tier } from '../shared/routes.ts';
import { NAME, activeAnd, audit, idempotent, keyIdParam, ok, type Operation } from './operation.ts';
import { checkProviders } from './providers.ts';

const KEY_NAME = {
  type: 'string' as const,
  pattern: KEY_NAME_PATTERN.source,
  maxLength: 100,
  nullable: true,
};
const EXPIRY = { type: 'string' as const, format: 'date-time', nullable: true };
const EXPIRY_DESCRIPTION = 'when the key stops working (a date-time with its offset, in the future); null: never';

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
    name: { schema: KEY_NAME, description: 'a label for the key (what it is for), 1 to 100 characters' },
    expires_at: { schema: EXPIRY, description: EXPIRY_DESCRIPTION },
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
      name: (body.name as string | null | undefined) ?? null,
      expires_at: (body.expires_at as string | null | undefined) ?? null,
    };
    const change = creation(input, context.clock);
    checkProviders(context.served(), grants);
    const issued = await context.keys.apply(change);
    const record = publicRecord(issued.record);
    const noted = await audit(context, caller, 'key.create', record.id, creationSettings(issued.record));
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
  summary:
    'Give a key a new value (the old one fails at its next request, or once an overlap ends); id, scope, quota ' +
    'and grants stay',
  body: {
    overlap_seconds: {
      schema: { type: 'integer', minimum: 0, maximum: MAX_OVERLAP_MS / 1000 },
      description:
        'how long the old value keeps working, so clients can roll over (default 0: not at all); a key holds one ' +
        "old value: regenerating again ends the first one's overlap",
    },
  },
  answer: { status: 200, schema: 'IssuedKey' },
  async run(context, call) {
    const id = keyIdParam(call);
    const overlapSeconds = (call.body.overlap_seconds as number | undefined) ?? 0;
    const issued = await context.keys.apply(regeneration(id, overlapSeconds * 1000, context.clock));
    const changes = overlapSeconds > 0 ? { overlap_until: issued.record.previous!.until } : {};
    const noted = await audit(context, call.caller, 'key.regenerate', id, changes);
    return ok({ key: issued.key, record: publicRecord(issued.record), ...noted });
  },
};

export const setName: Operation = {
  id: 'setName',
  method: 'PUT',
  path: '/keys/{id}/name',
  summary: 'Label a key (null: no label)',
  body: { name: { schema: KEY_NAME, required: true } },
  answer: { status: 200, schema: 'KeyChange' },
  run(context, call) {
    const name = call.body.name as string | null;
    return idempotent(
      context,
      call,
      'key.name',
      activeAnd((r) => r.name === name),
      renaming(keyIdParam(call), name),
      { name },
    );
  },
};

export const setExpiry: Operation = {
  id: 'setExpiry',
  method: 'PUT',
  path: '/keys/{id}/expires_at',
  summary: 'Set when a key stops working (null: never); an expired key given a later time works again',
  body: { expires_at: { schema: EXPIRY, required: true, description: EXPIRY_DESCRIPTION } },
  answer: { status: 200, schema: 'KeyChange' },
  run(context, call) {
    const asked = call.body.expires_at as string | null;
    const instant = asked === null ? null : Date.parse(asked);
    return idempotent(
      context,
      call,
      'key.expiry',
      activeAnd((r) => (r.expires_at === null ? instant === null : Date.parse(r.expires_at) === instant)),
      expiryChange(keyIdParam(call), asked, context.clock),
      { expires_at: asked === null ? null : new Date(instant!).toISOString() },
    );
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
