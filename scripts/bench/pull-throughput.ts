/**
 * The pull bench's serving during a pull (scripts/bench/pull.ts's header, 3.): the list page under
 * wrk in rounds of a run without a pull and a run during one, a JSON line a run, then the
 * summary's. wrk runs in a process of its own, so that this one can offer the next release 100 ms
 * into the run and go on sampling the server's memory meanwhile; the pull's span is taken from
 * the server's log line (its end, and its seconds back from there) to give the share of the run
 * it covered.
 */
import { spawn } from 'node:child_process';
import { median, sleep, track } from './processes.ts';
import { emit, round2 } from './pull-figures.ts';
import { pulled, pullFigures, SETTLE_MS, type Pulled, type Pulling } from './pull-servers.ts';
import { roundOrder, WARM_UP_SECONDS } from './rounds.ts';
import { parseWrk, wrk, wrkCommand, type Load } from './wrk.ts';

const LIST_PATH = '/api/v2/language/models?page=1';
const CONNECTIONS = 16;
/** From wrk's start to the next release offered: wrk is connected and loading by then. */
const OFFER_AFTER_MS = 100;

export interface ThroughputRun {
  /** The pulling server, serving the release before the first offered here. */
  s: Pulling;
  proKey: string;
  /** The first release offered during a run; one after it each round. */
  firstRelease: number;
  /** Has the origin offer a kept release. */
  offer: (release: number) => void;
  rounds: number;
  /** Of each run, whole. */
  seconds: number;
  /** wrk's scripts are written here. */
  work: string;
  /** The median ratio of rps during a pull to rps without one the target asks for at least. */
  targetRpsRatio: number;
}

/** wrk in a process of its own, not blocking this one: the next release is offered and RSS sampled meanwhile. */
function wrkAsync(base: string, headers: Record<string, string>, seconds: number, work: string): Promise<Load> {
  const [command, args] = wrkCommand(base, [LIST_PATH], headers, CONNECTIONS, seconds, work);
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] }));
    let out = '';
    child.stdout!.on('data', (part: Buffer) => (out += part));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(parseWrk(out)) : reject(new Error(`wrk exited with ${code}`))));
  });
}

function roundedLoad(load: Load): Record<string, number> {
  return { rps: Math.round(load.rps), p50_ms: round2(load.p50Ms), p99_ms: round2(load.p99Ms), errors: load.errors };
}

interface During extends Load {
  pull: Pulled;
  /** Share of the wrk run the pull was under way. */
  cover: number;
  peakRssMb: number;
}

/** The list page checked and warmed up, then the rounds: a line a run, then the summary's, which it returns. */
export async function throughput(run: ThroughputRun) {
  const { s, rounds, seconds, work } = run;
  const headers = { 'x-api-key': run.proKey, 'accept-encoding': 'br' };
  const check = await fetch(`${s.url}${LIST_PATH}`, { headers });
  await check.arrayBuffer();
  if (check.status !== 200) throw new Error(`${LIST_PATH} answered ${check.status} to the pro key`);
  await sleep(SETTLE_MS);
  wrk(s.url, [LIST_PATH], headers, CONNECTIONS, Math.min(WARM_UP_SECONDS, seconds), work);
  const without: Load[] = [];
  const during: During[] = [];
  let version = run.firstRelease;
  for (let round = 0; round < rounds; round++) {
    for (const kind of roundOrder(['without', 'during'] as const, round)) {
      await sleep(SETTLE_MS);
      const started = performance.now();
      if (kind === 'without') {
        const load = await wrkAsync(s.url, headers, seconds, work);
        without.push(load);
        const peakRssMb = s.rss.peakMb(started, performance.now());
        emit({ measure: 'throughput', round: round + 1, kind, ...roundedLoad(load), peak_rss_mb: peakRssMb });
        continue;
      }
      const release = version++;
      const loading = wrkAsync(s.url, headers, seconds, work);
      await sleep(OFFER_AFTER_MS);
      run.offer(release);
      const load = await loading;
      const ended = performance.now();
      const pull = await pulled(s, release);
      const pullFrom = pull.at - pull.seconds * 1000;
      const cover = Math.max(0, Math.min(ended, pull.at) - Math.max(started, pullFrom)) / (ended - started);
      const peakRssMb = s.rss.peakMb(started, pull.switched);
      during.push({ ...load, pull, cover, peakRssMb });
      const since = (at: number) => round2((at - started) / 1000);
      emit({
        measure: 'throughput',
        round: round + 1,
        kind,
        ...roundedLoad(load),
        peak_rss_mb: peakRssMb,
        run_s: since(ended),
        pull_began_s: since(pullFrom),
        pull_ended_s: since(pull.at),
        switched_s: since(pull.switched),
        pull_cover: round2(cover),
        full: pull.fetchedChunks >= 0.9 * pull.chunks,
        ...pullFigures(pull),
      });
    }
  }
  const rpsRatios = during.map((d, i) => d.rps / without[i].rps);
  const p99Ratios = during.map((d, i) => d.p99Ms / without[i].p99Ms);
  const summary = {
    measure: 'throughput_summary',
    path: LIST_PATH,
    connections: CONNECTIONS,
    seconds,
    rounds,
    without_rps_median: Math.round(median(without.map((l) => l.rps))),
    during_rps_median: Math.round(median(during.map((l) => l.rps))),
    without_p99_ms_median: round2(median(without.map((l) => l.p99Ms))),
    during_p99_ms_median: round2(median(during.map((l) => l.p99Ms))),
    rps_ratios: rpsRatios.map(round2),
    rps_ratio_median: round2(median(rpsRatios)),
    p99_ratios: p99Ratios.map(round2),
    p99_ratio_median: round2(median(p99Ratios)),
    pull_cover_median: round2(median(during.map((d) => d.cover))),
    target_rps_ratio: run.targetRpsRatio,
  };
  emit(summary);
  return summary;
}

export type Throughput = Awaited<ReturnType<typeof throughput>>;
