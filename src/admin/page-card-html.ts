/**
 * One key on the key-management page: its settings, a usage bar for each quota scope it counts
 * in, and, while it is active, a small POST form for each change. Revoked keys keep their card
 * (greyed by the stylesheet) but lose their forms: nothing can change them.
 *
 * Every form posts to /admin/ui/keys/{id}/{action} with the CSRF field and the page's view, so
 * it works without JavaScript; a revocation is asked for first, and confirmed on the page.
 */
import { keptValue, type PublicKeyRecord } from '../keys/record.ts';
import type { KeyView } from '../key-admin/key-view.ts';
import type { ScopeUsage } from '../key-admin/usage.ts';
import type { QuotaLimits } from '../quota/scopes.ts';
import { escapeHtml, formatCount, formatTime, hiddenField } from './page-html.ts';
import { viewFields, viewUrl, type PageView } from './page-view.ts';

/** What every form of the page carries besides its own fields. */
export interface FormContext {
  csrf: string;
  view: PageView;
}

/** More grants than this are folded into a <details>, so one key cannot make the page a list of providers. */
export const GRANTS_SHOWN_OPEN = 5;

export type UsageColour = 'green' | 'amber' | 'red';

/**
 * How full a quota window is, and the colour that says so: green below three quarters, amber up
 * to nine tenths, red above. The thresholds are the <meter>'s low and high, so the browser's own
 * colouring of the bar agrees with the label's.
 */
export function usageLevel(used: number, limit: number): { fraction: number; colour: UsageColour } {
  const fraction = limit > 0 ? Math.min(1, Math.max(0, used / limit)) : 1;
  return { fraction, colour: fraction < 0.75 ? 'green' : fraction <= 0.9 ? 'amber' : 'red' };
}

const KIND_LABELS: Record<ScopeUsage['kind'], string> = { data: 'Data requests', critpt: 'CritPt gradings' };

export function renderUsage(row: ScopeUsage): string {
  const { colour } = usageLevel(row.used, row.limit);
  const window =
    row.resets_at === null ? 'no requests in the current window' : `resets at ${formatTime(row.resets_at)}`;
  const shared = row.keys.length > 1 ? `, shared by ${row.keys.length} keys` : '';
  return (
    `<div class="usage" data-kind="${escapeHtml(row.kind)}" data-level="${colour}" data-used="${row.used}" ` +
    `data-limit="${row.limit}">
<div class="numbers"><span>${escapeHtml(KIND_LABELS[row.kind] ?? row.kind)}</span><span ` +
    `class="used">${formatCount(row.used)} / ${formatCount(row.limit)}</span></div>
<meter min="0" max="${row.limit}" low="${row.limit * 0.75}" high="${row.limit * 0.9}" optimum="0" ` +
    `value="${row.used}">${formatCount(row.used)} of ${formatCount(row.limit)}</meter>
<div class="resets">${window}<br><span class="mono">${escapeHtml(row.scope)}</span>${shared}</div>
</div>`
  );
}

/** The overlaps a regeneration offers: how long the old value keeps working, for clients to roll over. */
const OVERLAPS: [number, string][] = [
  [0, 'old value stops now'],
  [3600, 'old value works 1 hour more'],
  [86_400, 'old value works 24 hours more'],
  [7 * 86_400, 'old value works 7 days more'],
];

const REVOKE_WARNING = 'Its next request is refused, and a revoked key cannot be restored.';

/** A POST form for one change of one key; `fields` and `button` are markup made here. */
function actionForm(form: FormContext, id: string, action: string, fields: string, button: string, extra = ''): string {
  const target = `/admin/ui/keys/${escapeHtml(id)}/${action}`;
  const hidden = `${hiddenField('csrf', form.csrf)}${viewFields(form.view)}`;
  return `<form class="${action}" method="post" action="${target}"${extra}>${hidden}${fields}${button}</form>`;
}

