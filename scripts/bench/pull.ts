/**
 * Pulled snapshots (src/pull/), the issue's three targets on the sample (data/):
 * `npx tsx scripts/bench/pull.ts [--rounds 5] [--seconds 5]`, or `npm run bench -- --pull` (its
 * --rounds and --duration). One JSON line a measurement, then a short summary.
 *
 * 1. Delta size. data/ is built into a snapshot folder and published (release 1); a copy of data/
 *    with one model's one evaluation score changed is built into the same folder, as a rebuild
 *    would be, and published again (release 2). Reported: the chunks release 2 stored anew and
 *    their stored bytes against bodies.pack's size (target ≤ 10%), by file; what a server holding
 *    release 1 fetched to pull release 2 (its log line); each publish's seconds.
 * 2. Memory while pulling. nginx serves the published folder; the bundled server starts with an
 *    empty snapshot folder and `--snapshot-from` it, and its VmRSS is read from /proc every 50 ms:
 *    the peak from its spawn to its first pull's log line (the pull comes before it listens) and
 *    from a later release offered to that pull's log line, the server idle (target ≤ 110 MB); then
 *    the peak on until the snapshot store has checked the new build whole and switched to it (both
 *    builds open meanwhile), and VmHWM; each pull's seconds and MB/s.
 * 3. Serving during a pull. A pro key's list page (`/api/v2/language/models?page=1`, br) under wrk
 *    at c=16 for --seconds, in rounds of two runs, one without a pull and one during which the
 *    server pulls a whole build (which runs first turns from round to round, as rounds.ts's
 *    roundOrder turns it): rps and p99 of each, the pull's seconds and the share of the run it
 *    covered, and the median of the rounds' own during/without ratios (target ≥ 0.9).
 *
 * The modules it runs them with: scripts/bench/pull-releases.ts, the builds, their releases and what
 * the origin offers; scripts/bench/pull-servers.ts, nginx and the pulling server, its memory and its
 * log lines; scripts/bench/pull-throughput.ts, the runs of 3.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LEVELS } from '../../build/pack/pack.ts';
import { createKey } from '../../src/keys/changes.ts';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { residentBytes } from '../attackers.ts';
import { bundle } from '../bundle.ts';
import { ROOT, stopProcess } from '../processes.ts';
import { killAll, sleep } from './processes.ts';
import { emit, mb, met, percent } from './pull-figures.ts';
import { build, changedData, deltaFigures, publishCycle, releases, type Publish } from './pull-releases.ts';
import {
  pulled,
  pullFigures,
  SETTLE_MS,
  startOrigin,
  startPulling,
  type Pull,
  type Pulled,
  type Pulling,
  type PullProcesses,
} from './pull-servers.ts';
import { throughput, type Throughput } from './pull-throughput.ts';
import { ensureTools } from './tools.ts';

const TARGET = { deltaShare: 0.1, peakRssMb: 110, rpsRatio: 0.9 };
/** Rounds are counted, and wrk's -d takes whole seconds. */
const wholeFromOne = (n: number) => Number.isInteger(n) && n >= 1;

export interface PullBenchOptions {
  /** Rounds of the serving measurement, each a run without a pull and one during a pull. */
  rounds: number;
  /** Seconds of each run: whole, as wrk's -d takes them. */
  seconds: number;
}

/**
 * The three measurements (the module's header) in a fresh folder, removed after with every
 * process stopped, whether they succeeded or not.
 */
export async function pullBench({ rounds, seconds }: PullBenchOptions): Promise<void> {
  if (!wholeFromOne(rounds) || !wholeFromOne(seconds))
    throw new Error(`the pull bench's rounds and seconds are whole numbers from 1, not ${rounds} and ${seconds}`);
  const work = mkdtempSync(join(tmpdir(), 'pull-bench-'));
  // nginx's worker runs as an unprivileged user and must reach the published folder.
  chmodSync(work, 0o755);
  const processes: PullProcesses = { origin: null, server: null };
  const interrupted = () => {
    killAll();
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, interrupted);
  try {
    await measure(work, processes, rounds, seconds);
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, interrupted);
    if (processes.server) await stopProcess(processes.server);
    if (processes.origin) await stopProcess(processes.origin, 'SIGTERM');
    killAll();
    rmSync(work, { recursive: true, force: true });
  }
}

