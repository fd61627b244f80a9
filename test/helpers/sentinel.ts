/**
 * Sentinel setups for the tests: scripts/sentinel-set.ts's (one primary, replicas, three real
 * redis-sentinel processes), with the tests' hang guard. When redis-sentinel is missing the
 * suites say they skipped.
 */
import type { Test } from 'uvu';
import type { Reply } from '../../src/redis/resp.ts';
import { askOnce } from '../../src/redis/sentinel-ask.ts';
import { startSentinelSet, type SentinelSet, type SentinelSetOptions } from '../../scripts/sentinel-set.ts';
import { HANG_GUARD_MS } from './wait.ts';

export { SENTINEL_INSTALLED, entries, type SentinelSet } from '../../scripts/sentinel-set.ts';

export function skipWithoutSentinel(s: Test, names: readonly string[]): void {
  for (const name of names) s.skip(`${name} (skipped: redis-sentinel is not installed)`, () => {});
  console.log('skipped: redis-sentinel is not installed (apt-get install redis-sentinel redis-server)');
}

/** A question to one plain Redis or sentinel, on a connection of its own: generous, a hang guard only. */
export function ask(port: number, ...args: (string | number)[]): Promise<Reply> {
  return askOnce({ host: '127.0.0.1', port }, null, args, 30_000);
}

/** A Sentinel set whose waits are the tests' hang guard: sentinels told a primary is down after a second. */
export function startSentinels(options: SentinelSetOptions = {}): Promise<SentinelSet> {
  return startSentinelSet({ guardMs: HANG_GUARD_MS, ...options });
}
