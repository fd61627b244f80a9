/**
 * The key-management page for a signed-in operator: the header with the Sign out form, the new
 * key (once, right after it was issued), the message of the last change or its failure, the
 * "Create a key" form, the keys grouped by organisation, and the latest audit entries. A pure
 * function of what page.ts read through the admin operations.
 */
import type { AuditEntry } from '../keys/audit.ts';
import type { PublicKeyRecord } from '../keys/record.ts';
import type { KeyView } from '../key-admin/key-view.ts';
import type { ScopeUsage } from '../key-admin/usage.ts';
import type { QuotaLimits } from '../quota/scopes.ts';
import { errorBox, escapeHtml, flashBox, formatTime, hiddenField, renderDocument } from './page-html.ts';
import { renderKeyCard, type FormContext } from './page-card-html.ts';
import { viewFields, viewUrl, type PageView } from './page-view.ts';

export interface KeysPage {
  nonce: string;
  /** The CSRF token every form carries (page-csrf.ts). */
  csrf: string;
  /** The signed-in admin token's name. */
  tokenName: string;
  view: PageView;
  /** The keys of the view; null when the store could not be read (`error` says why). */
  keys: readonly KeyView[] | null;
  usage: readonly ScopeUsage[];
  audit: readonly AuditEntry[];
  limits: QuotaLimits;
  /** The served snapshot's provider slugs, offered as the grant inputs' suggestions. */
  providers: readonly string[];
  flash: string | null;
  /** The failure of the change just asked for, and of reading the store, if any. */
  errors: readonly { message: string; details: Record<string, unknown> }[];
  /** A key just issued or regenerated: its value is on this page and nowhere else, ever. */
  issued: { key: string; record: PublicKeyRecord; regenerated: boolean } | null;
  /** The create form's fields as last submitted, to fill it again after a refusal. */
  createValues: URLSearchParams | null;
}

/** Suggestions beyond this many would make every page heavy for little help; the input takes any slug. */
const PROVIDER_SUGGESTIONS_MAX = 2000;
/** An audit entry's changes past this length are cut (a key created with thousands of grants). */
const CHANGES_SHOWN_MAX = 300;

function renderHeader(page: KeysPage): string {
  return `<header class="top">
<h1>Key management</h1>
<form id="logout" method="post" action="/admin/logout">
<span class="who">Signed in as <strong>${escapeHtml(page.tokenName)}</strong></span>${hiddenField('csrf', page.csrf)}
<button type="submit">Sign out</button></form>
</header>`;
}

function renderNewKey(issued: NonNullable<KeysPage['issued']>): string {
  const { record } = issued;
  const owner = record.user === null ? record.org : `${record.org}/${record.user}`;
  const what = issued.regenerated ? 'a new value for this key: the old one fails at its next request' : 'a new key';
  return (
    `<div id="new-key" class="box" role="alert" data-key-id="${escapeHtml(record.id)}">
<p><strong>New key for ${escapeHtml(owner)} — shown only once</strong></p>
<p class="muted"><code>${escapeHtml(record.id)}</code>, ${what}. Copy it now: the server keeps only its hash,
and it will not be shown again.</p>
<div class="row"><input type="text" readonly value="${escapeHtml(issued.key)}" aria-label="The new key" ` +
    `spellcheck="false" autocomplete="off"><button type="button" class="copy">Copy</button><span class="copied" ` +
    `hidden>Copied</span></div>
</div>`
  );
}

function option(value: string, label: string, chosen: string | null): string {
  return `<option value="${escapeHtml(value)}"${value === chosen ? ' selected' : ''}>${escapeHtml(label)}</option>`;
}

function renderCreateForm(page: KeysPage): string {
  const values = page.createValues ?? new URLSearchParams();
  const text = (name: string) => escapeHtml(values.get(name) ?? '');
  const tier = values.get('tier');
  const scope = values.get('scope');
  return (
    `<section id="create">
<h2>Create a key</h2>
<form id="create-key" class="box" method="post" action="/admin/ui/keys">
${hiddenField('csrf', page.csrf)}${viewFields(page.view)}
<label>Tier <select name="tier">${option('free', 'free', tier)}${option('pro', 'pro', tier)}
${option('commercial', 'commercial', tier)}</select></label>
<label>Organisation <input type="text" name="org" required maxlength="100" spellcheck="false" autocomplete="off" ` +
    `value="${text('org')}"></label>
<label>User (optional) <input type="text" name="user" maxlength="100" spellcheck="false" autocomplete="off" ` +
    `value="${text('user')}"></label>
<label>Quota shared by (default: the user if given, else the org) <select name="scope">
${option('', 'default', scope)}${option('user', 'user', scope)}${option('org', 'org', scope)}</select></label>
<label>Quota, requests / 24 h (commercial only; empty: server default) <input type="number" name="quota" min="1" ` +
    `max="1000000000" step="1" value="${text('quota')}"></label>
<label class="wide">Grants: provider slugs, separated by commas or spaces (commercial only)
<textarea name="grants" rows="2" spellcheck="false" ` +
    `placeholder="${escapeHtml(page.providers.slice(0, 2).join(', '))}">${text('grants')}</textarea></label>
<label class="check"><input type="checkbox" name="critpt" ` +
    `value="true"${values.get('critpt') === 'true' ? ' checked' : ''}> Approved for CritPt grading</label>
<div><button type="submit" class="primary">Create key</button></div>
</form>
</section>`
  );
}

