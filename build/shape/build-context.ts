/**
 * The build context: everything the body builders read, derived once per build from the
 * dataset (model, provider and arena views, records by endpoint) with the build's options.
 */
import { DEFAULT_ARENA_OPTIONS, type ArenaOptions } from '../derive/media.ts';
import { deriveModelViews, intelligenceIndexVersion, recordsByEndpoint } from '../derive/language.ts';
import { deriveProviderViews } from '../derive/providers.ts';
import type { BuildContext } from './route-builder.ts';
import type { Dataset } from '../types.ts';

/** Everything the body builders read, derived once per build. */
export function createBuildContext(
  dataset: Dataset,
  options: { asOf: number; statsDays: number; pageSize: number; arenaOptions?: ArenaOptions },
): BuildContext {
  const models = deriveModelViews(dataset, options);
  return {
    dataset,
    models,
    providers: deriveProviderViews(dataset, models),
    records: recordsByEndpoint(dataset),
    asOf: options.asOf,
    intelligenceIndexVersion: intelligenceIndexVersion(dataset),
    pageSize: options.pageSize,
    arenaOptions: options.arenaOptions ?? DEFAULT_ARENA_OPTIONS,
  };
}
