/**
 * The OpenAPI document's examples of the answers joined from a build's history (the server joins
 * them; build/shape/bodies.ts makes none), from the made-up example dataset: for
 * `GET /api/v2/changes`, a build that added its last model and repriced its first, against the
 * build the day before; for a model's history, one point, this build.
 */
import { freeLanguageModel, proLanguageModel } from './language.ts';
import type { BuildContext, Params } from './route-builder.ts';
import { buildIdOf } from '../../src/shared/build-id.ts';
import type { PromptType, Tier } from '../../src/shared/routes.ts';

/** The example's builds are a day apart; their digest parts are made up. */
const DAY_MS = 86_400_000;
const exampleBuildId = (at: number, digit: string) => buildIdOf(new Date(at), digit.repeat(8));

export function exampleChanges(ctx: BuildContext, tier: Tier, params: Params): Record<string, unknown>[] {
  const items = ctx.models.map((m) =>
    tier === 'free' ? freeLanguageModel(m) : proLanguageModel(m, params.prompt_type as PromptType),
  );
  const ref = (item: Record<string, unknown>) => ({ id: item.id, slug: item.slug, name: item.name });
  const first = items[0]!;
  const price = (first.pricing as Record<string, number | null>).price_1m_input_tokens;
  return [
    {
      build_id: exampleBuildId(ctx.asOf, 'e'),
      data_as_of: new Date(ctx.asOf).toISOString(),
      previous_build_id: exampleBuildId(ctx.asOf - DAY_MS, 'd'),
      added: items.length > 1 ? [ref(items[items.length - 1]!)] : [],
      removed: [],
      changed: [
        {
          ...ref(first),
          changes: [{ field: 'pricing.price_1m_input_tokens', from: price === null ? 1 : price * 2, to: price }],
        },
      ],
    },
  ];
}

export function exampleModelHistory(ctx: BuildContext, promptType: PromptType, slug: string): Record<string, unknown> {
  const view = ctx.models.find((m) => m.model.slug === slug)!;
  const point = {
    build_id: exampleBuildId(ctx.asOf, 'e'),
    data_as_of: new Date(ctx.asOf).toISOString(),
    model: proLanguageModel(view, promptType),
  };
  return { id: view.model.id, slug, name: view.model.name, points: [point] };
}
