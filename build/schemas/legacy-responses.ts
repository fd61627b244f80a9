/**
 * Response schemas of the legacy `/api/v2/data` routes, for clients written against the older
 * interface: the language list and the arena leaderboards (`ci95` as text). Their answers name no
 * tier, so each schema is the same for every key.
 */
import { MEDIA_ARENAS, ROUTES, legacyArenaRouteId } from '../../src/shared/routes.ts';
import {
  closed,
  fieldsOf,
  nullableDate,
  nullableNumber,
  nullableString,
  number,
  string,
  uuid,
  type Schema,
} from './json-schema.ts';
import { LEGACY_ROUTE_EVALUATIONS } from '../fields.ts';

const legacyCreator = closed({ id: uuid, name: string, slug: string });
const ci95Text = { type: ['string', 'null'], pattern: '^-\\d+/\\+\\d+$' };

export const LEGACY_RESPONSE_SCHEMAS: Record<string, () => Schema> = {
  'legacy.llms.models': () =>
    closed({
      status: { const: 200 },
      prompt_options: closed({
        parallel_queries: { enum: [1, 10] },
        prompt_length: { enum: ['medium', 'long', '100k'] },
      }),
      data: {
        type: 'array',
        items: closed({
          id: uuid,
          name: string,
          slug: string,
          release_date: nullableDate,
          model_creator: legacyCreator,
          evaluations: closed(
            fieldsOf(
              LEGACY_ROUTE_EVALUATIONS.map(([name]) => name),
              nullableNumber,
            ),
          ),
          pricing: closed(
            fieldsOf(['price_1m_blended_3_to_1', 'price_1m_input_tokens', 'price_1m_output_tokens'], nullableNumber),
          ),
          median_output_tokens_per_second: nullableNumber,
          median_time_to_first_token_seconds: nullableNumber,
          median_time_to_first_answer_token: nullableNumber,
        }),
      },
    }),
};

for (const { arena, family } of MEDIA_ARENAS.filter((a) => ROUTES.some((r) => r.id === legacyArenaRouteId(a.arena)))) {
  const category = closed({
    style_category: nullableString,
    subject_matter_category: nullableString,
    ...(family === 'video' ? { format_category: nullableString } : {}),
    elo: { type: 'number' },
    ci95: ci95Text,
    appearances: { type: 'integer', minimum: 0 },
  });
  const fields = {
    id: uuid,
    name: string,
    slug: string,
    model_creator: legacyCreator,
    elo: number,
    rank: { type: 'integer', minimum: 1 },
    ci95: ci95Text,
    appearances: { type: 'integer', minimum: 0 },
    release_date: nullableDate,
  };
  LEGACY_RESPONSE_SCHEMAS[legacyArenaRouteId(arena)] = () =>
    closed({
      status: { const: 200 },
      include_categories: { type: 'boolean' },
      data: {
        type: 'array',
        items: closed({ ...fields, categories: { type: 'array', items: category } }, Object.keys(fields)),
      },
    });
}
