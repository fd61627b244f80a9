/**
 * The schemas of `keys.json` (src/keys/file-format.ts says its formats): a record line, format 2's
 * header line, and format 1's whole file. Data alone, so that the bundle can generate their
 * validators ahead from them (scripts/ahead-validators.ts).
 */
import { KEY_ID_PATTERN, KEY_NAME_PATTERN, MAX_QUOTA, NAME_PATTERN, PROVIDER_SLUG_PATTERN } from './record.ts';
import { KEY_SCOPES } from '../state/key-record.ts';
import { TIERS } from '../shared/routes.ts';

/** Format of keys.json as written now. */
export const KEYS_FORMAT = 2;
/** The format before, one JSON object: still read. */
export const WHOLE_FORMAT = 1;

const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$' };
/** What is kept of a plain key for display (keyHint); null for a key issued before it was kept. */
const PREFIX = { type: ['string', 'null'], pattern: '^bdk_[A-Za-z0-9_-]{4}$' };
const LAST4 = { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]{4}$' };

/**
 * A record line. The fields after `revoked_at` were added later: a line written before lacks them,
 * and reads as if each were null (completeRecord).
 */
export const keyRecordSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'hash', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'created_at', 'revoked_at'],
  properties: {
    id: { type: 'string', pattern: KEY_ID_PATTERN.source },
    hash: HASH,
    tier: { enum: TIERS },
    org: { type: 'string', pattern: NAME_PATTERN.source },
    user: { type: ['string', 'null'], pattern: NAME_PATTERN.source },
    scope: { enum: KEY_SCOPES },
    quota: { type: ['integer', 'null'], minimum: 1, maximum: MAX_QUOTA },
    grants: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: PROVIDER_SLUG_PATTERN.source } },
    critpt: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    revoked_at: { type: ['string', 'null'], format: 'date-time' },
    name: { type: ['string', 'null'], pattern: KEY_NAME_PATTERN.source },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    prefix: PREFIX,
    last4: LAST4,
    previous: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['hash', 'prefix', 'last4', 'until'],
          properties: { hash: HASH, prefix: PREFIX, last4: LAST4, until: { type: 'string', format: 'date-time' } },
        },
      ],
    },
  },
  allOf: [
    { if: { properties: { scope: { const: 'user' } } }, then: { properties: { user: { type: 'string' } } } },
    {
      if: { properties: { tier: { not: { const: 'commercial' } } } },
      then: { properties: { quota: { type: 'null' } } },
    },
  ],
};

/** Format 1: every record in one object. */
export const wholeFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'keys'],
  properties: { format: { const: WHOLE_FORMAT }, keys: { type: 'array', items: keyRecordSchema } },
};

/**
 * Format 2's first line. `file` names this file (each rewrite draws a new name). A rewrite that
 * only compacted another file says which (`replaces`: its name, inode and size when rewritten)
 * and where the records carried over end (`end`), so a server that had read all of that file
 * knows it holds these records already and reads on from `end`. `records` is how many lines
 * the rewrite wrote; the lines after them are changes since.
 */
export interface KeysHeader {
  format: typeof KEYS_FORMAT;
  file: string;
  replaces: { file: string | null; ino: number; size: number } | null;
  records: number;
  end: number;
}

export const keysHeaderSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'file', 'replaces', 'records', 'end'],
  properties: {
    format: { const: KEYS_FORMAT },
    file: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    replaces: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['file', 'ino', 'size'],
          properties: {
            file: { type: ['string', 'null'] },
            ino: { type: 'integer', minimum: 0 },
            size: { type: 'integer', minimum: 0 },
          },
        },
      ],
    },
    records: { type: 'integer', minimum: 0 },
    end: { type: 'integer', minimum: 0 },
  },
};
