/**
 * The history a build carries: what every build it remembers changed, against the build before
 * it, in each list shape a tier reads (the Free list; the Pro list of each prompt type, which
 * Commercial keys read too). Each build writes the whole history into its own pack, so it outlives
 * the builds themselves (only the last few are kept), travels with a build folder copied to
 * another host, and is the same bytes wherever the same sequence of data is built.
 *
 * It holds the state before its oldest build (`base`: whole items) and each build's changes from
 * there on; replaying them gives every build's lists, which the model history route serves. Past
 * `retention` builds, the oldest is folded into the base.
 */
import { PROMPT_TYPES, type PromptType } from '../../src/shared/routes.ts';
import { freeLanguageModel, proLanguageModel } from '../shape/language.ts';
import type { BuildContext } from '../shape/route-builder.ts';
import { applyShape, diffShape, type Item, type ShapeChanges } from './diff.ts';

/** The history's own format, written in it: a later build that cannot read it starts a new one. */
export const HISTORY_FORMAT = 1;

/** A list shape: `free`, or `pro PROMPT_TYPE` (the Pro list as Pro and Commercial keys read it). */
export type ShapeName = 'free' | `pro ${PromptType}`;
export const SHAPES: readonly ShapeName[] = ['free', ...PROMPT_TYPES.map((type) => `pro ${type}` as const)];

export type States = Record<ShapeName, Item[]>;

/** One build of the history: its data date, the build before it, and what changed in each shape. */
export interface BuildRecord {
  build_id: string;
  data_as_of: string;
  /** Null for the build the history starts at: every model it served is `added`. */
  previous_build_id: string | null;
  /** The ids of its lists, in their order (every shape lists the models in one order). */
  order: string[];
  shapes: Record<ShapeName, ShapeChanges>;
}

export interface History {
  format: number;
  /** The lists before the oldest build (its previous build's, or empty where the history starts). */
  base: { build_id: string | null; shapes: States };
  /** Oldest first; the last is the build that carries this history. */
  builds: BuildRecord[];
}

/** The lists of a build, as its list routes serve them (the same shaping functions, in the same order). */
export function servedStates(ctx: BuildContext): States {
  const states = { free: ctx.models.map(freeLanguageModel) } as Record<ShapeName, Item[]>;
  for (const type of PROMPT_TYPES) states[`pro ${type}`] = ctx.models.map((m) => proLanguageModel(m, type)) as Item[];
  return states as States;
}

const emptyStates = (): States => Object.fromEntries(SHAPES.map((shape) => [shape, []])) as unknown as States;

/** The lists after `record`, from the lists before it. */
export function applyRecord(before: States, record: BuildRecord): States {
  return Object.fromEntries(
    SHAPES.map((shape) => [shape, applyShape(before[shape], record.shapes[shape], record.order)]),
  ) as unknown as States;
}

/** Every build's lists, oldest first, replayed from the base. */
export function* replay(history: History): Generator<{ record: BuildRecord; states: States }> {
  let states = history.base.shapes;
  for (const record of history.builds) {
    states = applyRecord(states, record);
    yield { record, states };
  }
}

/** The lists of the history's newest build (the base's when it holds none). */
export function latestStates(history: History): States {
  let states = history.base.shapes;
  for (const { states: next } of replay(history)) states = next;
  return states;
}

/**
 * The history a new build carries: `previous` (the current build's, or null where none can be
 * read) with this build's record added, and the oldest folded into the base past `retention`
 * builds. Without a previous history the history starts here: every model is added, and
 * `previous_build_id` is null even when a build came before (its lists are not known).
 */
export function extendHistory(
  previous: History | null,
  build: { buildId: string; asOf: Date; states: States },
  retention: number,
): { history: History; record: BuildRecord } {
  const history: History = previous ?? {
    format: HISTORY_FORMAT,
    base: { build_id: null, shapes: emptyStates() },
    builds: [],
  };
  const before = previous ? latestStates(previous) : emptyStates();
  const record: BuildRecord = {
    build_id: build.buildId,
    data_as_of: build.asOf.toISOString(),
    previous_build_id: previous?.builds.at(-1)?.build_id ?? null,
    order: build.states.free.map((item) => item.id),
    shapes: Object.fromEntries(SHAPES.map((shape) => [shape, diffShape(before[shape], build.states[shape])])) as Record<
      ShapeName,
      ShapeChanges
    >,
  };
  const builds = [...history.builds, record];
  let base = history.base;
  while (builds.length > Math.max(1, retention)) {
    const oldest = builds.shift()!;
    base = { build_id: oldest.build_id, shapes: applyRecord(base.shapes, oldest) };
  }
  return { history: { format: HISTORY_FORMAT, base, builds }, record };
}
