/**
 * Each model's history in each Pro list, for `GET /api/v2/language/models/{slug}/history`: one
 * point per build of the history at which the model was added or anything of it in that list
 * changed, with the model as that build's list served it (replayed from the history). A model
 * listed now that has not changed in the builds the history remembers has no point; one no longer
 * listed keeps the points it had.
 */
import { PROMPT_TYPES } from '../../src/shared/routes.ts';
import type { ModelHistories, ModelHistory } from '../shape/route-builder.ts';
import { replay, type History, type States } from './history.ts';

export function modelHistories(history: History): ModelHistories {
  const byType: ModelHistories = new Map(PROMPT_TYPES.map((type) => [type, new Map<string, ModelHistory>()]));
  const byId = new Map(PROMPT_TYPES.map((type) => [type, new Map<string, ModelHistory>()]));
  let latest: States | null = null;
  for (const { record, states } of replay(history)) {
    latest = states;
    for (const type of PROMPT_TYPES) {
      const shape = record.shapes[`pro ${type}`];
      const moved = new Set([...shape.added.map((m) => m.id), ...shape.changed.map((m) => m.id)]);
      const histories = byId.get(type)!;
      for (const item of states[`pro ${type}`]) {
        if (!moved.has(item.id)) continue;
        let model = histories.get(item.id);
        if (!model) histories.set(item.id, (model = { id: item.id, slug: item.slug, name: item.name, points: [] }));
        Object.assign(model, { slug: item.slug, name: item.name });
        model.points.push({ build_id: record.build_id, data_as_of: record.data_as_of, model: item });
      }
    }
  }
  for (const type of PROMPT_TYPES) {
    const histories = byId.get(type)!;
    for (const item of latest?.[`pro ${type}`] ?? [])
      if (!histories.has(item.id))
        histories.set(item.id, { id: item.id, slug: item.slug, name: item.name, points: [] });
    for (const model of histories.values()) byType.get(type)!.set(model.slug, model);
  }
  return byType;
}
