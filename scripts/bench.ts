/**
 * `npm run bench [-- --duration S] [--connections 16,64]` / `npm run bench -- --scale [--factors 1,3,10]`: measure the server against
 * nginx (one worker) serving the same precompressed bodies from the same machine, with wrk.
 * Writes bench/results.json and the table in BENCHMARKS.md. Not part of `npm test`.
 *
 * Scenarios: a Pro list page (br), a detail page across every slug (so the LRU misses with a
 * small cache), a /free page, the measurements route, and the list page with quota counting
 * off. `--scale` instead builds 1x, 3x and 10x datasets outside the repository and reports
 * build time, snapshot size, start-up time and resident memory for each, with growth ratios.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { DEFAULT_BUILD_OPTIONS, runBuild } from '../build/build.ts';
import { DEFAULT_LEVELS } from '../build/pack.ts';
import { createKey } from '../src/keys.ts';
import { MANIFEST_FILE, PACK_FILE, readAllEntries, variantOf, type Manifest } from '../src/shared/manifest.ts';
import { bundle } from './bundle.ts';
import { generateSample, parseSampleArgs } from './generate-sample.ts';
import { freePort, spawnServer, stopProcess } from './processes.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const BROTLI_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';
const STARTUP_RUNS = 7;
const DEBIAN_PACKAGES = ['wrk', 'nginx-light', 'libnginx-mod-http-brotli-static'];

// ---------------------------------------------------------------------------------------------
// Tools

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** wrk and nginx (with brotli_static) from Debian: install them as root, or say exactly what to run. */
function ensureTools(): void {
  const missing = !has('wrk') || !has('nginx') || !exists(BROTLI_MODULE);
  if (!missing) return;
  if (process.getuid?.() !== 0) {
    console.error(`bench needs wrk and nginx with brotli_static. Install them with:\n  sudo apt-get install -y ${DEBIAN_PACKAGES.join(' ')}`);
    process.exit(1);
  }
  console.log(`installing ${DEBIAN_PACKAGES.join(', ')} from Debian's packages...`);
  execFileSync('apt-get', ['install', '-y', ...DEBIAN_PACKAGES], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Peak resident set size (VmHWM) of a process, in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

interface Started {
  child: ChildProcess;
  port: number;
  /** Milliseconds from spawn to the first 200 answer. */
  startupMs: number;
}

const START_TIMEOUT_MS = 30_000;

async function firstAnswer(port: number, path: string, headers: Record<string, string>, since: number, child: ChildProcess): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    if (performance.now() - since > START_TIMEOUT_MS) throw new Error(`no 200 from port ${port}${path} within ${START_TIMEOUT_MS} ms`);
    try {
      const reply = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      await reply.arrayBuffer();
      if (reply.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
}

/** Every process the bench started, so a failure anywhere still stops them all. */
const children = new Set<ChildProcess>();

function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** Our server on a port of its choosing (port 0), timed from spawn to its first 200. */
async function startServer(bundlePath: string, snapshot: string, state: string, probe: { path: string; key: string }, extra: string[] = []): Promise<Started> {
  const since = performance.now();
  const server = await spawnServer(['--port', '0', '--snapshot', snapshot, '--state', state, '--quota-free', '1000000000', '--quota-pro', '1000000000', '--cache-mb', '16', '--quiet', ...extra], [bundlePath], START_TIMEOUT_MS);
  track(server.child);
  const startupMs = await firstAnswer(server.port, probe.path, { 'x-api-key': probe.key }, since, server.child);
  return { child: server.child, port: server.port, startupMs };
}

/** Start-up varies from one spawn to the next: the median of several starts. */
async function medianStartup(start: () => Promise<Started>, runs = STARTUP_RUNS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = await start();
    times.push(started.startupMs);
    await stop(started.child);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

const stop = (child: ChildProcess) => stopProcess(child);

// ---------------------------------------------------------------------------------------------
// nginx

function nginxConfig(prefix: string, docroot: string, port: number): string {
  return `load_module ${BROTLI_MODULE};
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  gzip_static on;
  brotli_static on;
  types { application/json json; }
  default_type application/json;
  client_body_temp_path ${prefix}/tmp;
  proxy_temp_path ${prefix}/tmp;
  fastcgi_temp_path ${prefix}/tmp;
  uwsgi_temp_path ${prefix}/tmp;
  scgi_temp_path ${prefix}/tmp;
  server {
    listen 127.0.0.1:${port};
    root ${docroot};
    location / { add_header Cache-Control "private, max-age=300"; add_header Vary "Accept-Encoding"; }
  }
}
`;
}

async function startNginx(work: string, docroot: string, port: number): Promise<{ child: ChildProcess; workerPid: () => number }> {
  const prefix = join(work, 'nginx');
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  writeFileSync(join(prefix, 'nginx.conf'), nginxConfig(prefix, docroot, port));
  const child = track(spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] }));
  await firstAnswer(port, '/free.json', {}, performance.now(), child);
  const workerPid = () => Number(execFileSync('pgrep', ['-P', String(child.pid)]).toString().trim().split('\n')[0]);
  return { child, workerPid };
}

// ---------------------------------------------------------------------------------------------
// The node:http floor

/**
 * What node:http itself reaches on this machine: no key, no quota, no lookup, one fixed body
 * with the same headers our server sends. Our server can approach this, not pass it, so it
 * tells how much of the gap to nginx is ours and how much is the platform's.
 */
const FLOOR_SERVER = `import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const body = readFileSync(process.argv[2]);
const headers = { 'Content-Type': 'application/json; charset=utf-8', ETag: '"0123456789abcdef.br"', Vary: 'Accept-Encoding', 'Cache-Control': 'private, max-age=300', 'Content-Encoding': 'br', 'X-Platform-Tier': 'commercial', 'X-RateLimit-Limit': 1000000000, 'X-RateLimit-Remaining': 999999999, 'X-RateLimit-Reset': 1795000000, 'Content-Length': body.length };
createServer((req, res) => { res.writeHead(200, headers); res.end(body); }).listen(Number(process.argv[3]), '127.0.0.1');
`;

async function startFloor(work: string, bodyPath: string, port: number): Promise<ChildProcess> {
  const script = join(work, 'floor.mjs');
  writeFileSync(script, FLOOR_SERVER);
  const child = track(spawn(process.execPath, [script, bodyPath, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] }));
  await firstAnswer(port, '/', {}, performance.now(), child);
  return child;
}

