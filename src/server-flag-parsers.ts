/**
 * How the server's flags that are more than a number, a folder or a switch are read (src/server-flags.ts
 * lists them): a URL, a duration, a set of addresses. Each refuses what it cannot take with a
 * UsageError naming the flag.
 */
import { AddressSet } from './lib/address-set.ts';
import { durationMs, durationText } from './lib/duration.ts';
import { UsageError } from './shared/flags.ts';

/** An http:// or https:// URL. */
export function httpUrl(text: string, name: string): string {
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
    throw new UsageError(`--${name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  }
  return text;
}

/**
 * How long an admin page session lasts: idle, and at most (src/admin/sessions.ts). Half an hour idle
 * is what operators' consoles commonly allow; twelve hours is a working day and then some.
 */
export const ADMIN_SESSION_MS = { idle: 30 * 60_000, lifetime: 12 * 3_600_000 };

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * MINUTE_MS;

/** A parser for a duration (src/lib/duration.ts) from `min` to `max` milliseconds, naming the flag. */
export function durationFrom(min: number, max: number): (text: string, name: string) => number {
  return (text, name) => {
    const ms = durationMs(text);
    if (ms === null || ms < min || ms > max)
      throw new UsageError(
        `--${name} must be a duration from ${durationText(min)} to ${durationText(max)} (such as 90s, 30m, 12h, 7d), ` +
          `got ${JSON.stringify(text)}`,
      );
    return ms;
  };
}

/** --trust-proxy's addresses, or a UsageError saying which entry is wrong. */
export function trustedProxies(text: string, name: string): AddressSet {
  try {
    return AddressSet.parse(text);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
}
