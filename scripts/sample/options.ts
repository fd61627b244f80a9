/** The generator's options: defaults (the committed sample), flags and scaling. */
import { isCalendarDate } from '../../src/shared/ajv.ts';
import { integerFlag, parseFlags, UsageError } from '../../src/shared/flags.ts';

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
}

/** Counts at `--scale 1`, the committed sample. Endpoints follow from models and providers. */
export const BASE_COUNTS = { models: 320, creators: 45, providers: 45, arenaEntries: 52 } as const;
export const DEFAULT_OPTIONS: SampleOptions = { out: 'data', seed: 20261120, asOf: '2026-11-20', ...BASE_COUNTS };

export const USAGE =
  'usage: npm run generate:sample -- [--out DIR] [--seed N] [--as-of YYYY-MM-DD] [--scale F] ' +
  '[--models N] [--creators N] [--providers N] [--arena-entries N]';

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

/** The generator's options, or 'help' when the usage was asked for. */
export function parseSampleArgs(argv: string[]): SampleOptions | 'help' {
  const { values } = parseFlags({
    args: argv,
    options: {
      out: { type: 'string' },
      seed: { type: 'string' },
      'as-of': { type: 'string' },
      scale: { type: 'string' },
      models: { type: 'string' },
      creators: { type: 'string' },
      providers: { type: 'string' },
      'arena-entries': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const scale = values.scale === undefined ? 1 : Number(values.scale);
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new UsageError(`--scale must be a positive number, got ${JSON.stringify(values.scale)}`);
  const seed = integerFlag('seed', values.seed, DEFAULT_OPTIONS.seed, 0, Number.MAX_SAFE_INTEGER);
  const asOf = values['as-of'] ?? DEFAULT_OPTIONS.asOf;
  if (!isCalendarDate(asOf)) throw new UsageError(`--as-of must be a date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const scaled = scaledCounts(scale);
  return {
    out: values.out ?? DEFAULT_OPTIONS.out,
    seed,
    asOf,
    models: integerFlag('models', values.models, scaled.models, 0, MAX_COUNT),
    creators: integerFlag('creators', values.creators, scaled.creators, 1, MAX_COUNT),
    providers: integerFlag('providers', values.providers, scaled.providers, 0, MAX_COUNT),
    arenaEntries: integerFlag('arena-entries', values['arena-entries'], scaled.arenaEntries, 1, MAX_COUNT),
  };
}