async function measure(work: string, processes: PullProcesses, rounds: number, seconds: number): Promise<void> {
  ensureTools();
  await bundle(work);
  const bundlePath = join(work, 'server.mjs');
  const state = join(work, 'state');
  const proKey = createKey(state, { tier: 'pro', org: 'bench', user: 'pull' }).key;

  // 1. Delta size: the sample, then one score changed, into the same snapshot folder.
  const r = releases(work);
  const snapshot = join(work, 'snapshot');
  const a = await build('A (data/)', join(ROOT, 'data'), snapshot, DEFAULT_LEVELS, true);
  const first = r.publish(a);
  const changed = changedData(work);
  const b = await build('B (one score changed)', changed, snapshot, DEFAULT_LEVELS, false);
  const second = r.publish(b);

  // 2. The origin, and a server that starts empty and pulls release 1 before it listens.
  const root = r.originRoot();
  r.offer(1);
  const originPort = await startOrigin(work, root, processes);
  const s = await startPulling({ work, bundlePath, state, originPort, publicKey: r.publicKey }, processes);
  const firstPull = await pulled(s, 1);
  const firstMemory = memoryOf(s, s.spawned, firstPull);
  emit({
    measure: 'pull_memory',
    pull: 'first (empty folder, before listening)',
    ...firstMemory,
    ...pullFigures(firstPull),
  });

  // Release 2 while holding release 1: what the server fetches of the delta.
  r.offer(2);
  const deltaPull = await pulled(s, 2);
  emit({ ...deltaFigures(r, first, second, b, TARGET.deltaShare), server: pullFigures(deltaPull) });

  // The builds the full pulls cycle through, all published before anything is loaded.
  await publishCycle(r, work, b, changed, rounds);

  // 2., again: a later full pull, the server idle.
  await sleep(SETTLE_MS);
  const idleRss = residentBytes(s.pid) ?? 0;
  const offered = performance.now();
  r.offer(3);
  const laterPull = await pulled(s, 3);
  const laterMemory = memoryOf(s, offered, laterPull);
  emit({
    measure: 'pull_memory',
    pull: 'later (idle, serving the build before)',
    rss_before_mb: mb(idleRss),
    ...laterMemory,
    ...pullFigures(laterPull),
  });

  // 3. The list page with and without a pull under way: from release 4 on, one offered during a run a round.
  const summary = await throughput({
    s,
    proKey,
    firstRelease: 4,
    offer: r.offer,
    rounds,
    seconds,
    work,
    targetRpsRatio: TARGET.rpsRatio,
  });

  const pulls = { first: firstPull, delta: deltaPull, later: laterPull };
  printSummary(b.packBytes, first, second, { first: firstMemory, later: laterMemory }, pulls, summary);
}

/**
 * Peak VmRSS from `from` to the pull's log line, and on until the store switched to the build
 * (checked whole; for the first pull, until its check at start ended), with VmHWM.
 */
function memoryOf(s: Pulling, from: number, pull: Pulled) {
  return {
    peak_rss_mb: s.rss.peakMb(from, pull.at),
    peak_rss_mb_to_switch: s.rss.peakMb(from, pull.switched),
    vmhwm_mb: mb(residentBytes(s.pid, 'VmHWM') ?? 0),
    target_mb: TARGET.peakRssMb,
  };
}

type Memory = ReturnType<typeof memoryOf>;

/** The few lines a reader wants, each target met or MISSED. */
function printSummary(
  packBytes: number,
  first: Publish,
  second: Publish,
  memory: { first: Memory; later: Memory },
  pulls: { first: Pulled; delta: Pulled; later: Pulled },
  summary: Throughput,
): void {
  const deltaShare = second.newBytes / packBytes;
  const pullPeak = Math.max(memory.first.peak_rss_mb, memory.later.peak_rss_mb);
  const switchPeak = Math.max(memory.first.peak_rss_mb_to_switch, memory.later.peak_rss_mb_to_switch);
  const rate = (p: Pull) => `${p.releaseMb} MB in ${p.seconds} s (${(p.releaseMb / p.seconds).toFixed(1)} MB/s)`;
  const ratio = summary.rps_ratio_median;
  console.log(
    [
      '',
      `summary (sample data/; bodies.pack ${mb(packBytes)} MB; the build ${mb(second.bytes)} MB, ` +
        `${second.chunks} chunks):`,
      `  delta, one score changed: ${second.newChunks} new chunks, ${mb(second.newBytes)} MB stored = ` +
        `${percent(deltaShare)} of bodies.pack (target ≤ ${percent(TARGET.deltaShare)}: ` +
        `${met(deltaShare <= TARGET.deltaShare)}); a server holding release 1 fetched ` +
        `${pulls.delta.fetchedChunks} chunks (${pulls.delta.fetchedMb} MB) in ${pulls.delta.seconds} s`,
      `  publish: release 1 in ${first.seconds.toFixed(1)} s, release 2 (the delta) in ${second.seconds.toFixed(1)} s`,
      `  memory: peak VmRSS over the pull ${memory.first.peak_rss_mb} MB (first), ${memory.later.peak_rss_mb} MB ` +
        `(a later full pull) (target ≤ ${TARGET.peakRssMb} MB: ${met(pullPeak <= TARGET.peakRssMb)}); ` +
        `until the new build is checked and served ${memory.first.peak_rss_mb_to_switch} and ` +
        `${memory.later.peak_rss_mb_to_switch} MB (${met(switchPeak <= TARGET.peakRssMb)})`,
      `  full pull: ${rate(pulls.first)} first, ${rate(pulls.later)} later`,
      `  list page, c=${summary.connections}, ${summary.seconds} s runs: ${summary.without_rps_median} rps ` +
        `(p99 ${summary.without_p99_ms_median} ms) without a pull, ${summary.during_rps_median} rps ` +
        `(p99 ${summary.during_p99_ms_median} ms) during one; median ratio ${ratio} ` +
        `(target ≥ ${TARGET.rpsRatio}: ${met(ratio >= TARGET.rpsRatio)}), p99 ${summary.p99_ratio_median}x; ` +
        `the pull under way for a median ${percent(summary.pull_cover_median)} of a run`,
    ].join('\n'),
  );
}

// Run as the script, not when scripts/bench.ts imports pullBench.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const USAGE = 'usage: npx tsx scripts/bench/pull.ts [--rounds N] [--seconds S]';
  const { values } = flagsOrExit(
    {
      options: {
        rounds: { type: 'string', default: '5' },
        seconds: { type: 'string', default: '5' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  if (!wholeFromOne(rounds) || !wholeFromOne(seconds)) {
    console.error(`--rounds and --seconds are whole numbers from 1\n${USAGE}`);
    process.exit(2);
  }
  try {
    await pullBench({ rounds, seconds });
  } catch (error) {
    console.error(`pull bench failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  }
}
