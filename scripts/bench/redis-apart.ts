/**
 * The Redis target (at least 0.8x the same server on its state folder) measured where a Redis
 * shared by several servers runs: apart from them. Redis alone on one core (pinning.ts,
 * `redisApart`); our server on the state folder, the same server on that Redis, and wrk on the
 * other cores; the Pro list page (br) in alternating rounds at each connection count.
 *
 * In the comparison's own rounds Redis shares the machine's two cores with the server and wrk,
 * and its own 15 to 17 µs of CPU a request come out of the server's time. Apart, that is no
 * longer so, but on two cores the servers and wrk share the one left: at c=16 apart read 0.80x
 * against 0.69x to 0.72x sharing on the 29th, and 0.74x against 0.75x in the run of the 30th
 * (bench/analysis.md, "On Redis, a batch shorter" and "Strings hashed once, misses counted, and
 * Redis apart"). Both figures are reported; the target is judged apart.
 */
import { join } from 'node:path';
import { placeServer, pinTo, redisApart } from './pinning.ts';
import { startServer, stop, type ServerStart, type Started } from './processes.ts';
import { startBenchRedis } from './redis.ts';
import type { StoreApart } from './results.ts';
import { roundRatio, runRounds } from './rounds.ts';
import { LIST_PATH } from './scenarios.ts';
import type { Stage } from './stage.ts';

export interface ApartOptions {
  rounds: number;
  seconds: number;
  connections: readonly number[];
}

const FILE = 'on the state folder';
const REDIS = 'on Redis apart';

/**
 * The rounds with Redis apart, a figure for each connection count; null (and a line saying why)
 * where Redis cannot have a core of its own.
 */
export async function redisApartRounds(
  stage: Stage,
  serverStart: (more?: Partial<ServerStart>) => ServerStart,
  options: ApartOptions,
): Promise<Map<number, StoreApart> | null> {
  const apart = redisApart();
  if (typeof apart === 'string') {
    console.log(`the rounds with Redis on a core of its own are left out: ${apart}`);
    return null;
  }
  const redis = await startBenchRedis(join(stage.work, 'redis-apart'), stage.state, { tls: false });
  pinTo(redis.child.pid!, apart.redis);
  const servers: Started[] = [];
  try {
    for (const extra of [[], ['--store', redis.url]]) {
      const server = await startServer(serverStart({ extra }));
      servers.push(server);
      placeServer(apart.rest, server.child.pid!);
    }
    const headers = { 'x-api-key': stage.keys.commercial, 'accept-encoding': 'br' };
    const contenders = [FILE, REDIS].map((name, i) => ({
      name,
      base: `http://127.0.0.1:${servers[i]!.port}`,
      paths: [LIST_PATH],
      headers,
    }));
    const figures = new Map<number, StoreApart>();
    for (const connections of options.connections) {
      const roundOptions = { ...options, connections, work: stage.work, placement: apart.rest };
      const runs = runRounds(contenders, roundOptions, `Pro list page (br), Redis on core ${apart.redis}`);
      const file = runs.get(FILE)!;
      const onRedis = runs.get(REDIS)!;
      figures.set(connections, {
        redisCore: apart.redis,
        otherCores: apart.rest.servers,
        file: file.rps,
        redis: onRedis.rps,
        ratio: roundRatio(onRedis, file, 'rps')!,
      });
    }
    return figures;
  } finally {
    for (const server of servers) await stop(server.child);
    await stop(redis.child);
  }
}
