/**
 * A refusal as the key-management page says it: the operation's error (the API's `{error,
 * details}`, the same for both) in sentences a person reads, not JSON. The field a refusal names
 * is called by its label on the form; a pattern it had to match is said in words; the nearest
 * provider the snapshot serves is offered as a suggestion. Details the page has no words for
 * are listed as they are, never dropped.
 */
import { KEY_NAME_PATTERN, NAME_PATTERN } from '../keys/record.ts';
import { escapeHtml } from './html-escape.ts';

/** Each field as its form labels it. */
const FIELD_LABELS: Record<string, string> = {
  tier: 'Tier',
  org: 'Organisation',
  user: 'User',
  name: 'Name',
  expires_at: 'Expires',
  scope: 'Quota shared by',
  quota: 'Quota',
  grants: 'Grants',
  provider: 'Provider',
  approved: 'CritPt approval',
  overlap_seconds: 'Overlap',
  q: 'Search',
};

/** Patterns a value must match, in words. */
const PATTERN_WORDS: [string, string][] = [
  [NAME_PATTERN.source, '1 to 100 letters, digits or . _ @ + - , starting with a letter or digit'],
  [KEY_NAME_PATTERN.source, '1 to 100 characters, not all blank, with no control characters'],
];

/** The details the sentences below say; any other is listed as it is. */
const SAID = new Set(['field', 'expected', 'got', 'reason', 'provider', 'did_you_mean', 'snapshot', 'providers']);

function labelOf(field: string): string {
  const base = field.replace(/\[\d+\]$/, '');
  return FIELD_LABELS[base] ?? base;
}

function expectedWords(expected: string): string {
  const pattern = /^a string matching (.*)$/.exec(expected)?.[1];
  if (pattern === undefined) return expected;
  return PATTERN_WORDS.find(([source]) => source === pattern)?.[1] ?? expected;
}

/** A sentence: its first letter capital, ending with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The sentences (markup, every value escaped) that say what a refusal's details mean. */
export function errorSentences(details: Record<string, unknown>): string[] {
  const said: string[] = [];
  const text = (key: string) => (typeof details[key] === 'string' ? (details[key] as string) : null);
  const field = text('field');
  const expected = text('expected');
  if (field !== null && expected !== null) {
    const got = text('got');
    const was = got === null || got === 'nothing' ? ' It was left empty.' : ` It was ${escapeHtml(got)}.`;
    said.push(`${escapeHtml(labelOf(field))} must be ${escapeHtml(expectedWords(expected))}.${was}`);
  } else if (expected !== null) said.push(escapeHtml(sentence(`expected ${expected}`)));
  const reason = text('reason');
  if (reason !== null) said.push(escapeHtml(sentence(reason)));
  const provider = text('provider');
  if (provider !== null && details.snapshot !== undefined) {
    said.push(
      `The snapshot served now (build <code>${escapeHtml(details.snapshot)}</code>) has no provider ` +
        `<code>${escapeHtml(provider)}</code>.`,
    );
  }
  const meant = text('did_you_mean');
  if (meant !== null) said.push(`Did you mean <code class="suggestion">${escapeHtml(meant)}</code>?`);
  for (const [key, value] of Object.entries(details)) {
    if (SAID.has(key)) continue;
    said.push(`${escapeHtml(labelOf(key).replaceAll('_', ' '))}: ${escapeHtml(plain(value))}.`);
  }
  return said;
}

function plain(value: unknown): string {
  if (value === null) return 'none';
  if (Array.isArray(value)) return value.map(plain).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
