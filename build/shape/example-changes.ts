/**
 * The OpenAPI document's example of `GET /api/v2/changes`, from the made-up example dataset: a
 * build that added its last model and repriced its first, against the build the day before.
 */
import { freeLanguageModel, proLanguageModel } from './language.ts';
import type { BuildContext, Params } from './route-builder.ts';
import type { PromptType, Tier } from '../../src/shared/routes.ts';

const DAY_MS = 86_400_000;

/** A build id of that time (as build/pack/snapshot-dir.ts makes them), its digest part made up. */
const exampleId = (at: number, digit: string) =>
  `${new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${digit.repeat(8)}`;

export function exampleChanges(ctx: BuildContext, tier: Tier, params: Params): Record<string, unknown>[] {
  const items = ctx.models.map((m) =>
    tier === 'free' ? freeLanguageModel(m) : proLanguageModel(m, params.prompt_type as PromptType),
  );
  const ref = (item: Record<string, unknown>) => ({ id: item.id, slug: item.slug, name: item.name });
  const first = items[0]!;
  const price = (first.pricing as Record<string, number | null>).price_1m_input_tokens;
  return [
    {
      build_id: exampleId(ctx.asOf, 'e'),
      data_as_of: new Date(ctx.asOf).toISOString(),
      previous_build_id: exampleId(ctx.asOf - DAY_MS, 'd'),
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
