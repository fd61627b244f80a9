/**
 * What shaping starts from, made the same way by a build and by `--check`: the data date, the
 * time and id the build carries, and the context the bodies are shaped in.
 */
import { resolveDataDate } from './as-of.ts';
import type { BuildOptions } from './build-options.ts';
import { createBuildContext } from './shape/build-context.ts';
import type { BuildContext } from './shape/route-builder.ts';
import type { Dataset } from './types.ts';

/**
 * What shaping needs, as a build and `--check` both make it: the data date (said in the log,
 * with its warning), the time the build carries (SOURCE_DATE_EPOCH when given, else the data's),
 * the build id `idOf` makes of that time, and the context the bodies are shaped in.
 */
export function shapingContext(
  dataset: Dataset,
  options: BuildOptions,
  idOf: (builtAt: Date) => string,
): { asOf: Date; builtAt: Date; ctx: BuildContext & { buildId: string } } {
  const { asOf, reason, warning } = resolveDataDate(dataset, options.asOf);
  options.log(`data date ${asOf.toISOString()}: ${reason}`);
  if (warning) options.log(`warning: ${warning}`);
  const builtAt = options.sourceDateEpoch === undefined ? asOf : new Date(options.sourceDateEpoch * 1000);
  const buildId = idOf(builtAt);
  return {
    asOf,
    builtAt,
    ctx: {
      ...createBuildContext(dataset, {
        asOf: asOf.getTime(),
        statsDays: options.statsDays,
        pageSize: options.pageSize,
        arenaOptions: options.arena,
      }),
      buildId,
    },
  };
}
