/**
 * The OpenAPI document's example of `GET /api/v2/changes`, from the made-up example dataset: a
 * build that added its last model and repriced its first, against the build the day before.
 */
import { freeLanguageModel, proLanguageModel } from './language.ts';
import type { BuildContext, Params } from './route-builder.ts';
import { buildIdOf } from '../../src/shared/build-id.ts';
import type { PromptType, Tier } from '../../src/shared/routes.ts';

/** The example's builds are a day apart; their digest parts are made up. */
const DAY_MS = 86_400_000;

export function exampleChanges(ctx: BuildContext, tier: Tier, params: Params): Record<string, unknown>[] {
  const items = ctx.models.map((m) =>
    tier === 'free' ? freeLanguageModel(m) : proLanguageModel(m, params.prompt_type as PromptType),
  );
  const ref = (item: Record<string, unknown>) => ({ id: item.id, slug: item.slug, name: item.name });
  const first = items[0]!;
  const price = (first.pricing as Record<string, number | null>).price_1m_input_tokens;
  return [
    {
      build_id: buildIdOf(new Date(ctx.asOf), 'e'.repeat(8)),
      data_as_of: new Date(ctx.asOf).toISOString(),
      previous_build_id: buildIdOf(new Date(ctx.asOf - DAY_MS), 'd'.repeat(8)),
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
