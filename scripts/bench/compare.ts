/**
 * The comparison: the sample built, its bodies exported for nginx, then our server, nginx and
 * the node:http floor loaded by wrk scenario by scenario.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS, runBuild } from '../../build/build.ts';
import { createKey } from '../../src/keys.ts';
import { MANIFEST_FILE, PACK_FILE, readAllEntries, variantOf, type Manifest } from '../../src/shared/manifest.ts';
import { bundle } from '../bundle.ts';
import { freePort, ROOT } from '../processes.ts';
import { startFloor } from './floor.ts';
import { writeBenchmarksMarkdown } from './markdown.ts';
import { exportBody, startNginx } from './nginx.ts';
import { medianStartup, peakRssMb, startServer, stop } from './processes.ts';
import { ensureTools } from './tools.ts';
import type { Row } from './results.ts';
import { wrk } from './wrk.ts';

interface Scenario {
  name: string;
  /** Paths on our server. */
  server: string[];
  /** Paths of the same bodies on nginx. */
  nginx: string[];
  key: string;
  counting: boolean;
}

/** The identity body of a snapshot key, read out of the pack. */
function bodyReader(snapshotDir: string, manifest: Manifest): (key: string) => Buffer {
  const pack = readFileSync(join(snapshotDir, PACK_FILE));
  const entries = readAllEntries(snapshotDir, manifest);
  return (key) => variantOf(pack, entries.get(key)!, 'identity');
}

