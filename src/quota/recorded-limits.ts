/**
 * The quota limits a server enforces, recorded where the keys command reads usage: `limits.json`
 * in the state folder, or one key in Redis. A server writes them when it starts, so `keys usage`
 * shows what remains against the limits the server was given (its flags), not against the
 * command's own environment. With several servers on one Redis, the last one started wins: give
 * them the same limits.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REDIS_PREFIX } from '../redis/keyspace.ts';
import { writeFileAtomic } from '../shared/state-files.ts';
import type { QuotaLimits } from './scopes.ts';

export const LIMITS_FILE = 'limits.json';
export const LIMITS_REDIS_KEY = `${REDIS_PREFIX}limits`;

export interface RecordedLimits {
  limits: QuotaLimits;
  /** When a server wrote them (ISO 8601): as it started, or, on Redis, as it last reconnected. */
  recorded_at: string;
}

export function limitsRecord(limits: QuotaLimits, now: number): string {
  const { free, pro, commercialDefault, critpt } = limits;
  const record: RecordedLimits = {
    limits: { free, pro, commercialDefault, critpt },
    recorded_at: new Date(now).toISOString(),
  };
  return `${JSON.stringify(record)}\n`;
}

/** A record as written above, or null for anything else (a hand edit, a record of a later format). */
export function parseLimitsRecord(text: string): RecordedLimits | null {
  try {
    const { limits, recorded_at } = JSON.parse(text) as Partial<RecordedLimits>;
    const counts = limits && [limits.free, limits.pro, limits.commercialDefault, limits.critpt];
    if (!counts?.every((n) => Number.isSafeInteger(n) && n >= 0) || typeof recorded_at !== 'string') return null;
    return { limits: limits!, recorded_at };
  } catch {
    return null;
  }
}

export function recordLimitsFile(stateDir: string, limits: QuotaLimits, now: number): void {
  writeFileAtomic(join(stateDir, LIMITS_FILE), limitsRecord(limits, now));
}

/** What a server last recorded in this state folder; null when none has (or the file does not parse). */
export function readLimitsFile(stateDir: string): RecordedLimits | null {
  try {
    return parseLimitsRecord(readFileSync(join(stateDir, LIMITS_FILE), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
