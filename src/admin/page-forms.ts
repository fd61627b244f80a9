/**
 * From the page's forms to the admin operations: which operation a form action is, and its
 * fields as the JSON body the API takes. The conversion only changes the form's text into JSON
 * types (digits to integers, true/false to booleans, an empty quota to null, grants split on
 * commas and spaces) and leaves every check to the operation, so the page and the API accept and
 * refuse exactly the same things with the same messages. A field left empty is left out, as an
 * API client would leave it out.
 */
import { HttpError } from '../http/error.ts';

export const KEY_ACTIONS = ['revoke', 'regenerate', 'grant', 'ungrant', 'critpt', 'quota', 'name', 'expiry'] as const;
export type KeyAction = (typeof KEY_ACTIONS)[number];

const OPERATION_OF: Record<KeyAction, string> = {
  revoke: 'revokeKey',
  regenerate: 'regenerateKey',
  grant: 'grantProvider',
  ungrant: 'ungrantProvider',
  critpt: 'setCritpt',
  quota: 'setQuota',
  name: 'setName',
  expiry: 'setExpiry',
};

/** An operation to run (by id in OPERATIONS) with its path parameters and body. */
export interface FormCall {
  operation: string;
  params: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/** A field's text without surrounding spaces (a pasted name often has some); null when empty or absent. */
function fieldOf(form: URLSearchParams, name: string): string | null {
  const value = form.get(name)?.trim();
  return value ? value : null;
}

/**
 * A decimal number becomes a number (the operation refuses a fraction); anything else stays text,
 * for the operation to refuse.
 */
export function numberOf(text: string): number | string {
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : text;
}

/** A checkbox sends `on` (or its value, `true`) when ticked and nothing when not. */
export function booleanOf(text: string): boolean | string {
  if (text === 'true' || text === 'on') return true;
  return text === 'false' ? false : text;
}

/**
 * A browser's date-and-time field sends `2027-01-31T09:30` (no seconds, no offset): the page says
 * its times are UTC, so that is the instant meant. Anything else stays as it is, for the
 * operation to refuse or take.
 */
export function utcOf(text: string): string {
  const local = /^(\d{4}-\d\d-\d\dT\d\d:\d\d)(:\d\d)?$/.exec(text);
  return local ? `${local[1]}${local[2] ?? ':00'}Z` : text;
}

/** Provider slugs as typed: one a line, or separated by commas or spaces. */
export function splitGrants(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** The "Create a key" form as createKey's body. */
export function createBody(form: URLSearchParams): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of ['tier', 'org', 'user', 'name'] as const) {
    const value = fieldOf(form, name);
    if (value !== null) body[name] = value;
  }
  const expires = fieldOf(form, 'expires_at');
  if (expires !== null) body.expires_at = utcOf(expires);
  const scope = fieldOf(form, 'scope');
  if (scope !== null && scope !== 'default') body.scope = scope;
  const quota = fieldOf(form, 'quota');
  if (quota !== null) body.quota = numberOf(quota);
  const grants = splitGrants(form.get('grants') ?? '');
  if (grants.length > 0) body.grants = grants;
  const critpt = fieldOf(form, 'critpt');
  if (critpt !== null) body.critpt = booleanOf(critpt);
  return body;
}

export function createCall(form: URLSearchParams): FormCall {
  return { operation: 'createKey', params: {}, body: createBody(form) };
}

/**
 * A form action on one key as its operation's call; a grant form without a provider is refused here
 * (it has no path to go in).
 */
export function actionCall(action: KeyAction, id: string, form: URLSearchParams): FormCall {
  const operation = OPERATION_OF[action];
  switch (action) {
    case 'grant':
    case 'ungrant': {
      const provider = fieldOf(form, 'provider');
      if (provider === null)
        throw new HttpError(400, 'Invalid form', { details: { field: 'provider', expected: 'a provider slug' } });
      return { operation, params: { id, provider }, body: undefined };
    }
    case 'critpt': {
      const approved = fieldOf(form, 'approved');
      return { operation, params: { id }, body: approved === null ? {} : { approved: booleanOf(approved) } };
    }
    case 'quota': {
      const quota = fieldOf(form, 'quota');
      return { operation, params: { id }, body: { quota: quota === null ? null : numberOf(quota) } };
    }
    case 'name':
      return { operation, params: { id }, body: { name: fieldOf(form, 'name') } };
    case 'expiry': {
      const expires = fieldOf(form, 'expires_at');
      return { operation, params: { id }, body: { expires_at: expires === null ? null : utcOf(expires) } };
    }
    case 'regenerate': {
      const overlap = fieldOf(form, 'overlap_seconds');
      return { operation, params: { id }, body: overlap === null ? undefined : { overlap_seconds: numberOf(overlap) } };
    }
    default:
      return { operation, params: { id }, body: undefined };
  }
}

/**
 * The one-line message after a change, carried in the redirect's query: ids, slugs and numbers
 * only (never a key), in the characters page-view.ts lets through. `changed` is the operation's
 * answer: false when the key already was as asked.
 */
export function doneMessage(action: KeyAction, call: FormCall, changed: boolean): string {
  const { id, provider } = call.params;
  switch (action) {
    case 'revoke':
      return changed ? `revoked ${id}` : `${id} was already revoked`;
    case 'grant':
      return changed ? `granted ${provider} to ${id}` : `${id} already held ${provider}`;
    case 'ungrant':
      return changed ? `took ${provider} back from ${id}` : `${id} held no grant for ${provider}`;
    case 'critpt': {
      const approved = call.body?.approved === true;
      if (!changed) return `CritPt was already ${approved ? 'approved' : 'withdrawn'} for ${id}`;
      return approved ? `approved CritPt for ${id}` : `withdrew CritPt for ${id}`;
    }
    case 'quota': {
      const quota = call.body?.quota;
      const to = quota === null ? 'the server default' : String(quota);
      return changed ? `set the quota of ${id} to ${to}` : `the quota of ${id} was already ${to}`;
    }
    case 'regenerate':
      return `regenerated ${id}`;
    case 'name': {
      const name = call.body?.name;
      return name === null ? `took the name off ${id}` : changed ? `renamed ${id}` : `${id} already had that name`;
    }
    case 'expiry': {
      const at = call.body?.expires_at;
      if (!changed) return `the expiry of ${id} was already so`;
      return at === null ? `${id} no longer expires` : `set when ${id} expires`;
    }
  }
}