export async function compare(options: { seconds: number; connections: number[] }): Promise<void> {
  ensureTools();
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  // nginx's worker runs as an unprivileged user and must reach the exported bodies.
  chmodSync(work, 0o755);
  const bundlePath = join(work, 'server.mjs');
  await bundle(bundlePath);
  const snapshotRoot = join(work, 'snapshot');
  const built = await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: join(ROOT, 'data'), outDir: snapshotRoot, force: true, log: () => {} });
  const snapshotDir = built.snapshotDir;
  const manifest = JSON.parse(readFileSync(join(snapshotDir, MANIFEST_FILE), 'utf8')) as Manifest;
  const providers = JSON.parse(readFileSync(join(ROOT, 'data/providers.json'), 'utf8')) as { slug: string }[];
  const slugs = (JSON.parse(readFileSync(join(ROOT, 'data/language-models.json'), 'utf8')) as { slug: string }[]).map((m) => m.slug);
  const state = join(work, 'state');
  const commercial = createKey(state, { tier: 'commercial', org: 'bench', user: 'c', quota: 1_000_000_000, grants: providers.map((p) => p.slug) }).key;
  const free = createKey(state, { tier: 'free', org: 'bench', user: 'f' }).key;
  console.log(`built the sample in ${built.seconds} s (${built.entries} entries, pack ${(built.packBytes / 1e6).toFixed(0)} MB); work folder ${work}`);

  // The same bodies as files for nginx.
  const readBody = bodyReader(snapshotDir, manifest);
  const docroot = join(work, 'www');
  exportBody(join(docroot, 'list.json'), readBody('language.models commercial prompt_type=long page=1'));
  exportBody(join(docroot, 'free.json'), readBody('language.models.free free page=1'));
  for (const slug of slugs) exportBody(join(docroot, 'detail', `${slug}.json`), readBody(`language.model commercial prompt_type=long slug=${slug}`));

  const probe = { path: '/api/v2/language/models/free', key: free };
  const startupMs = await medianStartup(() => startServer(bundlePath, snapshotRoot, state, probe));
  let server = await startServer(bundlePath, snapshotRoot, state, probe);
  const measurementsPath = `/api/v2/language/providers/${providers[0].slug}/measurements`;
  const measurements = Buffer.from(await (await fetch(`http://127.0.0.1:${server.port}${measurementsPath}`, { headers: { 'x-api-key': commercial } })).arrayBuffer());
  exportBody(join(docroot, 'measurements.json'), measurements);
  const nginxPort = await freePort();
  const nginx = await startNginx(work, docroot, nginxPort);
  const floorPort = await freePort();
  const floor = await startFloor(work, join(docroot, 'list.json.br'), floorPort);

  const scenarios: Scenario[] = [
    { name: 'Pro list page (br)', server: ['/api/v2/language/models?page=1'], nginx: ['/list.json'], key: commercial, counting: true },
    { name: `detail, ${slugs.length} slugs (br)`, server: slugs.map((s) => `/api/v2/language/models/${s}`), nginx: slugs.map((s) => `/detail/${s}.json`), key: commercial, counting: true },
    { name: '/free page (br)', server: ['/api/v2/language/models/free'], nginx: ['/free.json'], key: free, counting: true },
    { name: 'measurements (br)', server: [measurementsPath], nginx: ['/measurements.json'], key: commercial, counting: true },
    { name: 'Pro list page (br), counting off', server: ['/api/v2/language/models?page=1'], nginx: ['/list.json'], key: commercial, counting: false },
  ];
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    if (!scenario.counting && server.child.exitCode === null) {
      await stop(server.child);
      server = await startServer(bundlePath, snapshotRoot, state, probe, ['--no-counting']);
    }
    for (const connections of options.connections) {
      const headers = { 'x-api-key': scenario.key, 'accept-encoding': 'br' };
      const ours = wrk(`http://127.0.0.1:${server.port}`, scenario.server, headers, connections, options.seconds, work);
      const theirs = scenario.counting ? wrk(`http://127.0.0.1:${nginxPort}`, scenario.nginx, headers, connections, options.seconds, work) : null;
      const row: Row = {
        scenario: scenario.name,
        connections,
        server: ours,
        nginx: theirs,
        rpsRatio: theirs ? ours.rps / theirs.rps : null,
        p99Ratio: theirs ? ours.p99Ms / theirs.p99Ms : null,
      };
      rows.push(row);
      console.log(`${scenario.name.padEnd(36)} c=${String(connections).padEnd(4)} server ${ours.rps.toFixed(0).padStart(7)} rps p50 ${ours.p50Ms.toFixed(2)} ms p99 ${ours.p99Ms.toFixed(2)} ms` + (theirs ? ` | nginx ${theirs.rps.toFixed(0).padStart(7)} rps p99 ${theirs.p99Ms.toFixed(2)} ms | ratio ${row.rpsRatio!.toFixed(2)}` : ''));
    }
  }
  const floorRows = options.connections.map((connections) => {
    const load = wrk(`http://127.0.0.1:${floorPort}`, ['/'], { 'accept-encoding': 'br' }, connections, options.seconds, work);
    const row = rows.find((r) => r.scenario === scenarios[0].name && r.connections === connections)!;
    console.log(`node:http floor, list body                c=${String(connections).padEnd(4)} ${load.rps.toFixed(0).padStart(7)} rps p99 ${load.p99Ms.toFixed(2)} ms`);
    return { connections, floor: load, ofNginx: load.rps / row.nginx!.rps, oursOfFloor: row.server.rps / load.rps };
  });
  const serverRssMb = peakRssMb(server.child.pid!);
  const nginxRssMb = peakRssMb(nginx.workerPid());
  await stop(server.child);
  await stop(nginx.child);
  await stop(floor);

  const countingCost = options.connections.map((c) => {
    const on = rows.find((r) => r.scenario === scenarios[0].name && r.connections === c)!.server.rps;
    const off = rows.find((r) => r.scenario === scenarios[4].name && r.connections === c)!.server.rps;
    return { connections: c, on, off, cost: 1 - on / off };
  });
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
    seconds: options.seconds,
    build: { seconds: built.seconds, entries: built.entries, packMB: built.packBytes / 1e6, identityMB: built.identityBytes / 1e6 },
    startupMs,
    peakRssMb: { server: serverRssMb, nginxWorker: nginxRssMb },
    rows,
    countingCost,
    floorRows,
  };
  mkdirSync(join(ROOT, 'bench'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeBenchmarksMarkdown();
  console.log(`\nstart-up to first 200: ${startupMs.toFixed(0)} ms; peak RSS server ${serverRssMb.toFixed(0)} MB, nginx worker ${nginxRssMb.toFixed(0)} MB`);
  for (const c of countingCost) console.log(`quota counting cost at c=${c.connections}: ${(c.cost * 100).toFixed(1)}% (${c.on.toFixed(0)} vs ${c.off.toFixed(0)} rps)`);
  console.log('wrote bench/results.json and BENCHMARKS.md');
  rmSync(work, { recursive: true, force: true });
}