/** Write a body as nginx serves it: identity, .gz and .br side by side. */
function exportBody(path: string, identity: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, identity);
  writeFileSync(`${path}.gz`, gzipSync(identity, { level: DEFAULT_LEVELS.gzip }));
  writeFileSync(`${path}.br`, brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: DEFAULT_LEVELS.brotli, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }));
}

// ---------------------------------------------------------------------------------------------
// wrk

interface Load {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

/** Load one URL (or a list of paths, round robin) with wrk, keep-alive, one thread. */
function wrk(base: string, paths: string[], headers: Record<string, string>, connections: number, seconds: number, work: string): Load {
  const script = join(work, `paths-${paths.length}.lua`);
  writeFileSync(script, `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("GET", paths[(i % #paths) + 1])\nend\n`);
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), base];
  const out = execFileSync('wrk', args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50Ms = toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? '');
  const p99Ms = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '');
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors:.*?timeout (\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50Ms, p99Ms, errors };
}

// ---------------------------------------------------------------------------------------------
// The comparison

interface Scenario {
  name: string;
  /** Paths on our server. */
  server: string[];
  /** Paths of the same bodies on nginx. */
  nginx: string[];
  key: string;
  counting: boolean;
}

interface Row {
  scenario: string;
  connections: number;
  server: Load;
  nginx: Load | null;
  rpsRatio: number | null;
  p99Ratio: number | null;
}

/** The identity body of a snapshot key, read out of the pack. */
function bodyReader(snapshotDir: string, manifest: Manifest): (key: string) => Buffer {
  const pack = readFileSync(join(snapshotDir, PACK_FILE));
  const entries = readAllEntries(snapshotDir, manifest);
  return (key) => variantOf(pack, entries.get(key)!, 'identity');
}

async function compare(options: { seconds: number; connections: number[] }): Promise<void> {
  ensureTools();
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  // nginx's worker runs as an unprivileged user and must reach the exported bodies.
  chmodSync(work, 0o755);
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);
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

interface ScaleRow {
  scale: number;
  models: number;
  records: number;
  buildSeconds: number;
  packMB: number;
  entries: number;
  startupMs: number;
  rssMb: number;
  rps: number;
}

