/**
 * `npx tsx scripts/bench/redis-cost.ts [--baseline DIR] [--rounds N] [--seconds S] [--connections N]`:
 * where a request's time goes on Redis, against the state folder. The bundled server on the
 * full sample, once on its state folder and once on a Redis (scripts/bench/redis.ts's: an
 * append-only file fsynced every second, the same keys), loaded in turn with wrk on the Pro list
 * page (br), the order turned each round; around each load the CPU the server and Redis spent
 * (`/proc/PID/stat`, user and system), per request. CPU a request holds steady where rps swings
 * on a shared machine, so it says what a change costs when the rps ratio cannot. With
 * `--baseline DIR` an earlier checkout's bundle runs beside, on both stores, in the same rounds.
 * Prints a line a load and the medians. Not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { stageBaseline } from './baseline.ts';
import { killAll, median, startServer } from './processes.ts';
import { startBenchRedis } from './redis.ts';
import { setStage } from './stage.ts';
import { wrk } from './wrk.ts';

const USAGE = `usage: npx tsx scripts/bench/redis-cost.ts [--baseline DIR] [--rounds N] [--seconds S] [--connections N]

  --baseline DIR   an earlier checkout (npm install done there), on both stores in the same rounds
  --rounds N       rounds, each loading every server once, the order turned each round (default 5)
  --seconds S      seconds of wrk a load (default 5)
  --connections N  wrk connections (default 16)`;

const LIST_PATH = '/api/v2/language/models?page=1';
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
}

async function main(): Promise<void> {
  const { values } = flagsOrExit(
    {
      options: {
        baseline: { type: 'string' },
        rounds: { type: 'string', default: '5' },
        seconds: { type: 'string', default: '5' },
        connections: { type: 'string', default: '16' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const stage = await setStage();
  const redis = await startBenchRedis(stage.work, stage.state);
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
      contenders.push({
        name: `${build.label} on the ${store}`,
        port: started.port,
        child: started.child,
        rps: [],
        serverUs: [],
        redisUs: [],
      });
    }
  }
  const base = (c: Contender) => `http://127.0.0.1:${c.port}`;
  // Warm-up, unrecorded: each server's first seconds are its JIT's.
  for (const c of contenders)
    wrk(base(c), [LIST_PATH], { 'x-api-key': key, 'accept-encoding': 'br' }, connections, 2, stage.work);
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const c of round % 2 ? order.reverse() : order) {
      const server0 = cpuSeconds(c.child.pid!);
      const redis0 = cpuSeconds(redis.child.pid!);
      const load = wrk(
        base(c),
        [LIST_PATH],
        { 'x-api-key': key, 'accept-encoding': 'br' },
        connections,
        seconds,
        stage.work,
      );
      const requests = load.rps * seconds;
      c.rps.push(load.rps);
      c.serverUs.push(((cpuSeconds(c.child.pid!) - server0) / requests) * 1e6);
      c.redisUs.push(((cpuSeconds(redis.child.pid!) - redis0) / requests) * 1e6);
      console.log(
        `round ${round + 1}/${rounds} ${c.name.padEnd(32)} ${load.rps.toFixed(0).padStart(6)} rps, ` +
          `server ${c.serverUs.at(-1)!.toFixed(1)} µs, Redis ${c.redisUs.at(-1)!.toFixed(1)} µs a request`,
      );
    }
  }
  console.log(`\nmedians over ${rounds} rounds of ${seconds} s, c=${connections}, Pro list page (br):`);
  for (const c of contenders) {
    console.log(
      `  ${c.name.padEnd(32)} ${median(c.rps).toFixed(0).padStart(6)} rps, ` +
        `server CPU ${median(c.serverUs).toFixed(1)} µs, Redis CPU ${median(c.redisUs).toFixed(1)} µs a request`,
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
