/**
 * `npx tsx scripts/bench/redis-cost.ts [--baseline DIR] [--rounds N] [--seconds S] [--connections N]
 * [--redis-core N] [--syscalls]`:
 * where a request's time goes on Redis, against the state folder. The bundled server on the
 * full sample, once on its state folder and once on a Redis (scripts/bench/redis.ts's: an
 * append-only file fsynced every second, the same keys), loaded in turn with wrk on the Pro list
 * page (br), the order turned each round; around each load the CPU the server and Redis spent
 * (`/proc/PID/stat`, user and system), per request. CPU a request holds steady where rps swings
 * on a shared machine, so it says what a change costs when the rps ratio cannot. With
 * `--baseline DIR` an earlier checkout's bundle runs beside, on both stores, in the same rounds.
 * `--redis-core N` gives Redis core N alone (servers and wrk share the others), so Redis's own
 * work takes no time from the server: what is left between the two stores is the server's.
 * `--syscalls` adds the server's system calls, event-loop waits and context switches a request
 * (scripts/bench/syscalls.ts). Prints a line a load and the medians. Not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { stageBaseline } from './baseline.ts';
import { placeServer, pinTo, redisApart, type RedisApart } from './pinning.ts';
import { killAll, median, startServer } from './processes.ts';
import { startBenchRedis } from './redis.ts';
import { LIST_PATH } from './scenarios.ts';
import { setStage } from './stage.ts';
import {
  countedDuring,
  kernelCountsProblem,
  kernelText,
  medianCounts,
  perRequest,
  type KernelCounts,
} from './syscalls.ts';
import { wrk } from './wrk.ts';

const USAGE = `usage: npx tsx scripts/bench/redis-cost.ts [--baseline DIR] [--rounds N] [--seconds S] [--connections N]
         [--redis-core N] [--syscalls]

  --baseline DIR   an earlier checkout (npm install done there), on both stores in the same rounds
  --rounds N       rounds, each loading every server once, the order turned each round (default 5)
  --seconds S      seconds of wrk a load (default 5)
  --connections N  wrk connections (default 16)
  --redis-core N   Redis alone on core N, the servers and wrk on the other cores (taskset)
  --syscalls       the server's system calls, event-loop waits and context switches a request (perf)`;

const TICKS_PER_SECOND = 100;

/** CPU seconds a process has used (user + system), from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  // After the command's closing parenthesis: state is field 0, utime 11, stime 12.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

interface Contender {
  name: string;
  port: number;
  child: ChildProcess;
  rps: number[];
  serverUs: number[];
  redisUs: number[];
  /** The kernel's counts a request, a load each (with --syscalls). */
  kernel: KernelCounts[];
}

/** With --redis-core: Redis's core, and the cores everything else runs on. Exits on a core this machine cannot give. */
function placementOf(redisCore: string | undefined): RedisApart | null {
  if (redisCore === undefined) return null;
  const apart = redisApart(Number(redisCore));
  if (typeof apart === 'string') {
    console.error(`--redis-core ${redisCore}: ${apart}`);
    process.exit(2);
  }
  return apart;
}

async function main(): Promise<void> {
  const { values } = flagsOrExit(
    {
      options: {
        baseline: { type: 'string' },
        rounds: { type: 'string', default: '5' },
        seconds: { type: 'string', default: '5' },
        connections: { type: 'string', default: '16' },
        'redis-core': { type: 'string' },
        syscalls: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const placement = placementOf(values['redis-core']);
  const countsProblem = values.syscalls ? kernelCountsProblem() : null;
  if (countsProblem) {
    console.error(countsProblem);
    process.exit(2);
  }
  const stage = await setStage();
  const redis = await startBenchRedis(stage.work, stage.state);
  if (placement) pinTo(redis.child.pid!, placement.redis);
  const key = stage.keys.commercial;
  const probe = { path: LIST_PATH, key };
  const builds = [
    { label: 'this checkout', bundlePath: stage.bundlePath, snapshot: stage.snapshotRoot, state: stage.state },
  ];
  if (values.baseline) {
    const baseline = stageBaseline(values.baseline, stage.work, stage.state);
    builds.push({
      label: baseline.label,
      bundlePath: baseline.bundlePath,
      snapshot: baseline.snapshotRoot,
      state: baseline.state,
    });
  }
  const contenders: Contender[] = [];
  for (const build of builds) {
    for (const store of ['state folder', 'Redis'] as const) {
      const extra = store === 'Redis' ? ['--store', redis.url] : [];
      const started = await startServer({
        bundlePath: build.bundlePath,
        snapshot: build.snapshot,
        state: build.state,
        probe,
        extra,
      });
      placeServer(placement?.rest, started.child.pid!);
      contenders.push({
        name: `${build.label} on the ${store}`,
        port: started.port,
        child: started.child,
        rps: [],
        serverUs: [],
        redisUs: [],
        kernel: [],
      });
    }
  }
  const load = (c: Contender, secs: number) =>
    wrk(
      `http://127.0.0.1:${c.port}`,
      [LIST_PATH],
      { 'x-api-key': key, 'accept-encoding': 'br' },
      connections,
      secs,
      stage.work,
      placement?.rest.load,
    );
  // Warm-up, unrecorded: each server's first seconds are its JIT's.
  for (const c of contenders) load(c, 2);
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const c of round % 2 ? order.reverse() : order) {
      const server0 = cpuSeconds(c.child.pid!);
      const redis0 = cpuSeconds(redis.child.pid!);
      const { result, counts } = values.syscalls
        ? await countedDuring(c.child.pid!, () => load(c, seconds))
        : { result: load(c, seconds), counts: null };
      const requests = result.rps * seconds;
      c.rps.push(result.rps);
      c.serverUs.push(((cpuSeconds(c.child.pid!) - server0) / requests) * 1e6);
      c.redisUs.push(((cpuSeconds(redis.child.pid!) - redis0) / requests) * 1e6);
      const kernel = counts && perRequest(counts, requests);
      if (kernel) c.kernel.push(kernel);
      console.log(
        `round ${round + 1}/${rounds} ${c.name.padEnd(32)} ${result.rps.toFixed(0).padStart(6)} rps, ` +
          `server ${c.serverUs.at(-1)!.toFixed(1)} µs, Redis ${c.redisUs.at(-1)!.toFixed(1)} µs a request` +
          (kernel ? `; ${kernelText(kernel)}` : ''),
      );
    }
  }
  const where = placement ? `, Redis on core ${placement.redis} and the rest on ${placement.rest.servers}` : '';
  console.log(`\nmedians over ${rounds} rounds of ${seconds} s, c=${connections}, Pro list page (br)${where}:`);
  for (const c of contenders) {
    console.log(
      `  ${c.name.padEnd(32)} ${median(c.rps).toFixed(0).padStart(6)} rps, ` +
        `server CPU ${median(c.serverUs).toFixed(1)} µs, Redis CPU ${median(c.redisUs).toFixed(1)} µs a request` +
        (c.kernel.length ? `; ${kernelText(medianCounts(c.kernel))}` : ''),
    );
  }
  for (let i = 0; i + 1 < contenders.length; i += 2) {
    const [file, onRedis] = [contenders[i]!, contenders[i + 1]!];
    const ratios = onRedis.rps.map((rps, round) => rps / file.rps[round]!);
    console.log(
      `  ${onRedis.name}: ${median(ratios).toFixed(2)}x the state folder ` +
        `(median of the rounds' own ratios; ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    );
  }
}

try {
  await main();
} finally {
  killAll();
}
