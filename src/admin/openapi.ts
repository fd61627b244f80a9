/**
 * The admin API's own OpenAPI document (`GET /admin/openapi.json`), made from the operations
 * table, so it cannot drift from what the listener does.
 */
import { KEY_NAME_PATTERN, NAME_PATTERN } from '../keys/record.ts';
import { OPERATIONS, type Operation } from './operations.ts';
import { ADMIN_BODY_LIMIT, API_PREFIX } from './input.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });

const DISPLAYED = {
  prefix: nullable({
    type: 'string',
    pattern: '^bdk_[A-Za-z0-9_-]{4}$',
    description: "the value's first eight characters (null: issued before they were kept)",
  }),
  last4: nullable({ type: 'string', pattern: '^[A-Za-z0-9_-]{4}$', description: "the value's last four characters" }),
};

const RECORD_FIELDS = {
  id: { type: 'string', pattern: '^key_[0-9a-f]{12}$', description: 'public, stable id; survives regeneration' },
  tier: { type: 'string', enum: ['free', 'pro', 'commercial'] },
  org: { type: 'string', pattern: NAME_PATTERN.source },
  user: nullable({ type: 'string', pattern: NAME_PATTERN.source }),
  scope: { type: 'string', enum: ['user', 'org'], description: 'who shares the quota' },
  quota: nullable({ type: 'integer', minimum: 1 }),
  grants: {
    type: 'array',
    items: { type: 'string' },
    description: 'provider slugs whose measurements the key may read',
  },
  critpt: { type: 'boolean', description: 'approved for CritPt grading' },
  created_at: { type: 'string', format: 'date-time' },
  revoked_at: nullable({ type: 'string', format: 'date-time' }),
  name: nullable({ type: 'string', pattern: KEY_NAME_PATTERN.source, description: "the operator's label" }),
  expires_at: nullable({ type: 'string', format: 'date-time', description: 'when the key stops working' }),
  ...DISPLAYED,
  previous: nullable({
    type: 'object',
    required: ['prefix', 'last4', 'until'],
    additionalProperties: false,
    description: 'the value a regeneration replaced, working until `until` (the overlap)',
    properties: { ...DISPLAYED, until: { type: 'string', format: 'date-time' } },
  }),
};

const recordSchema = (properties: Record<string, unknown>) => ({
  type: 'object',
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});

const KEY_RECORD = recordSchema(RECORD_FIELDS);
/** A key as lists and a key's detail show it: its record, what it is now, and its last use. */
const KEY_VIEW = recordSchema({
  ...RECORD_FIELDS,
  state: { type: 'string', enum: ['active', 'expired', 'revoked'] },
  last_used_at: nullable({
    type: 'string',
    format: 'date-time',
    description: 'the last request the key authenticated, at most a minute stale (null: none recorded)',
  }),
});

const SCOPE_USAGE = {
  type: 'object',
  required: ['kind', 'scope', 'keys', 'limit', 'used', 'remaining', 'resets_at'],
  properties: {
    kind: { type: 'string', enum: ['data', 'critpt'] },
    scope: { type: 'string', description: 'user:ORG/USER, org:ORG, or key:ID (CritPt of a key without a user)' },
    keys: { type: 'array', items: { type: 'string' }, description: 'the active keys counting here' },
    limit: { type: 'integer' },
    used: { type: 'integer', description: 'requests counted in the current 24 h window' },
    remaining: { type: 'integer' },
    resets_at: nullable({ type: 'string', format: 'date-time' }),
  },
};

/** A row of the usage history: a scope's answers served on one UTC day (CSV: the same columns). */
const USAGE_DAY = {
  type: 'object',
  required: ['day', 'kind', 'scope', 'served'],
  additionalProperties: false,
  properties: {
    day: { type: 'string', format: 'date', description: 'the UTC day' },
    kind: { type: 'string', enum: ['data', 'critpt'], description: 'data answers, or CritPt gradings' },
    scope: { type: 'string', description: 'user:ORG/USER, org:ORG, or key:ID (CritPt of a key without a user)' },
    served: { type: 'integer', minimum: 1, description: 'answers counted against the quota (200s) that day' },
  },
};

const AUDIT_ENTRY = {
  type: 'object',
  required: ['at', 'actor', 'actor_name', 'action', 'key', 'changes', 'from'],
  properties: {
    at: { type: 'string', format: 'date-time' },
    actor: { type: 'string', description: 'the admin token id (adm_...), or keys-command' },
    actor_name: { type: 'string' },
    action: {
      type: 'string',
      enum: [
        'key.create',
        'key.revoke',
        'key.regenerate',
        'key.name',
        'key.expiry',
        'key.grant',
        'key.ungrant',
        'key.critpt',
        'key.quota',
        'admin-token.create',
        'admin-token.revoke',
      ],
    },
    key: {
      type: 'string',
      description: 'the key changed (key_...), or the admin token (adm_...) for admin-token.*; never a value',
    },
    changes: { type: 'object' },
    from: {
      type: 'string',
      description:
        "the client's address (behind a proxy --trust-proxy names, the client it forwarded), or local (keys command)",
    },
  },
};

