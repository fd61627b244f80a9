/**
 * The answers joined from a build's history (src/shared/manifest.ts, HistoryParts), as the server
 * joins them and the build checks them: for `GET /api/v2/changes`, which of the history's builds
 * an answer lists, its pagination, the key's list the changes are of; for both it and a model's
 * history, the text around the stored sections.
 */
import type { HistoryParts } from './manifest.ts';
import type { Tier } from './route.ts';

export interface ChangesPage {
  pagination: { page: number; page_size: number; total_pages: number; has_more: boolean };
  /** Positions in `builds` (and in each shape's parts) of the builds listed, oldest first. */
  positions: number[];
}

/**
 * The builds after `since` (every build the history holds without it, or when it names the build
 * before the oldest), `page` of them; null when `since` names a build the history does not hold.
 */
export function changesPage(
  history: Pick<HistoryParts, 'builds' | 'before' | 'page_size'>,
  since: string | undefined,
  page: number,
): ChangesPage | null {
  let start = 0;
  if (since !== undefined && since !== history.before) {
    const at = history.builds.indexOf(since);
    if (at < 0) return null;
    start = at + 1;
  }
  const size = history.page_size;
  const totalPages = Math.ceil((history.builds.length - start) / size);
  const first = start + (page - 1) * size;
  const positions: number[] = [];
  for (let at = first; at < Math.min(first + size, history.builds.length); at++) positions.push(at);
  return { pagination: { page, page_size: size, total_pages: totalPages, has_more: page < totalPages }, positions };
}

/** The list a key's changes are of: the Free list, or the Pro list of the prompt type (Pro and Commercial). */
export function changesShape(tier: Tier, promptType: string): string {
  return tier === 'free' ? 'free' : `pro ${promptType}`;
}

/** The answer's text before and after its parts, which go between with commas. */
export function changesEnvelope(tier: Tier, pagination: ChangesPage['pagination']): [string, string] {
  return [`{"tier":${JSON.stringify(tier)},"pagination":${JSON.stringify(pagination)},"data":[`, ']}'];
}

/** A model's history answer: the text around its stored `data`. */
export function modelHistoryEnvelope(tier: Tier): [string, string] {
  return [`{"tier":${JSON.stringify(tier)},"data":`, '}'];
}
