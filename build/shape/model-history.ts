/**
 * The data of `GET /api/v2/language/models/{slug}/history`: the model's history in the Pro list of
 * the prompt type, as the build's history made it (build/history/model-history.ts). Outside a
 * build (`--check`, the OpenAPI example) there is no history: a model's one point is this build.
 */
import { buildIdOf } from '../../src/shared/build-id.ts';
import type { PromptType } from '../../src/shared/routes.ts';
import { proLanguageModel } from './language.ts';
import type { BuildContext, ModelHistory } from './route-builder.ts';

export function modelHistoryOf(ctx: BuildContext, promptType: PromptType, slug: string): ModelHistory {
  const known = ctx.modelHistory?.get(promptType)?.get(slug);
  if (known) return known;
  const view = ctx.models.find((m) => m.model.slug === slug)!;
  const model = proLanguageModel(view, promptType);
  // Only the OpenAPI example's context has no build id: its digest part is made up.
  const buildId = ctx.buildId ?? buildIdOf(new Date(ctx.asOf), 'e'.repeat(8));
  const point = { build_id: buildId, data_as_of: new Date(ctx.asOf).toISOString(), model };
  return { id: view.model.id, slug, name: view.model.name, points: [point] };
}