/** Present only when the change was made but could not be written to the audit trail (operation.ts). */
const AUDIT_NOTE = {
  type: 'string',
  description: 'only when the change was made but could not be written to the audit trail: why',
};

const listOf = (item: string) => ({
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: ref(item) } },
});

const SCHEMAS = {
  KeyRecord: KEY_RECORD,
  KeyView: KEY_VIEW,
  KeyList: {
    ...listOf('KeyView'),
    properties: {
      ...listOf('KeyView').properties,
      pagination: {
        type: 'object',
        description: 'only for a page (page, per_page, sort, order or q given)',
        required: ['page', 'per_page', 'total', 'total_pages'],
        additionalProperties: false,
        properties: {
          page: { type: 'integer', minimum: 1 },
          per_page: { type: 'integer', minimum: 1 },
          total: { type: 'integer', minimum: 0, description: 'keys the query lets through, on every page' },
          total_pages: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
  IssuedKey: {
    type: 'object',
    required: ['key', 'record'],
    properties: {
      key: {
        type: 'string',
        pattern: '^bdk_[A-Za-z0-9_-]{43}$',
        description: 'the key itself: shown in this answer only',
      },
      record: ref('KeyRecord'),
      audit: AUDIT_NOTE,
    },
  },
  KeyDetail: {
    type: 'object',
    required: ['record', 'usage'],
    properties: { record: ref('KeyView'), usage: { type: 'array', items: ref('ScopeUsage') } },
  },
  KeyChange: {
    type: 'object',
    required: ['record', 'changed'],
    properties: {
      record: ref('KeyRecord'),
      changed: { type: 'boolean', description: 'false when the key already was as asked (nothing written)' },
      audit: AUDIT_NOTE,
    },
  },
  ScopeUsage: SCOPE_USAGE,
  UsageList: listOf('ScopeUsage'),
  UsageDay: USAGE_DAY,
  UsageHistory: {
    type: 'object',
    required: ['from', 'to', 'data'],
    additionalProperties: false,
    properties: {
      from: { type: 'string', format: 'date' },
      to: { type: 'string', format: 'date' },
      data: { type: 'array', items: ref('UsageDay'), description: 'by day, then scope; only rows with answers' },
    },
  },
  AuditEntry: AUDIT_ENTRY,
  AuditList: listOf('AuditEntry'),
  Error: {
    type: 'object',
    required: ['error', 'details'],
    properties: { error: { type: 'string' }, details: { type: 'object' } },
  },
};

const error = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });

function operationObject(operation: Operation): Record<string, unknown> {
  const pathParams = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'id' ? { type: 'string', pattern: '^key_[0-9a-f]{12}$' } : { type: 'string' },
  }));
  const queryParams = Object.entries(operation.query ?? {}).map(([name, { description, schema }]) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema,
  }));
  const responses: Record<string, unknown> = {
    [operation.answer.status]: {
      description: operation.summary,
      content: {
        'application/json': { schema: ref(operation.answer.schema) },
        ...(operation.answer.csv
          ? { 'text/csv': { schema: { type: 'string', description: 'a header line, then a line a row' } } }
          : {}),
      },
    },
    400: error('a malformed id, parameter or body, an unknown provider, a value the key cannot take'),
    401: error('no valid admin token'),
    503: error('the key store cannot be read or written now (Retry-After)'),
  };
  if (pathParams.length > 0)
    Object.assign(responses, {
      404: error('no key with that id'),
      409: error('the key was revoked, or its tier cannot take the change'),
    });
  if (operation.body) responses[413] = error(`a body over ${ADMIN_BODY_LIMIT} bytes`);
  const body = operation.body && {
    required: true,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: false,
          required: Object.entries(operation.body)
            .filter(([, f]) => f.required)
            .map(([name]) => name),
          properties: Object.fromEntries(
            Object.entries(operation.body).map(([name, { schema, description }]) => {
              const { nullable: isNullable, ...plain } = schema;
              const described = description ? { ...plain, description } : plain;
              return [name, isNullable ? nullable(described) : described];
            }),
          ),
        },
      },
    },
  };
  return {
    operationId: operation.id,
    summary: operation.summary,
    parameters: [...pathParams, ...queryParams],
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

export function adminOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS)
    (paths[`${API_PREFIX}${operation.path}`] ??= {})[operation.method.toLowerCase()] = operationObject(operation);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Benchmark data API: admin',
      version: '1',
      description:
        'Keys, grants, usage and the audit trail, on the admin listener (--admin-port). Every request carries an ' +
        'admin token made by the keys command (admin-token create).',
    },
    security: [{ adminToken: [] }],
    paths,
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'bdat_... from `keys admin-token create`' },
      },
    },
  };
}
