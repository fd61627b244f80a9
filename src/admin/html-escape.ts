/**
 * Escaping for the key-management page: every value from outside goes through `escapeHtml`
 * exactly once, at the point it is placed (page-html.ts says the rule), in text and in attribute
 * values alike.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in an element's content and in a double- or single-quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
