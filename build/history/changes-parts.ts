/**
 * The answers joined from the history, as the build holds them to their schemas before anything
 * is written: the first page of every list's changes (`GET /api/v2/changes`), joined from the
 * texts the pack stores as the server joins them (src/shared/changes-page.ts), and every model's
 * history in every Pro list with the points this build adds.
 *
 * Whole answers per `since` and page would each repeat every later build's changes: with a day's
 * drift of the sample's performance figures (1.6 MB of changes a build), 30 daily builds came to
 * some 465 copies, hundreds of megabytes. A build's changes are stored once instead, and the
 * server joins the ones an answer lists.
 */
import { changesEnvelope, changesPage, changesShape, modelHistoryEnvelope } from '../../src/shared/changes-page.ts';
import { PRO_TIERS, PROMPT_TYPES, routeById, TIERS, type Route, type Tier } from '../../src/shared/routes.ts';
import { refOf } from './diff.ts';
import type { BuildRecord, History, ShapeName } from './history.ts';
import { sectionText, type Sectioned } from './sectioned.ts';

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

/** The texts a build's history is joined from: each remembered build's changes (oldest first), each model's history. */
export interface HistoryTexts {
  changes: Sectioned[];
  models: Map<string, Sectioned>;
}

type Joined = { key: string; route: Route; tier: Tier; body: unknown };

const joined = ([before, after]: [string, string], texts: string[]) =>
  JSON.parse(`${before}${texts.join(',')}${after}`);

/** Every answer to hold to its schema: the first page of each key's changes, each model's history. */
export function* historyBodies(history: History, texts: Pick<HistoryTexts, 'changes'>): Generator<Joined> {
  const changes = routeById('changes');
  const builds = history.builds.map((entry) => entry.build_id);
  const { pagination, positions } = changesPage({ builds, before: null, page_size: CHANGES_PAGE_SIZE }, undefined, 1)!;
  for (const tier of TIERS)
    for (const type of tier === 'free' ? [PROMPT_TYPES[0]] : PROMPT_TYPES) {
      const shape = changesShape(tier, type);
      const listed = positions.map((at) => sectionText(texts.changes[at]!.bytes, texts.changes[at]!.sections[shape]!));
      const body = joined(changesEnvelope(tier, pagination), listed);
      yield { key: `changes ${tier} ${shape}`, route: changes, tier, body };
    }
  // Each model's history as this build adds to it: its points from this build (none when it did not
  // change), in each tier's envelope. The points of earlier builds were held to the schema by the
  // builds that made them, and are read back only when their bytes pass their checksum: holding
  // every point again took 2.2 s of the 31st daily build of the sample (130 MB of JSON), against
  // 0.9 s (`npm run bench -- --history` makes such a folder).
  const route = routeById('language.model.history');
  const buildId = history.builds.at(-1)!.build_id;
  for (const type of PROMPT_TYPES)
    for (const model of history.models[type].values()) {
      const text = JSON.stringify({ ...model, points: model.points.filter((point) => point.build_id === buildId) });
      for (const tier of PRO_TIERS)
        yield {
          key: `history ${tier} ${type} ${model.slug}`,
          route,
          tier,
          body: joined(modelHistoryEnvelope(tier), [text]),
        };
    }
}