function renderGrants(record: PublicKeyRecord, form: FormContext): string {
  if (record.grants.length === 0) return '<span class="muted">none</span>';
  const active = record.revoked_at === null;
  const items = record.grants
    .map((slug) => {
      const ungrant = active
        ? actionForm(
            form,
            record.id,
            'ungrant',
            hiddenField('provider', slug),
            `<button type="submit" class="ungrant" aria-label="Take back the grant of ${escapeHtml(slug)}">` +
              'Take back</button>',
            ` data-provider="${escapeHtml(slug)}"`,
          )
        : '';
      return `<li><code>${escapeHtml(slug)}</code>${ungrant}</li>`;
    })
    .join('');
  const count = `${record.grants.length} provider${record.grants.length === 1 ? '' : 's'}`;
  if (record.grants.length > GRANTS_SHOWN_OPEN)
    return `<details><summary class="grant-count">${count}</summary><ul class="grants">${items}</ul></details>`;
  return `<span class="grant-count">${count}</span><ul class="grants">${items}</ul>`;
}

function quotaText(record: PublicKeyRecord, limits: QuotaLimits): string {
  if (record.quota !== null) return `${formatCount(record.quota)} / 24 h`;
  const limit =
    record.tier === 'commercial' ? limits.commercialDefault : record.tier === 'pro' ? limits.pro : limits.free;
  return `server default <span class="muted">(${formatCount(limit)} / 24 h)</span>`;
}

function scopeText(record: PublicKeyRecord): string {
  return record.scope === 'org'
    ? 'org <span class="muted">(the whole org shares one quota)</span>'
    : 'user <span class="muted">(this user\'s keys share one quota)</span>';
}

function renderActions(record: PublicKeyRecord, form: FormContext): string {
  const id = record.id;
  const forms = [
    `<a class="button danger ask-revoke" href="${escapeHtml(viewUrl({ ...form.view, confirmRevoke: true }))}">` +
      'Revoke…</a>',
    actionForm(
      form,
      id,
      'regenerate',
      '<select name="overlap_seconds" aria-label="How long the old value keeps working">' +
        OVERLAPS.map(([seconds, label]) => `<option value="${seconds}">${label}</option>`).join('') +
        '</select>',
      '<button type="submit">Regenerate</button>',
    ),
    actionForm(
      form,
      id,
      'name',
      `<input type="text" name="name" maxlength="100" placeholder="no name" aria-label="The key's name" ` +
        `autocomplete="off" value="${escapeHtml(record.name ?? '')}">`,
      '<button type="submit">Save name</button>',
    ),
    actionForm(
      form,
      id,
      'expiry',
      '<input type="datetime-local" name="expires_at" step="60" ' +
        `aria-label="When the key expires, UTC (empty: never)" ` +
        `value="${record.expires_at === null ? '' : escapeHtml(record.expires_at.slice(0, 16))}">`,
      '<button type="submit">Set expiry</button>',
    ),
    actionForm(
      form,
      id,
      'critpt',
      hiddenField('approved', String(!record.critpt)),
      `<button type="submit">${record.critpt ? 'Withdraw CritPt' : 'Approve CritPt'}</button>`,
    ),
  ];
  // Grants and a quota of its own are for Commercial keys only: the forms would always be refused on others.
  if (record.tier === 'commercial') {
    forms.push(
      actionForm(
        form,
        id,
        'grant',
        '<input type="text" name="provider" list="providers" placeholder="provider slug" aria-label="Provider slug ' +
          'to grant" required spellcheck="false" autocomplete="off">',
        '<button type="submit">Grant</button>',
      ),
      actionForm(
        form,
        id,
        'quota',
        `<input type="number" name="quota" min="1" max="1000000000" step="1" placeholder="server default" ` +
          `aria-label="Requests per 24 h (empty: the server default)" ` +
          `value="${record.quota === null ? '' : record.quota}">`,
        '<button type="submit">Set quota</button>',
      ),
    );
  }
  return `<div class="actions">${forms.join('')}</div>`;
}

