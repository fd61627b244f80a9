/**
 * The parts `GET /api/v2/changes` is assembled from (src/shared/manifest.ts, ChangesParts): one
 * per build of the history and list shape, the JSON of that build's item of the answer's `data`.
 *
 * Whole answers per `since` and page would each repeat every later build's changes: with a day's
 * drift of the sample's performance figures (1.6 MB of changes a build, 0.37 MB compressed, over
 * the seven shapes), 30 daily builds came to some 465 copies, hundreds of megabytes. A build's
 * changes are stored once instead, and the server joins the ones an answer lists.
 */
import { changesEnvelope, changesPage, changesShape } from '../../src/shared/changes-page.ts';
import type { ChangesParts, CheckedSpan } from '../../src/shared/manifest.ts';
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

/** Every part, by shape, build by build (oldest first): the bytes the pack stores. */
export function changesParts(history: History): Map<ShapeName, Buffer[]> {
  return new Map(
    SHAPES.map((shape) => [
      shape,
      history.builds.map((record) => Buffer.from(JSON.stringify(changesItem(record, shape)))),
    ]),
  );
}

/** The manifest's `changes_parts`: the history's builds, and each part's span by shape, as changesParts has them. */
export function changesManifest(history: History, spans: ReadonlyMap<ShapeName, CheckedSpan[]>): ChangesParts {
  return {
    builds: history.builds.map((record) => record.build_id),
    before: history.builds[0]?.previous_build_id ?? null,
    page_size: CHANGES_PAGE_SIZE,
    parts: Object.fromEntries(spans),
  };
}

/**
 * The first page of every list's changes, joined from `parts` as the server joins them
 * (src/shared/changes-page.ts: every build the history holds), for the build to hold each to the
 * route's schema before anything is written.
 */
export function* changesBodies(
  history: History,
  parts: ReadonlyMap<ShapeName, Buffer[]>,
): Generator<{ key: string; route: Route; tier: Tier; body: unknown }> {
  const route = routeById('changes');
  const builds = history.builds.map((record) => record.build_id);
  const { pagination, positions } = changesPage({ builds, before: null, page_size: CHANGES_PAGE_SIZE }, undefined, 1)!;
  for (const tier of TIERS)
    for (const type of tier === 'free' ? [PROMPT_TYPES[0]] : PROMPT_TYPES) {
      const shape = changesShape(tier, type) as ShapeName;
      const [before, after] = changesEnvelope(tier, pagination);
      const listed = positions.map((at) => parts.get(shape)![at]!.toString('utf8'));
      yield { key: `changes ${tier} ${shape}`, route, tier, body: JSON.parse(`${before}${listed.join(',')}${after}`) };
    }
}
