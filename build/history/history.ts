/**
 * The history a build carries: the builds it remembers, what each changed against the build
 * before it in each list shape a tier reads (the Free list; the Pro list of each prompt type,
 * which Commercial keys read too), and each model's history in each Pro list. Each build writes
 * the whole history into its own pack (build/history/stored.ts), so it outlives the builds
 * themselves (only the last few are kept), travels with a build folder copied to another host,
 * and is the same bytes wherever the same sequence of data is built.
 *
 * A build continues the current build's history: its changes are the difference between the
 * lists the current build served (`latest`) and its own, and a model's history gains a point
 * wherever its item in a Pro list changed. Past `retention` builds the oldest are forgotten,
 * with the points they made. Pure: the build calls it, and so do its tests.
 */
import { PROMPT_TYPES } from '../../src/shared/routes.ts';
import { freeLanguageModel, proLanguageModel } from '../shape/language.ts';
import type { BuildContext } from '../shape/route-builder.ts';
import { diffShape, type Item, type ShapeChanges } from './diff.ts';
import { nextModelHistories, type ModelHistories } from './model-history.ts';
import { SHAPES, type BuildEntry, type BuildRecord, type ShapeName, type States } from './shapes.ts';

export { SHAPES, type BuildEntry, type BuildRecord, type ShapeName, type States } from './shapes.ts';

/** The history a build carries; its format is the manifest's (src/shared/manifest.ts, HISTORY_FORMAT). */
export interface History {
  /** The build before the oldest remembered (null where the history starts). */
  before: string | null;
  /** Oldest first; the last is the build that carries this history. */
  builds: BuildEntry[];
  /** The lists of the last build: what the next build's changes are against. */
  latest: States;
  models: ModelHistories;
}

/** The lists of a build, as its list routes serve them (the same shaping functions, in the same order). */
export function servedStates(ctx: BuildContext): States {
  const states = { free: ctx.models.map(freeLanguageModel) } as Record<ShapeName, Item[]>;
  for (const type of PROMPT_TYPES) states[`pro ${type}`] = ctx.models.map((m) => proLanguageModel(m, type)) as Item[];
  return states as States;
}

const emptyStates = (): States => Object.fromEntries(SHAPES.map((shape) => [shape, []])) as unknown as States;

/**
 * The history a new build carries: `previous` (the current build's, or null where none can be
 * read) continued with this build, the oldest forgotten past `retention` builds; this build's
 * record; and how many of `previous`'s builds were forgotten (their stored changes are not
 * carried on). Without a previous history the history starts here: every model is added, and
 * `previous_build_id` is null even when a build came before (its lists are not known).
 */
export function extendHistory(
  previous: History | null,
  build: { buildId: string; asOf: Date; states: States },
  retention: number,
): { history: History; record: BuildRecord; forgotten: number } {
  const before = previous?.latest ?? emptyStates();
  const record: BuildRecord = {
    build_id: build.buildId,
    data_as_of: build.asOf.toISOString(),
    previous_build_id: previous?.builds.at(-1)?.build_id ?? null,
    shapes: Object.fromEntries(SHAPES.map((shape) => [shape, diffShape(before[shape], build.states[shape])])) as Record<
      ShapeName,
      ShapeChanges
    >,
  };
  const { shapes: _, ...entry } = record;
  const builds = [...(previous?.builds ?? []), entry];
  const forgotten = Math.max(0, builds.length - Math.max(1, retention));
  const gone = builds.splice(0, forgotten);
  const history: History = {
    before: gone.at(-1)?.build_id ?? previous?.before ?? null,
    builds,
    latest: build.states,
    models: nextModelHistories(previous?.models ?? null, record, build.states, new Set(gone.map((b) => b.build_id))),
  };
  return { history, record, forgotten };
}
