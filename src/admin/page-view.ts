/**
 * What the key-management page is showing: one organisation or all, revoked keys or not. It lives
 * in the page's query (`?org=acme&revoked=show`) and travels in every form as hidden fields
 * (`view_org`, `view_revoked`; `org` is already the new key's organisation), so a change returns
 * the operator to the view they acted from.
 */
import { NAME_PATTERN } from '../keys/record.ts';
import { hiddenField } from './page-html.ts';

export interface PageView {
  /** Only this organisation's keys; null: every organisation. */
  org: string | null;
  showRevoked: boolean;
}

export const ALL_KEYS: PageView = { org: null, showRevoked: false };

/** A name that is not an organisation name cannot match a key: it is dropped, not echoed. */
function viewOf(org: string | null, revoked: string | null): PageView {
  return { org: org !== null && NAME_PATTERN.test(org) ? org : null, showRevoked: revoked === 'show' };
}

export function viewOfQuery(query: URLSearchParams): PageView {
  return viewOf(query.get('org'), query.get('revoked'));
}

export function viewOfForm(form: URLSearchParams): PageView {
  return viewOf(form.get('view_org'), form.get('view_revoked'));
}

/** The hidden fields that carry the view through a form. */
export function viewFields(view: PageView): string {
  return (
    (view.org === null ? '' : hiddenField('view_org', view.org)) +
    (view.showRevoked ? hiddenField('view_revoked', 'show') : '')
  );
}

/** The page's address for a view, with a one-line message after a change. */
export function viewUrl(view: PageView, done: string | null = null): string {
  const query = new URLSearchParams();
  if (view.org !== null) query.set('org', view.org);
  if (view.showRevoked) query.set('revoked', 'show');
  if (done !== null) query.set('done', done);
  const text = query.toString();
  return text ? `/admin/?${text}` : '/admin/';
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
