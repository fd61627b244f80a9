/** The generator's options: defaults (the committed sample), flags and scaling. */
import { flagsUsage } from '../../src/shared/flag-help.ts';
import {
  asText,
  calendarDate,
  flagRow,
  integerFrom,
  readFlags,
  type Flag,
  type FlagTable,
} from '../../src/shared/flag-table.ts';
import { UsageError } from '../../src/shared/flags.ts';

export interface SampleOptions {
  out: string;
  seed: number;
  /** Last day of the measurements (`YYYY-MM-DD`, UTC); nothing is dated after it. */
  asOf: string;
  models: number;
  creators: number;
  providers: number;
  /** Entries per media arena. */
  arenaEntries: number;
  /**
   * Days after `asOf`: the data a daily build that many days later reads (the same world, the
   * measurement window moved on, and each later day's price changes). 0 is the as-of date's.
   */
  day: number;
}

/** Counts at `--scale 1`, the committed sample. Endpoints follow from models and providers. */
export const BASE_COUNTS = { models: 320, creators: 45, providers: 45, arenaEntries: 52 } as const;
export const DEFAULT_OPTIONS: SampleOptions = {
  out: 'data',
  seed: 20261120,
  asOf: '2026-11-20',
  ...BASE_COUNTS,
  day: 0,
};

/** Most days `--day` takes: a year of daily builds. */
export const MAX_DAY = 366;

/** The counts of a dataset `scale` times the committed sample's (at least one of each). */
export function scaledCounts(scale: number): Pick<SampleOptions, 'models' | 'creators' | 'providers' | 'arenaEntries'> {
  const scaled = (base: number) => Math.max(1, Math.round(base * scale));
  return {
    models: scaled(BASE_COUNTS.models),
    creators: scaled(BASE_COUNTS.creators),
    providers: scaled(BASE_COUNTS.providers),
    arenaEntries: scaled(BASE_COUNTS.arenaEntries),
  };
}

/** Largest count a flag takes: far past any dataset this generator is meant for. */
const MAX_COUNT = 1_000_000;

/** A count's flag: by default the committed sample's count times `--scale`. */
function countFlag(base: number, min: number, what: string): Flag<number | undefined> {
  return flagRow<number | undefined>({
    value: 'N',
    default: undefined,
    shownDefault: `${base} times --scale`,
    parse: integerFrom(min, MAX_COUNT),
    help: what,
  });
}

/** The generator's flags, in the form of src/shared/flag-table.ts: its --help lists them. */
export const SAMPLE_FLAGS = {
  out: { value: 'DIR', default: DEFAULT_OPTIONS.out, parse: asText, help: 'the folder the datasets are written to' },
  seed: {
    value: 'N',
    default: DEFAULT_OPTIONS.seed,
    parse: integerFrom(0, Number.MAX_SAFE_INTEGER),
    help: 'the seed every value is drawn from: the same seed and options give the same bytes',
  },
  'as-of': {
    value: 'YYYY-MM-DD',
    default: DEFAULT_OPTIONS.asOf,
    parse: calendarDate,
    help: 'the last day of the measurements; nothing is dated after it',
  },
  day: {
    value: 'K',
    default: DEFAULT_OPTIONS.day,
    parse: integerFrom(0, MAX_DAY),
    help:
      'the data K days after --as-of, as a daily build would read it: the same models and providers, ' +
      'K more days of measurements (the oldest K dropped) and some price changes each day',
  },
  scale: {
    value: 'F',
    default: 1,
    parse: positiveNumber,
    help: "the counts below as a multiple of the committed sample's (at least one of each)",
  },
  models: countFlag(BASE_COUNTS.models, 0, 'language models'),
  creators: countFlag(BASE_COUNTS.creators, 1, 'model creators (the media arenas add their own)'),
  providers: countFlag(BASE_COUNTS.providers, 0, 'API providers (their endpoints follow from the models)'),
  'arena-entries': countFlag(BASE_COUNTS.arenaEntries, 1, 'entries in each media arena'),
} satisfies FlagTable;

export const USAGE = `usage: npm run generate:sample -- [options]\n${flagsUsage(SAMPLE_FLAGS)}`;

function positiveNumber(text: string, name: string): number {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value))
    throw new UsageError(`--${name} must be a positive number, got ${JSON.stringify(text)}`);
  return value;
}

/** The generator's options, or 'help' or 'version' when that was asked for. */
export function parseSampleArgs(argv: string[]): SampleOptions | 'help' | 'version' {
  const { values: v, help, version } = readFlags(SAMPLE_FLAGS, argv);
  if (help || version) return help ? 'help' : 'version';
  const scaled = scaledCounts(v.scale);
  return {
    out: v.out,
    seed: v.seed,
    asOf: v['as-of'],
    models: v.models ?? scaled.models,
    creators: v.creators ?? scaled.creators,
    providers: v.providers ?? scaled.providers,
    arenaEntries: v['arena-entries'] ?? scaled.arenaEntries,
    day: v.day,
  };
}
