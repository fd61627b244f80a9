/**
 * Content negotiation and conditional requests, as pure functions of header values.
 */
import { RecentMap } from '../lib/recent-map.ts';
import type { Encoding } from '../shared/manifest.ts';
import { HttpError } from './error.ts';

/** Preference when the client rates several encodings equally: smallest first. */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip', 'identity'];

/**
 * Pick the encoding to send from an `Accept-Encoding` value: the highest q-value among br,
 * gzip and identity (ties broken br > gzip > identity); `q=0` refuses; `*` covers what is not
 * named. Identity is acceptable unless refused explicitly or by `*;q=0`. Null when nothing
 * acceptable is left (the caller answers 406).
 */
export function chooseEncoding(header: string | undefined): Encoding | null {
  if (!header) return 'identity';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.trim().split(';');
    const name = rawName.trim().toLowerCase();
    if (!name) continue;
    let quality = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value);
        quality = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    // A coding named twice keeps its highest rating.
    q.set(name, Math.max(q.get(name) ?? 0, quality));
  }
  const star = q.get('*');
  const rating = (encoding: Encoding): number => {
    const named = q.get(encoding) ?? (encoding === 'gzip' ? q.get('x-gzip') : undefined);
    if (named !== undefined) return named;
    if (star !== undefined) return star;
    return encoding === 'identity' ? 0.001 : 0;
  };
  let best: Encoding | null = null;
  let bestQ = 0;
  for (const encoding of PREFERENCE) {
    const r = rating(encoding);
    if (r > bestQ) [best, bestQ] = [encoding, r];
  }
  return best;
}

/** Distinct values remembered per generation (two generations), and the longest remembered (an attacker's values are neither few nor short). */
const CHOSEN_VALUES = 128;
const CHOSEN_LENGTH = 256;
const chosen = new RecentMap<string, Encoding | null>(CHOSEN_VALUES);

/**
 * chooseEncoding, remembered per header value: clients send a handful of distinct values, and
 * parsing one costs more than finding its body (BENCHMARKS.md, "Throughput"). Bounded: at most
 * 256 values are held.
 */
export function encodingFor(header: string | undefined): Encoding | null {
  if (!header || header.length > CHOSEN_LENGTH) return chooseEncoding(header);
  let encoding = chosen.get(header);
  if (encoding === undefined) chosen.set(header, (encoding = chooseEncoding(header)));
  return encoding;
}

/** The encoding to send for an `Accept-Encoding` value; 406 when the client refuses all three. */
export function acceptedEncoding(header: string | undefined): Encoding {
  const encoding = encodingFor(header);
  if (!encoding) throw new HttpError(406, 'No acceptable content encoding: this server sends br, gzip or identity', { details: { available: ['br', 'gzip', 'identity'] } });
  return encoding;
}

/** Strip the weak marker: If-None-Match uses the weak comparison (RFC 9110, 13.1.2). */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Does an `If-None-Match` value (a list, or `*`) match this ETag? */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const wanted = opaque(etag);
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || opaque(tag) === wanted) return true;
  }
  return false;
}

/**
 * Does an `Accept` value rank text/html above JSON? Browsers send `text/html,...,*\/*;q=0.8`;
 * API clients send JSON or nothing, and get JSON.
 */
export function prefersHtml(header: string | undefined): boolean {
  if (!header) return false;
  let html = 0;
  let json = 0;
  for (const part of header.split(',')) {
    const [rawType, ...params] = part.trim().split(';');
    const type = rawType.trim().toLowerCase();
    const qParam = params.map((p) => p.trim().split('=')).find(([k]) => k.trim().toLowerCase() === 'q');
    const q = qParam ? Math.min(1, Math.max(0, Number(qParam[1]) || 0)) : 1;
    if (type === 'text/html') html = Math.max(html, q);
    else if (type === 'application/json') json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}
