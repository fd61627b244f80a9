/**
 * The table of keys on the key-management page: the filters (a GET form: the search runs on the
 * server, so it works without JavaScript and reads no key it does not need), one page of keys as
 * rows whose headings sort, and the links to the other pages. A row's id leads to the key's own
 * page, where it is changed. A pure function of what page-store.ts read.
 */
import type { Pagination, SortColumn } from '../key-admin/key-query.ts';
import type { KeyView } from '../key-admin/key-view.ts';
import { keptValue } from '../keys/record.ts';
import type { ScopeUsage } from '../key-admin/usage.ts';
import { escapeHtml, formatCount, formatTime } from './page-html.ts';
import { usageLevel } from './page-card-html.ts';
import { viewUrl, type PageView, type ViewState } from './page-view.ts';

const STATE_LABELS: Record<ViewState, string> = {
  live: 'Not revoked',
  active: 'Active',
  expired: 'Expired',
  revoked: 'Revoked',
  all: 'Every state',
};

/** The table's columns: a heading, the sort it links to (none: not sortable), a cell. */
const COLUMNS: { heading: string; sort: SortColumn | null }[] = [
  { heading: 'Organisation', sort: 'org' },
  { heading: 'Name', sort: 'name' },
  { heading: 'Id', sort: 'id' },
  { heading: 'Value', sort: null },
  { heading: 'Tier', sort: 'tier' },
  { heading: 'Scope', sort: 'scope' },
  { heading: 'Usage', sort: null },
  { heading: 'Last used', sort: 'last_used' },
  { heading: 'Expires', sort: 'expires' },
  { heading: 'State', sort: 'state' },
];

function option(value: string, label: string, chosen: string | null): string {
  return `<option value="${escapeHtml(value)}"${value === chosen ? ' selected' : ''}>${escapeHtml(label)}</option>`;
}

/** Whether the view asks for some keys only (by text, organisation, user, name or tier). */
function filtered(view: PageView): boolean {
  return view.q !== null || view.org !== null || view.user !== null || view.name !== null || view.tier !== null;
}

/** The search and filters: a GET form, its sort kept; a new search starts at page 1. */
export function renderFilters(view: PageView): string {
  const sortFields =
    (view.sort === 'org' ? '' : `<input type="hidden" name="sort" value="${escapeHtml(view.sort)}">`) +
    (view.descending ? '<input type="hidden" name="order" value="desc">' : '');
  const tiers = ['free', 'pro', 'commercial'].map((tier) => option(tier, tier, view.tier)).join('');
  const states = Object.entries(STATE_LABELS)
    .map(([state, label]) => option(state, label, view.state))
    .join('');
  const clear = filtered(view) || view.state !== 'live';
  return (
    `<form id="filters" class="filters" method="get" action="/admin/" role="search">
<label>Search <input type="search" name="q" maxlength="100" value="${escapeHtml(view.q ?? '')}" ` +
    `placeholder="id, name, organisation, user or bdk_…" spellcheck="false" autocomplete="off"></label>
<label>Organisation <input type="text" name="org" maxlength="100" value="${escapeHtml(view.org ?? '')}" ` +
    `spellcheck="false" autocomplete="off"></label>
<label>User <input type="text" name="user" maxlength="100" value="${escapeHtml(view.user ?? '')}" ` +
    `spellcheck="false" autocomplete="off"></label>
<label>Name <input type="text" name="name" maxlength="100" value="${escapeHtml(view.name ?? '')}" ` +
    `autocomplete="off"></label>
<label>Tier <select name="tier">${option('', 'any', view.tier ?? '')}${tiers}</select></label>
<label>State <select name="state">${states}</select></label>
${sortFields}<button type="submit">Show</button>${clear ? '<a class="clear" href="/admin/">Clear</a>' : ''}
</form>`
  );
}

/** A heading that sorts by its column, ascending first, descending when it already sorts ascending. */
function heading(view: PageView, column: (typeof COLUMNS)[number]): string {
  if (column.sort === null) return `<th scope="col">${column.heading}</th>`;
  const current = view.sort === column.sort;
  const descending = current && !view.descending;
  const href = escapeHtml(viewUrl({ ...view, sort: column.sort, descending, page: 1 }));
  const sorted = current ? ` aria-sort="${view.descending ? 'descending' : 'ascending'}"` : '';
  const arrow = current ? (view.descending ? ' ↓' : ' ↑') : '';
  return `<th scope="col"${sorted}><a href="${href}">${column.heading}${arrow}</a></th>`;
}

