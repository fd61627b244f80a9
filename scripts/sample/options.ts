/** The generator's options: defaults (the committed sample), flags and scaling. */
import { parseArgs } from 'node:util';
import { isCalendarDate } from '../../src/shared/ajv.ts';

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
  'usage: npm run generate:sample -- [--out DIR] [--seed N] [--as-of YYYY-MM-DD] [--scale F] [--models N] [--creators N] [--providers N] [--arena-entries N]';

export class UsageError extends Error {}
/** `--help`: not an error, but parsing stops there. */
export class HelpRequested extends Error {}

export function countFlag(name: string, text: string | undefined, scaled: number, min: number): number {
  if (text === undefined) return scaled;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`--${name} must be an integer of at least ${min}, got ${JSON.stringify(text)}`);
  return value;
}

export function parseSampleArgs(argv: string[]): SampleOptions {
  let values;
  try {
    ({ values } = parseArgs({
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
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) throw new HelpRequested();
  const scale = values.scale === undefined ? 1 : Number(values.scale);
  if (!(scale > 0) || !Number.isFinite(scale)) throw new UsageError(`--scale must be a positive number, got ${JSON.stringify(values.scale)}`);
  const seed = values.seed === undefined ? DEFAULT_OPTIONS.seed : Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError(`--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);
  const asOf = values['as-of'] ?? DEFAULT_OPTIONS.asOf;
  if (!isCalendarDate(asOf)) throw new UsageError(`--as-of must be a date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const scaled = (base: number) => Math.max(1, Math.round(base * scale));
  return {
    out: values.out ?? DEFAULT_OPTIONS.out,
    seed,
    asOf,
    models: countFlag('models', values.models, scaled(BASE_COUNTS.models), 0),
    creators: countFlag('creators', values.creators, scaled(BASE_COUNTS.creators), 1),
    providers: countFlag('providers', values.providers, scaled(BASE_COUNTS.providers), 0),
    arenaEntries: countFlag('arena-entries', values['arena-entries'], scaled(BASE_COUNTS.arenaEntries), 1),
  };
}