/** BENCHMARKS.md from whichever result files exist: the comparison and the scaling run. */
function writeBenchmarksMarkdown(): void {
  const read = (name: string) => (exists(join(ROOT, 'bench', name)) ? JSON.parse(readFileSync(join(ROOT, 'bench', name), 'utf8')) : null);
  const compared = read('results.json');
  const scaled = read('scale.json') as { date: string; rows: ScaleRow[] } | null;
  const parts = [compared ? benchmarksMarkdown(compared) : '# Benchmarks\n\n(no comparison run yet: `npm run bench`)\n'];
  if (scaled) parts.push(scaleMarkdown(scaled));
  // The interpretation is written by hand, next to the results it reads.
  const analysis = join(ROOT, 'bench', 'analysis.md');
  if (exists(analysis)) parts.push(readFileSync(analysis, 'utf8'));
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), parts.join('\n'));
}

function scaleMarkdown({ date, rows }: { date: string; rows: ScaleRow[] }): string {
  const base = rows[0];
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(1) : '-');
  return [
    '## Scaling',
    '',
    `Made by \`npm run bench -- --scale\` on ${date.slice(0, 10)}: datasets generated outside the repository at 1x, 3x and 10x the sample (models, creators, providers, endpoints and their measurements), each built, then served by the bundle with a 32 MiB body cache and loaded for a few seconds (detail pages across every slug, so the cache misses). Start-up is the median of ${STARTUP_RUNS} starts.`,
    '',
    '| Scale | Models | Records | Build s | Pack MB | Entries | Start-up ms | RSS MB under load | rps | Build vs 1x | Pack vs 1x |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.scale}x | ${r.models} | ${r.records} | ${r.buildSeconds.toFixed(1)} | ${r.packMB.toFixed(0)} | ${r.entries} | ${r.startupMs.toFixed(0)} | ${r.rssMb.toFixed(0)} | ${r.rps.toFixed(0)} | ${ratio(r.buildSeconds, base.buildSeconds)} | ${ratio(r.packMB, base.packMB)} |`),
    '',
    'Target (design.md section 5): 10x the models builds in at most 12x the time.',
    '',
  ].join('\n');
}

interface FloorRow {
  connections: number;
  floor: Load;
  /** The floor's rps over nginx's, same body. */
  ofNginx: number;
  /** Our server's rps over the floor's, same body. */
  oursOfFloor: number;
}

function benchmarksMarkdown(r: { date: string; machine: { cpus: number; model?: string; node: string }; seconds: number; build: { seconds: number; entries: number; packMB: number; identityMB: number }; startupMs: number; peakRssMb: { server: number; nginxWorker: number }; rows: Row[]; countingCost: { connections: number; on: number; off: number; cost: number }[]; floorRows?: FloorRow[] }): string {
  const f = (n: number | null, d = 2) => (n === null || Number.isNaN(n) ? '-' : n.toFixed(d));
  const lines = [
    '# Benchmarks',
    '',
    `Made by \`npm run bench\` on ${r.date.slice(0, 10)}: ${r.machine.cpus} cores (${r.machine.model ?? 'unknown CPU'}), Node ${r.machine.node}. wrk (one thread, keep-alive, ${r.seconds} s a run) against the bundled server (quota counting on unless said) and against nginx (one worker, \`gzip_static\` + \`brotli_static\`) serving the same bodies, both on loopback on the same machine. Every request asks for br.`,
    '',
    '| Scenario | Connections | Server rps | p50 ms | p99 ms | nginx rps | nginx p99 ms | rps ratio | p99 ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((row) => `| ${row.scenario} | ${row.connections} | ${f(row.server.rps, 0)} | ${f(row.server.p50Ms)} | ${f(row.server.p99Ms)} | ${f(row.nginx?.rps ?? null, 0)} | ${f(row.nginx?.p99Ms ?? null)} | ${f(row.rpsRatio)} | ${f(row.p99Ratio)} |`),
    '',
    '| Quota counting | Connections | on (rps) | off (rps) | cost |',
    '|---|---:|---:|---:|---:|',
    ...r.countingCost.map((c) => `| Pro list page | ${c.connections} | ${f(c.on, 0)} | ${f(c.off, 0)} | ${(c.cost * 100).toFixed(1)}% |`),
    '',
    ...(r.floorRows
      ? [
          'The node:http floor: a bare node:http server sending the Pro list body with the same headers (no key, no quota, no lookup). It bounds what any node:http server can reach here.',
          '',
          '| Connections | floor rps | floor p99 ms | floor / nginx | server / floor |',
          '|---:|---:|---:|---:|---:|',
          ...r.floorRows.map((row) => `| ${row.connections} | ${f(row.floor.rps, 0)} | ${f(row.floor.p99Ms)} | ${f(row.ofNginx)} | ${f(row.oursOfFloor)} |`),
          '',
        ]
      : []),
    `- Start-up of the bundle to its first 200: ${r.startupMs.toFixed(0)} ms (median of ${STARTUP_RUNS} starts).`,
    `- Peak resident memory under this load: server ${r.peakRssMb.server.toFixed(0)} MB, nginx worker ${r.peakRssMb.nginxWorker.toFixed(0)} MB.`,
    `- Build of the sample: ${r.build.seconds} s, ${r.build.entries} entries, ${r.build.identityMB.toFixed(0)} MB of JSON, pack ${r.build.packMB.toFixed(0)} MB.`,
    '',
    'Targets (design.md section 5): rps ratio at least 0.7, p99 ratio at most 2, counting cost at most 10%, memory under 150 MB, start-up under 300 ms, build under 30 s.',
    '',
  ];
  return lines.join('\n');
}

