/**
 * The parts `GET /api/v2/changes` is assembled from (src/shared/manifest.ts, ChangesParts): one
 * per build of the history and list shape, the JSON of that build's item of the answer's `data`.
 *
 * Whole answers per `since` and page would each repeat every later build's changes: with a day's
 * drift of the sample's performance figures (1.6 MB of changes a build, 0.37 MB compressed, over
 * the seven shapes), 30 daily builds came to some 465 copies, hundreds of megabytes. A build's
 * changes are stored once instead, and the server joins the ones an answer lists.
 */
import type { CheckedSpan } from '../../src/shared/manifest.ts';
import { PROMPT_TYPES, routeById, TIERS, type Route, type Tier } from '../../src/shared/routes.ts';
import { refOf } from './diff.ts';
import { SHAPES, type BuildRecord, type History, type ShapeName } from './history.ts';

/** Builds per page of `GET /api/v2/changes`: a build of the sample may list a quarter of a megabyte of changes. */
export const CHANGES_PAGE_SIZE = 10;

/** One build's changes in one shape, as the answer lists them: models added and removed by reference. */
export function changesItem(record: BuildRecord, shape: ShapeName): Record<string, unknown> {
  const { added, removed, changed } = record.shapes[shape];
  return {
    build_id: record.build_id,
    data_as_of: record.data_as_of,
    previous_build_id: record.previous_build_id,
    added: added.map(refOf),
    removed,
    changed,
  };
}

/** Every part, shape by shape and build by build (oldest first), for the pack. */
export function* changesParts(history: History): Generator<{ shape: ShapeName; bytes: Buffer }> {
  for (const shape of SHAPES)
    for (const record of history.builds)
      yield { shape, bytes: Buffer.from(JSON.stringify(changesItem(record, shape))) };
}

/** The manifest's `changes_parts`, from the history and each part's span in the order changesParts gave them. */
export function changesManifest(history: History, spans: readonly CheckedSpan[]) {
  const n = history.builds.length;
  return {
    builds: history.builds.map((record) => record.build_id),
    before: history.builds[0]?.previous_build_id ?? null,
    page_size: CHANGES_PAGE_SIZE,
    parts: Object.fromEntries(SHAPES.map((shape, s) => [shape, spans.slice(s * n, (s + 1) * n)])),
  };
}

/**
 * The first page of every list's changes, as the server joins it (every build the history holds),
 * for the build to hold each to the route's schema before anything is written.
 */
export function* changesBodies(history: History): Generator<{ key: string; route: Route; tier: Tier; body: unknown }> {
  const route = routeById('changes');
  const builds = history.builds.slice(0, CHANGES_PAGE_SIZE);
  const totalPages = Math.ceil(history.builds.length / CHANGES_PAGE_SIZE);
  const pagination = { page: 1, page_size: CHANGES_PAGE_SIZE, total_pages: totalPages, has_more: totalPages > 1 };
  for (const tier of TIERS)
    for (const type of tier === 'free' ? [PROMPT_TYPES[0]] : PROMPT_TYPES) {
      const shape: ShapeName = tier === 'free' ? 'free' : `pro ${type}`;
      const data = builds.map((record) => changesItem(record, shape));
      yield { key: `changes ${tier} ${shape}`, route, tier, body: { tier, pagination, data } };
    }
}