/** Active keys first, then revoked ones; each group oldest first. */
function cardOrder(a: KeyView, b: KeyView): number {
  const revoked = Number(a.revoked_at !== null) - Number(b.revoked_at !== null);
  if (revoked !== 0) return revoked;
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
}

/** The keys by organisation, organisations in code-point order (the same on every server). */
export function groupByOrg(keys: readonly KeyView[]): [string, KeyView[]][] {
  const groups = new Map<string, KeyView[]>();
  for (const record of keys) {
    const group = groups.get(record.org);
    if (group) group.push(record);
    else groups.set(record.org, [record]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([org, records]) => [org, records.sort(cardOrder)]);
}

function renderKeys(page: KeysPage, keys: readonly KeyView[]): string {
  const { view } = page;
  const form: FormContext = { csrf: page.csrf, view };
  const active = keys.filter((r) => r.revoked_at === null).length;
  const groups = groupByOrg(keys);
  const toggleUrl = escapeHtml(viewUrl({ ...view, showRevoked: !view.showRevoked }));
  const toggleText = view.showRevoked ? 'Hide revoked keys' : 'Show revoked keys';
  const toggle = `<a class="revoked-filter" href="${toggleUrl}">${toggleText}</a>`;
  const scope =
    view.org === null
      ? ''
      : `<span>Only <strong>${escapeHtml(view.org)}</strong>: <a class="all-orgs" ` +
        `href="${escapeHtml(viewUrl({ ...view, org: null }))}">show every organisation</a></span>`;
  const counts =
    `<span>${active} active ` +
    `key${active === 1 ? '' : 's'}${view.showRevoked ? `, ${keys.length - active} revoked` : ''} in ${groups.length} ` +
    `organisation${groups.length === 1 ? '' : 's'}</span>`;
  // Each key's scopes by its id, once: a filter per card would cost keys x scopes.
  const usageById = new Map<string, ScopeUsage[]>();
  for (const row of page.usage) for (const id of row.keys) usageById.set(id, [...(usageById.get(id) ?? []), row]);
  const sections = groups.map(
    ([org, records]) =>
      `<section class="org" data-org="${escapeHtml(org)}">
<h2><a class="org-filter" href="${escapeHtml(viewUrl({ ...view, org }))}">${escapeHtml(org)}</a><span ` +
      `class="count">${records.length} key${records.length === 1 ? '' : 's'}</span></h2>
<div class="keys">
${records.map((record) => renderKeyCard(record, usageById.get(record.id) ?? [], page.limits, form)).join('\n')}
</div>
</section>`,
  );
  const none = view.org === null ? 'No keys yet: create one above.' : 'No keys in this organisation.';
  const empty = keys.length > 0 ? '' : `<p class="muted">${none}</p>`;
  return `<section id="keys">
<h2>Keys</h2>
<div class="filters">${counts}${scope}${toggle}</div>
${empty}${sections.join('\n')}
</section>`;
}

function compactChanges(changes: Record<string, unknown>): string {
  const text = JSON.stringify(changes) ?? '{}';
  return text.length > CHANGES_SHOWN_MAX ? `${text.slice(0, CHANGES_SHOWN_MAX)}…` : text;
}

export function renderAudit(entries: readonly AuditEntry[]): string {
  if (entries.length === 0)
    return '<section id="audit"><h2>Audit trail</h2><p class="muted">No changes yet.</p></section>';
  const rows = entries.map(
    (e) =>
      `<tr class="entry"><td data-label="At">${formatTime(e.at)}</td><td data-label="By">${escapeHtml(e.actor_name)} ` +
      `<span class="muted mono">(${escapeHtml(e.actor)})</span></td><td ` +
      `data-label="Action">${escapeHtml(e.action)}</td>` +
      `<td data-label="Key or token"><code>${escapeHtml(e.key)}</code></td><td data-label="Changes" ` +
      `class="changes"><code>${escapeHtml(compactChanges(e.changes))}</code></td><td ` +
      `data-label="From">${escapeHtml(e.from)}</td></tr>`,
  );
  return `<section id="audit">
<h2>Audit trail</h2>
<p class="muted">The latest ${entries.length} change${entries.length === 1 ? '' : 's'}, newest first.</p>
<div class="scroll"><table>
<thead><tr><th>At</th><th>By</th><th>Action</th><th>Key or token</th><th>Changes</th><th>From</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
</section>`;
}

export function renderKeysPage(page: KeysPage): string {
  const providers = page.providers
    .slice(0, PROVIDER_SUGGESTIONS_MAX)
    .map((slug) => `<option value="${escapeHtml(slug)}">`)
    .join('');
  const body = `${renderHeader(page)}
<main>
${page.issued === null ? '' : renderNewKey(page.issued)}
${page.flash === null ? '' : flashBox(page.flash)}
${page.errors.map((error) => errorBox(error.message, error.details)).join('\n')}
${renderCreateForm(page)}
${page.keys === null ? '' : renderKeys(page, page.keys)}
${renderAudit(page.audit)}
</main>
<datalist id="providers">${providers}</datalist>`;
  return renderDocument({ title: 'Key management', nonce: page.nonce, body });
}