/** What is kept of a value (its first eight and last four characters), as the card shows it. */
function valueText(kept: { prefix: string | null; last4: string | null }): string {
  const shown = keptValue(kept);
  return shown === null
    ? '<span class="muted">not kept (issued before it was)</span>'
    : `<code>${escapeHtml(shown)}</code>`;
}

/** The value a regeneration replaced, and when it stops (or stopped) working. */
function previousText(previous: NonNullable<PublicKeyRecord['previous']>): string {
  return `${valueText(previous)} <span class="muted">works until</span> ${formatTime(previous.until)}`;
}

/**
 * The revocation asked to be confirmed: what it does, and the form that does it beside the way
 * back. On the page itself, not the browser's confirm(): it works without script, and says what
 * follows in full.
 */
const REVOKE_BUTTON = '<button type="submit" class="danger">Revoke the key</button>';

export function renderRevokeConfirmation(record: KeyView, form: FormContext): string {
  const back = escapeHtml(viewUrl({ ...form.view, confirmRevoke: false }));
  const what =
    record.name === null
      ? `<code>${escapeHtml(record.id)}</code>`
      : `“${escapeHtml(record.name)}” ` + `(<code>${escapeHtml(record.id)}</code>)`;
  return (
    `<div id="confirm-revoke" class="box confirm" role="alertdialog" aria-labelledby="confirm-title">
<p id="confirm-title"><strong>Revoke ${what} of ${escapeHtml(record.org)}?</strong></p>
<p>${REVOKE_WARNING}</p>
<div class="row">${actionForm(form, record.id, 'revoke', '', REVOKE_BUTTON)}` +
    `<a id="cancel-revoke" href="${back}">Keep it</a></div>
</div>`
  );
}

/** A key's card; `usage` holds the rows of the scopes it counts in (none once it is revoked). */
export function renderKeyCard(
  record: KeyView,
  usage: readonly ScopeUsage[],
  limits: QuotaLimits,
  form: FormContext,
): string {
  const active = record.revoked_at === null;
  const expiry = record.expires_at === null ? '<span class="muted">never</span>' : formatTime(record.expires_at);
  const lastUsed =
    record.last_used_at === null ? '<span class="muted">not recorded</span>' : formatTime(record.last_used_at);
  const fields = [
    ['Value', valueText(record)],
    ...(record.previous ? [['Old value', previousText(record.previous)]] : []),
    ['User', record.user === null ? '<span class="muted">none (an org key)</span>' : escapeHtml(record.user)],
    ['Scope', scopeText(record)],
    ['Quota', quotaText(record, limits)],
    ['Grants', renderGrants(record, form)],
    ['CritPt', record.critpt ? 'approved: yes' : 'approved: no'],
    ['Created', formatTime(record.created_at)],
    [record.state === 'expired' ? 'Expired' : 'Expires', expiry],
    ['Last used', lastUsed],
    ...(active ? [] : [['Revoked', formatTime(record.revoked_at!)]]),
  ];
  const tier = escapeHtml(record.tier);
  const stateMark = record.state === 'active' ? '' : `<span class="state-${record.state}">${record.state}</span>`;
  const name = record.name === null ? '' : `<span class="key-name">${escapeHtml(record.name)}</span>`;
  return (
    `<article class="key" data-key-id="${escapeHtml(record.id)}" data-tier="${tier}" ` +
    `data-state="${record.state}" data-critpt="${record.critpt}">
<h3><code>${escapeHtml(record.id)}</code>${name}<span class="tier tier-${tier}">${tier}</span>${stateMark}</h3>
<dl class="fields">${fields.map(([name, value]) => `<dt>${name}</dt><dd>${value}</dd>`).join('')}</dl>
${usage.map(renderUsage).join('\n')}
${active ? renderActions(record, form) : ''}
</article>`
  );
}
