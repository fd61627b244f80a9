/**
 * What a build is asked to do: its options and their defaults, stated once here for the build,
 * `--check`, the flag table (build/flags.ts) and the tests and scripts that build a fixture.
 */
import { DEFAULT_ARENA_OPTIONS, type ArenaOptions } from './derive/media.ts';
import { DEFAULT_LEVELS, type CompressionLevels } from './pack/pack.ts';
import { KEEP_PREVIOUS } from './pack/snapshot-dir.ts';

export interface BuildOptions {
  dataDir: string;
  outDir: string;
  /** Items per page of paginated lists. */
  pageSize: number;
  /** Days of measurements the medians and percentiles are taken over. */
  statsDays: number;
  /** End of the statistics windows; by default the time of the newest measurement. */
  asOf?: string;
  /** Rebuild even when the inputs are unchanged. */
  force: boolean;
  /** Leaderboard eligibility of media arena entries. */
  arena: ArenaOptions;
  levels: CompressionLevels;
  /** Builds kept besides the current one (older ones are removed after a switch). */
  keep: number;
  /** Builds the history remembers (build/history/): past it, the oldest is folded into its base. */
  historyBuilds: number;
  /**
   * The time the build's id and manifest carry, in seconds since 1970 (`SOURCE_DATE_EPOCH`); by
   * default the data's as-of time. Never the wall clock: two builds of the same inputs into two
   * empty folders are byte-identical, file for file.
   */
  sourceDateEpoch?: number;
  /** Progress and summary lines. */
  log: (line: string) => void;
}

export const DEFAULT_BUILD_OPTIONS: Omit<BuildOptions, 'log'> = {
  dataDir: 'data',
  outDir: 'snapshot',
  pageSize: 200,
  statsDays: 14,
  force: false,
  arena: DEFAULT_ARENA_OPTIONS,
  levels: DEFAULT_LEVELS,
  keep: KEEP_PREVIOUS,
  historyBuilds: 30,
};
