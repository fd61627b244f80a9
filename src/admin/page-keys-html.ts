/**
 * The key-management page for a signed-in operator: the header with the Sign out form, the new
 * key (once, right after it was issued), the message of the last change or its failure; then the
 * table of keys (page-table-html.ts) with the "New key" dialog and the latest audit entries, or
 * one key's own page (its card: details, usage, changes) with its own latest changes. A pure
 * function of what page.ts read through the admin operations.
 */
import type { PublicKeyRecord } from '../keys/record.ts';
import type { QuotaLimits } from '../quota/scopes.ts';
import { errorBox, escapeHtml, flashBox, formatTime, hiddenField, renderDocument } from './page-html.ts';
import { renderKeyCard, renderRevokeConfirmation, type FormContext } from './page-card-html.ts';
import { renderKeyTable } from './page-table-html.ts';
import { renderAudit } from './page-audit-html.ts';
import { renderUsageChart } from './page-chart-html.ts';
import type { KeyPageView, StoreView, TableView } from './page-store.ts';
import { viewFields, viewUrl, type PageView } from './page-view.ts';

export interface KeysPage {
  nonce: string;
  /** The CSRF token every form carries (page-csrf.ts). */
  csrf: string;
  /** The signed-in admin token's name. */
  tokenName: string;
  view: PageView;
  /** What the view shows; null when the store could not be read (`errors` says why). */
  store: StoreView | null;
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
  const overlap = record.previous && `the old one keeps working until ${formatTime(record.previous.until)}`;
  const what = issued.regenerated
    ? `a new value for this key: ${overlap ?? 'the old one fails at its next request'}`
    : 'a new key';
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

function renderCreateDialog(page: KeysPage): string {
  const values = page.createValues ?? new URLSearchParams();
  const text = (name: string) => escapeHtml(values.get(name) ?? '');
  const tier = values.get('tier');
  const scope = values.get('scope');
  // Open as the page comes when asked for (the "New key" link without JavaScript) or refused.
  const open = page.view.create || page.createValues !== null;
  const close = escapeHtml(viewUrl({ ...page.view, create: false }));
  return (
    `<dialog id="create-dialog" aria-labelledby="create-title"${open ? ' open' : ''}>
<form id="create-key" method="post" action="/admin/ui/keys">
<h2 id="create-title">New key</h2>
${hiddenField('csrf', page.csrf)}${viewFields(page.view)}
<label>Tier <select name="tier">${option('free', 'free', tier)}${option('pro', 'pro', tier)}
${option('commercial', 'commercial', tier)}</select></label>
<label>Organisation <input type="text" name="org" required maxlength="100" spellcheck="false" autocomplete="off" ` +
    `value="${text('org')}"></label>
<label>User (optional) <input type="text" name="user" maxlength="100" spellcheck="false" autocomplete="off" ` +
    `value="${text('user')}"></label>
<label>Name (optional: what the key is for) <input type="text" name="name" maxlength="100" autocomplete="off" ` +
    `value="${text('name')}"></label>
<label>Expires (optional, UTC) <input type="datetime-local" name="expires_at" step="60" ` +
    `value="${text('expires_at')}"></label>
<label>Quota shared by (default: the user if given, else the org) <select name="scope">
${option('', 'default', scope)}${option('user', 'user', scope)}${option('org', 'org', scope)}</select></label>
<label>Quota, requests / 24 h (commercial only; empty: server default) <input type="number" name="quota" min="1" ` +
    `max="1000000000" step="1" value="${text('quota')}"></label>
<label class="wide">Grants: provider slugs, separated by commas or spaces (commercial only)
<textarea name="grants" rows="2" spellcheck="false" ` +
    `placeholder="${escapeHtml(page.providers.slice(0, 2).join(', '))}">${text('grants')}</textarea></label>
<label class="check"><input type="checkbox" name="critpt" ` +
    `value="true"${values.get('critpt') === 'true' ? ' checked' : ''}> Approved for CritPt grading</label>
<div class="row"><button type="submit" class="primary">Create key</button><a class="cancel" href="${close}">` +
    `Cancel</a></div>
</form>
</dialog>`
  );
}

function renderTable(page: KeysPage, table: TableView): string {
  const create = escapeHtml(viewUrl({ ...page.view, create: true }));
  return `<section id="keys">
<div class="section-head"><h2>Keys</h2><a id="open-create" class="button primary" href="${create}">New key</a></div>
${renderKeyTable(page.view, table.keys, table.pagination, table.usage)}
</section>
${renderCreateDialog(page)}
${renderAudit(table.audit)}`;
}

function renderKeyPage(page: KeysPage, shown: KeyPageView): string {
  const back = escapeHtml(viewUrl({ ...page.view, key: null }));
  const form: FormContext = { csrf: page.csrf, view: page.view };
  const title = shown.key.name === null ? shown.key.id : `${shown.key.name} (${shown.key.id})`;
  return `<nav class="crumbs"><a id="back" href="${back}">← Keys</a></nav>
<section id="key" aria-label="${escapeHtml(title)}">
${page.view.confirmRevoke && shown.key.state !== 'revoked' ? renderRevokeConfirmation(shown.key, form) : ''}
${renderKeyCard(shown.key, shown.usage, page.limits, form)}
<h2>Answers served a day</h2>
${renderUsageChart(shown.history.scope, shown.history.days)}
</section>
${renderAudit(shown.audit, `Changes to ${shown.key.id}`)}`;
}

function renderStore(page: KeysPage): string {
  if (page.store === null) return '';
  return page.store.kind === 'table' ? renderTable(page, page.store) : renderKeyPage(page, page.store);
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
${renderStore(page)}
</main>
<datalist id="providers">${providers}</datalist>`;
  return renderDocument({ title: 'Key management', nonce: page.nonce, body });
}
