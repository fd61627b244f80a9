/**
 * The comparison: our server, nginx and the node:http floor loaded scenario by scenario in
 * alternating rounds; then peak memory at two cache sizes, the pack's sizes and start-up.
 */
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { SERVER_FLAGS } from '../../src/server-flags.ts';
import { freePort } from '../processes.ts';
import { stageBaseline } from './baseline.ts';
import { fastestFloor } from './floor-form.ts';
import { comparisonMarkdown, writeBenchmarksMarkdown } from './markdown.ts';
import { exportBody, startNginx } from './nginx.ts';
import { readPackSizes } from './pack-sizes.ts';
import { countingWork, freshStateFolder, measureCountingCost, type FreshServer } from './counting-cost.ts';
import { BENCH_CACHE_MB, medianStartup, peakRssMb, startServer, stop, type ServerStart } from './processes.ts';
import { startBenchRedis } from './redis.ts';
import {
  RESULTS_FORMAT,
  writeResults,
  type CountingCost,
  type Results,
  type Row,
  type SharedStore,
} from './results.ts';
import { PINNED, placeServer } from './pinning.ts';
import { redisApartRounds } from './redis-apart.ts';
import { roundRatio, runRounds, WARM_UP_SECONDS, type Contender } from './rounds.ts';
import { COUNTING_OFF, ON_REDIS, rowOf, scenariosOf, type Scenario } from './scenarios.ts';
import { setStage } from './stage.ts';
import { ensureRedis, ensureTools } from './tools.ts';
import { wrk } from './wrk.ts';

export interface CompareOptions {
  seconds: number;
  connections: number[];
  rounds: number;
  /** An earlier checkout to load in the same rounds (the "before" of a change). */
  baseline?: string;
  /** wrk on one core, every server on another (scripts/bench/pinning.ts, `PINNED`). */
  pin?: boolean;
}

