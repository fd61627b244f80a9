/**
 * The audit trail as the key-management page shows it: who changed what, when and from where,
 * each change in words (`quota: 7 / 24 h · name: “nightly export”`), not JSON.
 */
import type { AuditEntry } from '../keys/audit.ts';
import { escapeHtml, formatCount, formatTime } from './page-html.ts';

/** How each field of a change is called, and how its value reads (markup: every value escaped). */
const FIELD_WORDS: Record<string, [string, (value: unknown) => string]> = {
  tier: ['tier', text],
  org: ['organisation', text],
  user: ['user', (v) => (v === null ? 'none' : text(v))],
  scope: ['quota shared by', text],
  quota: ['quota', (v) => (v === null ? 'the server default' : `${formatCount(Number(v))} / 24 h`)],
  grants: ['grants', (v) => escapeHtml(listed(v as unknown[]))],
  critpt: ['CritPt', (v) => (v === true ? 'approved' : 'not approved')],
  provider: ['provider', text],
  name: ['name', (v) => (v === null ? 'none' : `“${text(v)}”`)],
  expires_at: ['expires', (v) => (v === null ? 'never' : formatTime(String(v)))],
  overlap_until: ['old value works until', (v) => formatTime(String(v))],
};

function text(value: unknown): string {
  return escapeHtml(String(value));
}

/** More grants than this are counted, not named: a key may be made with thousands. */
const GRANTS_NAMED = 5;

function listed(values: readonly unknown[]): string {
  if (values.length === 0) return 'none';
  const named = values.slice(0, GRANTS_NAMED).join(', ');
  return values.length > GRANTS_NAMED ? `${named} and ${values.length - GRANTS_NAMED} more` : named;
}

/**
 * An entry's changes as a person reads them, `field: value` each (the values an entry records
 * are the new ones); a field the page has no words for is shown as it is, never dropped.
 */
export function readableChanges(changes: Record<string, unknown>): string {
  const parts = Object.entries(changes).map(([field, value]) => {
    const words = FIELD_WORDS[field];
    if (words === undefined) return `${escapeHtml(field)}: ${escapeHtml(JSON.stringify(value) ?? '')}`;
    const [label, said] = words;
    return `${escapeHtml(label)}: <strong>${said(value)}</strong>`;
  });
  return parts.length === 0 ? '<span class="muted">-</span>' : parts.join('<span class="sep"> · </span>');
}

export function renderAudit(entries: readonly AuditEntry[], title = 'Audit trail'): string {
  if (entries.length === 0)
    return `<section id="audit"><h2>${escapeHtml(title)}</h2><p class="muted">No changes yet.</p></section>`;
  const rows = entries.map(
    (e) =>
      `<tr class="entry"><td data-label="At">${formatTime(e.at)}</td><td data-label="By">${escapeHtml(e.actor_name)} ` +
      `<span class="muted mono">(${escapeHtml(e.actor)})</span></td><td ` +
      `data-label="Action">${escapeHtml(e.action)}</td>` +
      `<td data-label="Key or token"><code>${escapeHtml(e.key)}</code></td><td data-label="Changes" ` +
      `class="changes">${readableChanges(e.changes)}</td><td ` +
      `data-label="From">${escapeHtml(e.from)}</td></tr>`,
  );
  return `<section id="audit">
<h2>${escapeHtml(title)}</h2>
<p class="muted">The latest ${entries.length} change${entries.length === 1 ? '' : 's'}, newest first.</p>
<div class="scroll"><table>
<thead><tr><th>At</th><th>By</th><th>Action</th><th>Key or token</th><th>Changes</th><th>From</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
</section>`;
}
