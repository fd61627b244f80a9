/**
 * `npm run soak -- [--minutes N] [--clients N] [--store redis://HOST:PORT[/DB]|sentinel] [--keys N] [--windows N]`:
 * mixed load from several clients while the snapshot is rebuilt every 30 s and the server is
 * killed with SIGKILL and restarted every minute. With `--store redis://...` two servers share
 * that Redis behind one load generator (clients alternate between them) and the kills alternate too.
 * On Sentinel (`--store redis-sentinel://...`, or `--store sentinel` for a set of the soak's own:
 * a primary, two replicas, three sentinels) the run has failovers too (scripts/soak/store-faults.ts):
 * a manual SENTINEL FAILOVER 45 s in and every 4 minutes, and on its own set the primary killed
 * two minutes after each; the verdict gives the 200s delivered against those counted.
 * On the file store the state folder starts at scale: before the servers start, it is seeded
 * with 100,000 keys and 200,000 open quota windows (`--keys`, `--windows`; 0 turns either off;
 * scripts/scale-state.ts), and the verdict says how long the first server took to listen on it.
 * At the end it checks that:
 *   - no request failed, other than those cut by a kill (connection reset or refused);
 *   - no response mixed two snapshots (every body hashes to the ETag it came with);
 *   - every scope's quota counter equals the 200 answers it was sent, give or take the
 *     requests of that scope that a kill cut in flight (those may or may not have counted);
 *   - every key change took effect on the very next request: once a minute, half-way between
 *     kills, a fresh key is created with the keys command and must answer 200, then revoked and
 *     must answer 401.
 * It also reports how long the server ever stalled: the slowest `/healthz` answer of a probe
 * that asks every 100 ms (quota compactions, rebuild switches and the like show up there), and
 * the same for the answers it got while attackers were held (what test/http/hostile.test.ts
 * only prints, as its probe shares a process with the attackers).
 * Between rebuilds a corrupter copies the current build, flips bytes of the copy's pack and
 * switches `current` to it: a server must refuse to switch to it (and one restarted on it must
 * serve only bytes that pass their checksum, or a 503 that says why); no body may be wrong.
 * Beside the load, attackers strike every 20 s: 300 connections pipelining 50 requests each and
 * one pipelining 1,400 in one write, none of them reading; one CritPt-approved key posting 20
 * bodies of 4 MB at once and 200 more trickling at 10 bytes a second; and 404s with an
 * 8,100-character path segment (the "did you mean" search's worst case), all held for 5 s; and
 * every other round the server's stdout (its access log) goes unread until the next; the servers' peak
 * resident memory must stay under 250 MB throughout.
 * Prints a verdict (its first line PASS or FAIL); exits 1 on any loss. Not part of `npm test`.
 * The parts are in scripts/soak/, one concern each; main.ts runs them.
 */
import { rmSync } from 'node:fs';
import { soak } from './soak/main.ts';
import type { SoakCleanup } from './soak/main.ts';

const cleanup: SoakCleanup = { servers: null, sentinels: null, work: null };
let ok = false;
try {
  ok = await soak(cleanup);
} finally {
  cleanup.servers?.signalAll('SIGKILL');
  await cleanup.sentinels?.close();
  if (cleanup.work) rmSync(cleanup.work, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