function usageCell(usage: ScopeUsage | undefined): string {
  if (usage === undefined) return '<span class="muted">-</span>';
  const { colour } = usageLevel(usage.used, usage.limit);
  return (
    `<span class="usage-cell" data-level="${colour}"><meter min="0" max="${usage.limit}" low="${usage.limit * 0.75}" ` +
    `high="${usage.limit * 0.9}" optimum="0" value="${usage.used}"></meter> ` +
    `${formatCount(usage.used)} / ${formatCount(usage.limit)}</span>`
  );
}

function timeOr(iso: string | null, none: string): string {
  return iso === null ? `<span class="muted">${none}</span>` : formatTime(iso);
}

function row(view: PageView, key: KeyView, usage: ScopeUsage | undefined): string {
  const value = keptValue(key) ?? '-';
  const page = escapeHtml(viewUrl({ ...view, key: key.id }));
  const cells = [
    escapeHtml(key.org),
    key.name === null ? '<span class="muted">-</span>' : escapeHtml(key.name),
    `<a class="key-link" href="${page}"><code>${escapeHtml(key.id)}</code></a>`,
    `<code>${escapeHtml(value)}</code>`,
    `<span class="tier tier-${escapeHtml(key.tier)}">${escapeHtml(key.tier)}</span>`,
    escapeHtml(key.scope),
    key.state === 'revoked' ? '<span class="muted">-</span>' : usageCell(usage),
    timeOr(key.last_used_at, 'never'),
    timeOr(key.expires_at, 'never'),
    `<span class="state state-${key.state}">${key.state}</span>`,
  ];
  return (
    `<tr class="key-row" data-key-id="${escapeHtml(key.id)}" data-state="${key.state}">` +
    cells.map((cell, i) => `<td data-label="${COLUMNS[i]!.heading}">${cell}</td>`).join('') +
    '</tr>'
  );
}

/** "Keys 51-100 of 1,234" and the links to the first, previous, next and last pages. */
function renderPager(view: PageView, pagination: Pagination, shown: number): string {
  const { page, per_page: perPage, total, total_pages: pages } = pagination;
  const first = total === 0 ? 0 : (page - 1) * perPage + 1;
  const range =
    shown === 0 ? `No keys on page ${page}` : `Keys ${formatCount(first)}–${formatCount(first + shown - 1)}`;
  const link = (to: number, text: string, rel: string) =>
    to < 1 || to > pages || to === page
      ? `<span class="muted">${text}</span>`
      : `<a rel="${rel}" href="${escapeHtml(viewUrl({ ...view, page: to }))}">${text}</a>`;
  return (
    `<nav class="pager" aria-label="Pages of keys"><span class="range">${range} of ${formatCount(total)}</span>
${link(1, '« First', 'first')} ${link(page - 1, '‹ Previous', 'prev')} <span>page ${formatCount(page)} of ` +
    `${formatCount(Math.max(pages, 1))}</span> ${link(page + 1, 'Next ›', 'next')} ` +
    `${link(pages, 'Last »', 'last')}</nav>`
  );
}

/** The table of one page of keys, with its filters and pager. */
export function renderKeyTable(
  view: PageView,
  keys: readonly KeyView[],
  pagination: Pagination,
  usage: readonly ScopeUsage[],
): string {
  // Each key's data scope by its id, once: a lookup per row, not a search of every row.
  const usageById = new Map<string, ScopeUsage>();
  for (const scope of usage) for (const id of scope.keys) usageById.set(id, scope);
  const empty =
    pagination.total === 0 ? `<p class="muted">${filtered(view) ? 'No key matches.' : 'No keys yet.'}</p>` : '';
  const rows = keys.map((key) => row(view, key, usageById.get(key.id))).join('\n');
  return `${renderFilters(view)}
${renderPager(view, pagination, keys.length)}
${empty}<div class="scroll"><table class="keys-table">
<thead><tr>${COLUMNS.map((column) => heading(view, column)).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`;
}