export async function compare(options: CompareOptions): Promise<void> {
  ensureTools();
  const redisInstalled = ensureRedis();
  const stage = await setStage();
  const { commercial, free } = stage.keys;
  const serverStart = (more: Partial<ServerStart> = {}): ServerStart => ({
    bundlePath: stage.bundlePath,
    snapshot: stage.snapshotRoot,
    state: stage.state,
    probe: { path: '/api/v2/language/models/free', key: free },
    ...more,
  });
  const local = (port: number) => `http://127.0.0.1:${port}`;
  const baseline = options.baseline ? stageBaseline(options.baseline, stage.work, stage.state) : null;
  const startupMs = await medianStartup(() => startServer(serverStart()));
  const work = await countingWork();

  const placement = options.pin ? PINNED : undefined;
  const ours = await startServer(serverStart());
  /** A server for one round of the counting cost, on a state folder of its own (one journal, one writer). */
  const freshServer = async (counting: boolean): Promise<FreshServer> => {
    const state = freshStateFolder(stage.state);
    const server = await startServer(
      serverStart({ state: state.path, extra: counting ? [] : ['--no-counting'] }),
    ).catch((error) => {
      state.remove();
      throw error;
    });
    placeServer(placement, server.child.pid!);
    return {
      base: local(server.port),
      stop: async () => {
        await stop(server.child);
        state.remove();
      },
    };
  };
  const redis = redisInstalled ? await startBenchRedis(stage.work, stage.state) : null;
  if (!redis)
    console.log('redis-server is not installed: the shared-store rounds are left out (apt-get install redis-server)');
  const onRedis = redis ? await startServer(serverStart({ extra: ['--store', redis.url] })) : null;
  const onRedisTls = redis?.tls
    ? await startServer(serverStart({ extra: ['--store', redis.tls.url, ...redis.tls.flags] }))
    : null;
  const before = baseline
    ? await startServer(
        serverStart({ bundlePath: baseline.bundlePath, snapshot: baseline.snapshotRoot, state: baseline.state }),
      )
    : null;
  const measurementsPath = `/api/v2/language/providers/${stage.providerSlugs[0]}/measurements`;
  const measurements = await fetch(`http://127.0.0.1:${ours.port}${measurementsPath}`, {
    headers: { 'x-api-key': commercial },
  });
  exportBody(join(stage.docroot, 'measurements.json'), Buffer.from(await measurements.arrayBuffer()));
  const nginxPort = await freePort();
  const nginx = await startNginx(stage.work, stage.docroot, nginxPort);
  /** Every server of the rounds; Redis, which the Redis-backed ones use, is stopped after them. */
  const servers = [ours.child, nginx.child, ...[before, onRedis, onRedisTls].flatMap((s) => (s ? [s.child] : []))];
  for (const child of [...servers, ...(redis ? [redis.child] : [])]) placeServer(placement, child.pid!);
  placeServer(placement, nginx.workerPid());
  const floor = await fastestFloor(
    stage.work,
    stage.docroot,
    '/list.json',
    { 'x-api-key': commercial, 'accept-encoding': 'br' },
    options.connections,
    { rounds: options.rounds, seconds: options.seconds, work: stage.work, placement },
  );
  servers.push(floor.child);
  const floorPort = floor.port;

  const scenarios = scenariosOf(stage, measurementsPath);
  const contendersOf = (s: Scenario): Contender[] => {
    const headers = { 'x-api-key': s.key, 'accept-encoding': 'br' };
    const all = [
      { name: 'ours', base: local(ours.port), paths: s.ours, headers },
      { name: 'nginx', base: local(nginxPort), paths: s.nginx, headers },
    ];
    if (before) all.push({ name: 'before', base: local(before.port), paths: s.ours, headers });
    all.push({ name: 'floor', base: local(floorPort), paths: s.nginx, headers });
    if (s.isList && onRedis) all.push({ name: 'ours on Redis', base: local(onRedis.port), paths: s.ours, headers });
    if (s.isList && onRedisTls)
      all.push({ name: 'ours on Redis over TLS', base: local(onRedisTls.port), paths: s.ours, headers });
    return all;
  };

  const rows: Row[] = [];
  const countingCost: CountingCost[] = [];
  const sharedStore: SharedStore[] = [];
  for (const scenario of scenarios) {
    for (const connections of options.connections) {
      const roundOptions = {
        rounds: options.rounds,
        connections,
        seconds: options.seconds,
        work: stage.work,
        placement,
      };
      const contenders = contendersOf(scenario);
      const runs = runRounds(contenders, roundOptions, scenario.name);
      const main = runs.get('ours')!;
      rows.push(
        rowOf(
          scenario.name,
          connections,
          main,
          runs.get('nginx')!,
          runs.get('floor') ?? null,
          runs.get('before') ?? null,
        ),
      );
      if (scenario.isList) {
        const { cost, off } = await measureCountingCost(contenders[0]!, freshServer, roundOptions);
        rows.push(rowOf(COUNTING_OFF, connections, off, null, null));
        countingCost.push(cost);
      }
      const shared = runs.get('ours on Redis');
      const sharedTls = runs.get('ours on Redis over TLS');
      if (shared) {
        rows.push(rowOf(ON_REDIS, connections, shared, null, null));
        if (sharedTls) rows.push(rowOf(`${ON_REDIS} over TLS`, connections, sharedTls, null, null));
        sharedStore.push({
          connections,
          file: main.rps,
          redis: shared.rps,
          redisTls: sharedTls?.rps ?? null,
          ratio: roundRatio(shared, main, 'rps')!,
          ratioTls: roundRatio(sharedTls, main, 'rps'),
        });
      }
    }
  }
  // Read after every scenario, so every detail page has passed through the cache.
  const benchCacheRss = peakRssMb(ours.child.pid!);
  const nginxRss = peakRssMb(nginx.workerPid());
  const beforeRss = before ? peakRssMb(before.child.pid!) : null;
  for (const child of servers) await stop(child);
  if (redis) await stop(redis.child);

  // The RSS target is stated for the server's default cache: the same mix once more, against a
  // server started without --cache-mb.
  const defaultCache = await startServer(serverStart({ cacheMb: null }));
  placeServer(placement, defaultCache.child.pid!);
  for (const scenario of scenarios) {
    const [{ paths, headers }] = contendersOf(scenario);
    for (const connections of options.connections)
      wrk(local(defaultCache.port), paths, headers, connections, options.seconds, stage.work, placement?.load);
  }
  const defaultCacheRss = peakRssMb(defaultCache.child.pid!);
  await stop(defaultCache.child);
  if (redis) {
    const apart = await redisApartRounds(stage, serverStart, options);
    for (const s of sharedStore) s.apart = apart?.get(s.connections) ?? null;
  }

  const results: Results = {
    format: RESULTS_FORMAT,
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
    seconds: options.seconds,
    warmUpSeconds: Math.min(WARM_UP_SECONDS, options.seconds),
    rounds: options.rounds,
    pinned: options.pin ?? false,
    floorForm: { form: floor.form, runs: floor.runs },
    connections: options.connections,
    build: stage.build,
    pack: readPackSizes(stage.snapshotDir),
    startupMs,
    peakRssMb: {
      benchCache: benchCacheRss,
      benchCacheMb: BENCH_CACHE_MB,
      defaultCache: defaultCacheRss,
      defaultCacheMb: SERVER_FLAGS['cache-mb'].default,
      nginxWorker: nginxRss,
      before: beforeRss,
    },
    baseline: baseline?.label ?? null,
    rows,
    countingCost,
    countingWork: work,
    sharedStore,
  };
  writeResults(results);
  writeBenchmarksMarkdown();
  console.log(`\n${comparisonMarkdown(results)}`);
  console.log('wrote bench/results.json and BENCHMARKS.md');
  rmSync(stage.work, { recursive: true, force: true });
}
