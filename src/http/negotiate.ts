/**
 * Content negotiation and conditional requests, as pure functions of header values.
 */
import { RecentMap } from '../lib/recent-map.ts';
import type { Encoding } from '../shared/manifest.ts';
import { HttpError } from './error.ts';

/** Preference when the client rates several encodings equally: smallest first. */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip', 'identity'];

/**
 * The encodings a client accepts, from an `Accept-Encoding` value, best first: by q-value
 * among br, gzip and identity (ties broken br > gzip > identity); `q=0` refuses; `*` covers
 * what is not named. Identity is acceptable unless refused explicitly or by `*;q=0`. Empty when
 * nothing acceptable is left (the caller answers 406). The first is the one sent; the others
 * stand in when its stored bytes fail their checksum.
 */
export function rankEncodings(header: string | undefined): readonly Encoding[] {
  if (!header) return ['identity'];
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
  // A stable sort keeps PREFERENCE's order among equal ratings.
  return PREFERENCE.filter((encoding) => rating(encoding) > 0).sort((a, b) => rating(b) - rating(a));
}

/**
 * Distinct values remembered per generation (two generations), and the longest remembered (an
 * attacker's values are neither few nor short).
 */
const CHOSEN_VALUES = 128;
const CHOSEN_LENGTH = 256;
const ranked = new RecentMap<string, readonly Encoding[]>(CHOSEN_VALUES);

/**
 * rankEncodings, remembered per header value: clients send a handful of distinct values, and
 * parsing one costs more than finding its body (BENCHMARKS.md, "Throughput"). Bounded: at most
 * 256 values are held.
 */
export function encodingsFor(header: string | undefined): readonly Encoding[] {
  if (!header || header.length > CHOSEN_LENGTH) return rankEncodings(header);
  let encodings = ranked.get(header);
  if (encodings === undefined) ranked.set(header, (encodings = Object.freeze(rankEncodings(header))));
  return encodings;
}

/** The encodings to send for an `Accept-Encoding` value, best first; 406 when the client refuses all three. */
export function acceptedEncodings(header: string | undefined): readonly Encoding[] {
  const encodings = encodingsFor(header);
  if (encodings.length === 0)
    throw new HttpError(406, 'No acceptable content encoding: this server sends br, gzip or identity', {
      details: { available: ['br', 'gzip', 'identity'] },
    });
  return encodings;
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

/** Is an `If-None-Match` value `*`: matched by any current representation, whatever its ETag? */
export function matchesAny(header: string | undefined): boolean {
  return header !== undefined && header.split(',').some((tag) => tag.trim() === '*');
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