/** Build and serve 1x, 3x and 10x datasets; report how time, size and memory grow. */
async function scale(factors: number[]): Promise<void> {
  ensureTools();
  const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);
  const rows: ScaleRow[] = [];
  for (const factor of factors) {
    const data = join(work, `data-${factor}x`);
    const records = generateSample(parseSampleArgs(['--scale', String(factor), '--out', data])).counts['measurement records'];
    const snapshot = join(work, `snapshot-${factor}x`);
    const built = await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: data, outDir: snapshot, force: true, log: () => {} });
    const state = join(work, `state-${factor}x`);
    const key = createKey(state, { tier: 'pro', org: 'bench', quota: null, user: 'p' }).key;
    const slugs = (JSON.parse(readFileSync(join(data, 'language-models.json'), 'utf8')) as { slug: string }[]).map((m) => m.slug);
    const start = () => startServer(bundlePath, snapshot, state, { path: '/api/v2/language/models/free', key }, ['--cache-mb', '32']);
    const startupMs = await medianStartup(start);
    const server = await start();
    const load = wrk(`http://127.0.0.1:${server.port}`, slugs.map((s) => `/api/v2/language/models/${s}`), { 'x-api-key': key, 'accept-encoding': 'br' }, 32, 5, work);
    const models = slugs.length;
    rows.push({ scale: factor, models, records, buildSeconds: built.seconds, packMB: built.packBytes / 1e6, entries: built.entries, startupMs, rssMb: peakRssMb(server.child.pid!), rps: load.rps });
    await stop(server.child);
    console.log(`${factor}x: ${models} models, build ${built.seconds} s, pack ${(built.packBytes / 1e6).toFixed(0)} MB, start-up ${startupMs.toFixed(0)} ms, RSS ${rows.at(-1)!.rssMb.toFixed(0)} MB, ${load.rps.toFixed(0)} rps`);
    rmSync(snapshot, { recursive: true, force: true });
  }
  mkdirSync(join(ROOT, 'bench'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/scale.json'), `${JSON.stringify({ date: new Date().toISOString(), rows }, null, 2)}\n`);
  writeBenchmarksMarkdown();
  console.log('wrote bench/scale.json and BENCHMARKS.md');
  rmSync(work, { recursive: true, force: true });
}

const USAGE = `usage: npm run bench -- [--duration S] [--connections N,N,...] [--scale [--factors F,F,...]]

  --duration S         seconds of load per run (default 10)
  --connections N,...  wrk connection counts (default 16,64)
  --scale              build, size and start the 1x, 3x and 10x datasets instead
  --factors F,...      the dataset sizes of --scale (default 1,3,10)`;

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '16,64' }, scale: { type: 'boolean', default: false }, factors: { type: 'string', default: '1,3,10' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
try {
  if (values.scale) await scale(values.factors.split(',').map(Number));
  else await compare({ seconds: Number(values.duration), connections: values.connections.split(',').map(Number) });
} finally {
  killAll();
}
