/**
 * Each model's history in each Pro list, for `GET /api/v2/language/models/{slug}/history`: one
 * point per remembered build at which the model was added or anything of it in that list
 * changed, with the model as that build's list served it. A model listed now that has not
 * changed in the builds the history remembers has no point; one no longer listed keeps the points
 * it had until they are forgotten, and then goes.
 */
import { PROMPT_TYPES, type PromptType } from '../../src/shared/routes.ts';
import type { Item } from './diff.ts';
import type { BuildRecord, States } from './shapes.ts';

/** One build at which what a Pro key reads of a model changed, and the model as that build's list served it. */
export interface HistoryPoint {
  build_id: string;
  data_as_of: string;
  model: Item;
}

/** A model's history in one Pro list: as it was last listed, and its points, oldest first. */
export interface ModelHistory {
  id: string;
  slug: string;
  name: string;
  points: HistoryPoint[];
}

/** By prompt type, then by model id (the models of earlier histories first, then new ones, in list order). */
export type ModelHistories = Record<PromptType, Map<string, ModelHistory>>;

/**
 * The histories after the build of `record`, whose lists are `states`: `previous` without the
 * points of the `forgotten` builds, with a point for each model the build added or changed.
 */
export function nextModelHistories(
  previous: ModelHistories | null,
  record: BuildRecord,
  states: States,
  forgotten: ReadonlySet<string>,
): ModelHistories {
  const next = {} as ModelHistories;
  for (const type of PROMPT_TYPES) {
    const models = new Map<string, ModelHistory>();
    for (const [id, model] of previous?.[type] ?? []) {
      const points = forgotten.size ? model.points.filter((point) => !forgotten.has(point.build_id)) : model.points;
      models.set(id, { ...model, points });
    }
    const { added, changed } = record.shapes[`pro ${type}`];
    const moved = new Set([...added.map((item) => item.id), ...changed.map((item) => item.id)]);
    const listed = new Set<string>();
    for (const item of states[`pro ${type}`]) {
      listed.add(item.id);
      const points = [...(models.get(item.id)?.points ?? [])];
      if (moved.has(item.id)) points.push({ build_id: record.build_id, data_as_of: record.data_as_of, model: item });
      models.set(item.id, { id: item.id, slug: item.slug, name: item.name, points });
    }
    for (const [id, model] of models) if (!listed.has(id) && model.points.length === 0) models.delete(id);
    next[type] = models;
  }
  return next;
}
