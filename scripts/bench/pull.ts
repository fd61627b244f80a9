/**
 * Pulled snapshots (src/pull/), the issue's three targets on the sample (data/):
 * `npx tsx scripts/bench/pull.ts [--rounds 5] [--seconds 5]`. One JSON line a measurement, then a
 * short summary.
 *
 * 1. Delta size. data/ is built into a snapshot folder and published (release 1); a copy of data/
 *    with one model's one evaluation score changed is built into the same folder, as a rebuild
 *    would be, and published again (release 2). Reported: the chunks release 2 stored anew and
 *    their stored bytes against bodies.pack's size (target ≤ 10%), by file; what a server holding
 *    release 1 fetched to pull release 2 (its log line); each publish's seconds.
 * 2. Memory while pulling. nginx (one worker, plain http on loopback) serves the published folder;
 *    the bundled server (server.mjs, bundled here) starts with an empty snapshot folder and
 *    `--snapshot-from` it, and its VmRSS is read from /proc every 50 ms: the peak from its spawn
 *    to its first pull's log line (the pull comes before it listens) and from a later release
 *    offered to that pull's log line, the server idle (target ≤ 110 MB); then the peak on until
 *    the snapshot store has checked the new build whole and switched to it (both builds open
 *    meanwhile), and VmHWM; each pull's seconds and MB/s.
 * 3. Serving during a pull. A pro key's list page (`/api/v2/language/models?page=1`, br) under wrk
 *    at c=16 for --seconds, in rounds of two runs, one without a pull and one during which the
 *    server pulls a whole build (which runs first turns from round to round, as rounds.ts's
 *    roundOrder turns it): rps and p99 of each, the pull's seconds and the share of the run it
 *    covered, and the median of the rounds' own during/without ratios (target ≥ 0.9).
 *
 * A full pull needs a build none of whose chunks the server holds (it keeps the build it serves
 * and one before): builds B, C and D, the changed data compressed at gzip/brotli levels 6, 5 and
 * 7 (C and D forced: a build over a previous one copies its compressed bodies whatever the
 * levels), are published in turn as releases 3, 4, 5... before the rounds begin, so no cutting
 * or hashing competes with the load, and each release's signed envelope is kept. nginx's root is
 * a folder of its own: chunks/ a link to the published folder's, release.json one of the kept
 * envelopes, written in place to offer the next release, which the server (--snapshot-poll 1)
 * takes within about a second. The published folder keeps the chunks of its last three
 * releases, which are always B, C and D.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import { DEFAULT_LEVELS, type CompressionLevels } from '../../build/pack/pack.ts';
import { publishRelease, RELEASE_VALID_DAYS, type Published } from '../../build/publish/release.ts';
import { createKey } from '../../src/keys/changes.ts';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { PACK_FILE } from '../../src/shared/manifest.ts';
import {
  chunkPath,
  newSigningKey,
  RELEASE_FILE,
  signingKeyOf,
  unsignedRelease,
  type Release,
} from '../../src/shared/release.ts';
import { residentBytes } from '../attackers.ts';
import { bundle } from '../bundle.ts';
import { freePort, ROOT, stopProcess } from '../processes.ts';
import { firstAnswer, killAll, median, sleep, track } from './processes.ts';
import { roundOrder, WARM_UP_SECONDS } from './rounds.ts';
import { ensureTools } from './tools.ts';
import { parseWrk, wrk, wrkCommand, type Load } from './wrk.ts';

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
// wrk's -d takes whole seconds.
const seconds = Number(values.seconds);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) {
  console.error(`--rounds and --seconds are whole numbers from 1\n${USAGE}`);
  process.exit(2);
}

const TARGET = { deltaShare: 0.1, peakRssMb: 110, rpsRatio: 0.9 };
const LIST_PATH = '/api/v2/language/models?page=1';
const CONNECTIONS = 16;
const SAMPLE_MS = 50;
/** From wrk's start to the next release offered: wrk is connected and loading by then. */
const OFFER_AFTER_MS = 100;
/** A pause after a pull has been switched to, before the next run: the old build pruned, the new one opened. */
const SETTLE_MS = 1000;
const WAIT_MS = 180_000;
/** Levels of the builds the full pulls cycle through: every compressed byte differs from one to the next. */
const CYCLE_LEVELS: [string, CompressionLevels][] = [
  ['C', { gzip: 5, brotli: 5 }],
  ['D', { gzip: 7, brotli: 7 }],
];

const emit = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const met = (ok: boolean) => (ok ? 'met' : 'MISSED');

interface Built {
  name: string;
  buildDir: string;
  buildId: string;
  packBytes: number;
}

/** One pull as the server logged it; `at` is when this process read the line. */
interface Pull {
  at: number;
  release: number;
  buildId: string;
  chunks: number;
  releaseMb: number;
  seconds: number;
  fetchedChunks: number;
  fetchedMb: number;
  heldMb: number;
}

/** The puller's line (src/pull/puller.ts): release, build, chunks, MB, seconds, chunks and MB fetched, MB held. */
const PULLED = new RegExp(
  String.raw`pulled release (\d+) \(build (\S+), (\d+) chunks, ([\d.]+) MB\) from \S+ in ([\d.]+) s: ` +
    String.raw`fetched (\d+) chunks \(([\d.]+) MB\), ([\d.]+) MB held here`,
);
/** The snapshot store's line once a pulled build is checked whole and answered from. */
const SWITCHED = /switched to snapshot (\S+)/;

const work = mkdtempSync(join(tmpdir(), 'pull-bench-'));
// nginx's worker runs as an unprivileged user and must reach the published folder.
chmodSync(work, 0o755);
const published = join(work, 'published');
const www = join(work, 'www');
const state = join(work, 'state');
let server: ChildProcess | null = null;
let origin: ChildProcess | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    killAll();
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  });

/** Poll `check` until it gives a value; throws after `ms`, or at once when the server has exited. */
async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = WAIT_MS): Promise<T> {
  const since = performance.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (server && server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}) before ${what}`);
    if (performance.now() - since > ms) throw new Error(`no ${what} within ${ms / 1000} s`);
    await sleep(20);
  }
}

async function build(name: string, dataDir: string, outDir: string, levels: CompressionLevels, force: boolean) {
  const summary = await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir, outDir, levels, force, log: () => {} });
  const packBytes = statSync(join(summary.snapshotDir, PACK_FILE)).size;
  emit({
    measure: 'build',
    build: name,
    build_id: summary.buildId,
    levels,
    seconds: summary.seconds,
    pack_mb: mb(packBytes),
  });
  return { name, buildDir: summary.snapshotDir, buildId: summary.buildId, packBytes } satisfies Built;
}

/** A copy of data/ with one model's one evaluation score moved by 0.01 (the model in the middle of the list). */
function changedData(): string {
  const dir = join(work, 'data-changed');
  cpSync(join(ROOT, 'data'), dir, { recursive: true });
  const file = join(dir, 'language-models.json');
  const models = JSON.parse(readFileSync(file, 'utf8')) as {
    slug: string;
    evaluations: Record<string, number | null>;
  }[];
  const model = models[Math.floor(models.length / 2)];
  const [evaluation, from] = Object.entries(model.evaluations).find(
    (e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0 && e[1] < 0.98,
  )!;
  const to = Math.round((from + 0.01) * 1e4) / 1e4;
  model.evaluations[evaluation] = to;
  writeFileSync(file, `${JSON.stringify(models, null, 2)}\n`);
  emit({ measure: 'data_change', model: model.slug, evaluation, from, to });
  return dir;
}

const signing = newSigningKey();
const signingKey = signingKeyOf(signing.privatePem);
/** Each release's signed envelope, and the build it names, by version. */
const envelopes = new Map<number, { text: string; built: Built }>();

function publish(built: Built): Published & { seconds: number } {
  const started = performance.now();
  const done = publishRelease({
    buildDir: built.buildDir,
    to: published,
    signingKey,
    validDays: RELEASE_VALID_DAYS,
    now: new Date(),
    log: () => {},
  });
  const publishSeconds = (performance.now() - started) / 1000;
  envelopes.set(done.version, { text: readFileSync(join(published, RELEASE_FILE), 'utf8'), built });
  emit({
    measure: 'publish',
    release: done.version,
    build: built.name,
    seconds: round2(publishSeconds),
    chunks: done.chunks,
    build_mb: mb(done.bytes),
    new_chunks: done.newChunks,
    new_stored_mb: mb(done.newBytes),
    removed_chunks: done.removedChunks,
  });
  return { ...done, seconds: publishSeconds };
}

const releaseOf = (version: number): Release => unsignedRelease(envelopes.get(version)!.text);

/** Stored bytes of the chunks `release` names that `before` does not, by file (index files together). */
function newBytesByFile(release: Release, before: Release): Record<string, number> {
  const seen = new Set(before.files.flatMap((f) => f.chunks.map(([sum]) => sum)));
  const bytes: Record<string, number> = {};
  for (const file of release.files) {
    const group = file.path.startsWith('index/') ? 'index/*' : file.path;
    for (const chunk of file.chunks) {
      if (seen.has(chunk[0])) continue;
      seen.add(chunk[0]);
      bytes[group] = (bytes[group] ?? 0) + statSync(join(published, chunkPath(chunk))).size;
    }
  }
  return bytes;
}

/** What the origin offers: one kept envelope as its release.json, replaced whole. */
function offer(version: number): void {
  const tmp = join(www, `.${RELEASE_FILE}.tmp`);
  writeFileSync(tmp, envelopes.get(version)!.text);
  renameSync(tmp, join(www, RELEASE_FILE));
}

function nginxConfig(prefix: string, port: number): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `${n}_temp_path ${prefix}/tmp;`);
  return `worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  default_type application/octet-stream;
  ${temp.join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    root ${www};
    location = /${RELEASE_FILE} { add_header Cache-Control no-cache; }
  }
}
`;
}

async function startOrigin(): Promise<number> {
  const prefix = join(work, 'nginx');
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  const port = await freePort();
  writeFileSync(join(prefix, 'nginx.conf'), nginxConfig(prefix, port));
  const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')];
  origin = track(spawn('nginx', args, { stdio: ['ignore', 'ignore', 'inherit'] }), 'SIGTERM');
  await firstAnswer(port, `/${RELEASE_FILE}`, {}, performance.now(), origin);
  return port;
}

/** VmRSS of a process every SAMPLE_MS, each sample kept with its time, for the peak over any span. */
function sampleResident(pid: number) {
  const samples: { at: number; bytes: number }[] = [];
  const read = () => {
    const bytes = residentBytes(pid);
    if (bytes !== null) samples.push({ at: performance.now(), bytes });
  };
  read();
  const timer = setInterval(read, SAMPLE_MS).unref();
  return {
    /** The highest sample from `from` to `to`, in MB. */
    peakMb: (from: number, to: number) =>
      mb(samples.reduce((peak, s) => (s.at >= from && s.at <= to ? Math.max(peak, s.bytes) : peak), 0)),
    stop: () => clearInterval(timer),
  };
}

interface Pulling {
  child: ChildProcess;
  pid: number;
  url: string;
  /** When this process read the listening line. */
  listening: number;
  pulls: Pull[];
  /** The store's switches: the build, and when this process read the line. */
  switches: { buildId: string; at: number }[];
  /** VmRSS sampled from the spawn on. */
  rss: ReturnType<typeof sampleResident>;
  spawned: number;
  tail: () => string;
}

/** The bundled server, empty snapshot folder, following the origin; resolves once it listens (after its first pull). */
async function startPulling(bundlePath: string, originPort: number): Promise<Pulling> {
  const args = [
    ...['--port', '0', '--snapshot', join(work, 'server-snapshot'), '--state', state, '--quiet'],
    ...['--quota-pro', '1000000000', '--snapshot-from', `http://127.0.0.1:${originPort}/`],
    ...['--snapshot-key', signing.publicText, '--snapshot-poll', '1'],
  ];
  const spawned = performance.now();
  const child = track(spawn(process.execPath, [bundlePath, ...args], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] }));
  server = child;
  const rss = sampleResident(child.pid!);
  const lines: string[] = [];
  const pulls: Pull[] = [];
  const switches: { buildId: string; at: number }[] = [];
  for (const stream of [child.stdout!, child.stderr!])
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      const switched = SWITCHED.exec(line);
      if (switched) switches.push({ buildId: switched[1], at: performance.now() });
      const m = PULLED.exec(line);
      if (m)
        pulls.push({
          at: performance.now(),
          release: Number(m[1]),
          buildId: m[2],
          chunks: Number(m[3]),
          releaseMb: Number(m[4]),
          seconds: Number(m[5]),
          fetchedChunks: Number(m[6]),
          fetchedMb: Number(m[7]),
          heldMb: Number(m[8]),
        });
    });
  const tail = () => lines.slice(-20).join('\n');
  const url = await waitFor('listening line', () =>
    lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)?.[1]).find((u) => u !== undefined),
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${tail()}`);
  });
  return { child, pid: child.pid!, url, listening: performance.now(), pulls, switches, rss, spawned, tail };
}

async function readyz(url: string): Promise<{ snapshot?: string; verification?: { state?: string } }> {
  try {
    return (await (await fetch(`${url}/readyz`)).json()) as { snapshot?: string };
  } catch {
    return {};
  }
}

/**
 * The server's log line for `release`, then /readyz serving its build checked whole; with when the
 * store switched to it (for the first pull, the build opened at start: when the server listened).
 */
async function pulled(s: Pulling, release: number): Promise<Pull & { switched: number }> {
  const pull = await waitFor(`pull of release ${release}`, () => s.pulls.find((p) => p.release === release)).catch(
    (error: Error) => {
      throw new Error(`${error.message}\n${s.tail()}`);
    },
  );
  await waitFor(`build ${pull.buildId} served and verified`, async () => {
    const ready = await readyz(s.url);
    return ready.snapshot === pull.buildId && ready.verification?.state === 'verified' ? true : undefined;
  });
  const switched = s.switches.find((w) => w.buildId === pull.buildId && w.at >= pull.at)?.at ?? performance.now();
  return { ...pull, switched };
}

function pullFigures(pull: Pull): Record<string, unknown> {
  return {
    release: pull.release,
    pull_seconds: pull.seconds,
    chunks: pull.chunks,
    release_mb: pull.releaseMb,
    fetched_chunks: pull.fetchedChunks,
    fetched_mb: pull.fetchedMb,
    held_mb: pull.heldMb,
    mb_per_s: round2(pull.releaseMb / pull.seconds),
  };
}

/** wrk in a process of its own, not blocking this one: the next release is offered and RSS sampled meanwhile. */
function wrkAsync(base: string, headers: Record<string, string>): Promise<Load> {
  const [command, args] = wrkCommand(base, [LIST_PATH], headers, CONNECTIONS, seconds, work);
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] }));
    let out = '';
    child.stdout!.on('data', (part: Buffer) => (out += part));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(parseWrk(out)) : reject(new Error(`wrk exited with ${code}`))));
  });
}

interface During extends Load {
  pull: Pull & { switched: number };
  /** Share of the wrk run the pull was under way. */
  cover: number;
  peakRssMb: number;
}

async function main(): Promise<void> {
  ensureTools();
  await bundle(work);
  const bundlePath = join(work, 'server.mjs');
  const proKey = createKey(state, { tier: 'pro', org: 'bench', user: 'pull' }).key;

  // 1. Delta size: the sample, then one score changed, into the same snapshot folder.
  const snapshot = join(work, 'snapshot');
  const a = await build('A (data/)', join(ROOT, 'data'), snapshot, DEFAULT_LEVELS, true);
  const first = publish(a);
  const changed = changedData();
  const b = await build('B (one score changed)', changed, snapshot, DEFAULT_LEVELS, false);
  const second = publish(b);
  const byFile = newBytesByFile(releaseOf(2), releaseOf(1));

  // 2. The origin, and a server that starts empty and pulls release 1 before it listens.
  mkdirSync(www);
  symlinkSync(join(published, 'chunks'), join(www, 'chunks'));
  offer(1);
  const originPort = await startOrigin();
  const s = await startPulling(bundlePath, originPort);
  const firstPull = await pulled(s, 1);
  const firstMemory = memoryOf(s, s.spawned, firstPull);
  emit({
    measure: 'pull_memory',
    pull: 'first (empty folder, before listening)',
    ...firstMemory,
    ...pullFigures(firstPull),
  });

  // Release 2 while holding release 1: what the server fetches of the delta.
  offer(2);
  const deltaPull = await pulled(s, 2);
  const deltaShare = second.newBytes / b.packBytes;
  emit({
    measure: 'delta',
    chunks: second.chunks,
    new_chunks: second.newChunks,
    new_stored_bytes: second.newBytes,
    pack_bytes: b.packBytes,
    share_of_pack: Math.round(deltaShare * 10_000) / 10_000,
    share_of_build: Math.round((second.newBytes / second.bytes) * 10_000) / 10_000,
    target_share: TARGET.deltaShare,
    new_stored_mb_by_file: Object.fromEntries(Object.entries(byFile).map(([k, v]) => [k, mb(v)])),
    publish_seconds: [round2(first.seconds), round2(second.seconds)],
    server: pullFigures(deltaPull),
  });

  // The builds the full pulls cycle through, all published before anything is loaded.
  const cycle: Built[] = [b];
  for (const [name, levels] of CYCLE_LEVELS) {
    const label = `${name} (levels ${levels.gzip}/${levels.brotli})`;
    cycle.push(await build(label, changed, join(work, `snapshot-${name}`), levels, true));
  }
  // Releases 3 (C, the later full pull of 2.), then one a round: D, B, C, D, B...
  for (let version = 3; version <= 3 + rounds; version++) publish(cycle[(version - 2) % cycle.length]);

  // 2., again: a later full pull, the server idle.
  await sleep(SETTLE_MS);
  const idleRss = residentBytes(s.pid) ?? 0;
  const offered = performance.now();
  offer(3);
  const laterPull = await pulled(s, 3);
  const laterMemory = memoryOf(s, offered, laterPull);
  emit({
    measure: 'pull_memory',
    pull: 'later (idle, serving the build before)',
    rss_before_mb: mb(idleRss),
    ...laterMemory,
    ...pullFigures(laterPull),
  });

  // 3. The list page with and without a pull under way.
  const headers = { 'x-api-key': proKey, 'accept-encoding': 'br' };
  const check = await fetch(`${s.url}${LIST_PATH}`, { headers });
  await check.arrayBuffer();
  if (check.status !== 200) throw new Error(`${LIST_PATH} answered ${check.status} to the pro key`);
  await sleep(SETTLE_MS);
  wrk(s.url, [LIST_PATH], headers, CONNECTIONS, Math.min(WARM_UP_SECONDS, seconds), work);
  const without: Load[] = [];
  const during: During[] = [];
  let version = 4;
  for (let round = 0; round < rounds; round++) {
    for (const kind of roundOrder(['without', 'during'] as const, round)) {
      await sleep(SETTLE_MS);
      const started = performance.now();
      if (kind === 'without') {
        const load = await wrkAsync(s.url, headers);
        without.push(load);
        const peakRssMb = s.rss.peakMb(started, performance.now());
        emit({ measure: 'throughput', round: round + 1, kind, ...roundedLoad(load), peak_rss_mb: peakRssMb });
        continue;
      }
      const release = version++;
      const loading = wrkAsync(s.url, headers);
      await sleep(OFFER_AFTER_MS);
      offer(release);
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
    target_rps_ratio: TARGET.rpsRatio,
  };
  emit(summary);

  const pullPeak = Math.max(firstMemory.peak_rss_mb, laterMemory.peak_rss_mb);
  const switchPeak = Math.max(firstMemory.peak_rss_mb_to_switch, laterMemory.peak_rss_mb_to_switch);
  const rate = (p: Pull) => `${p.releaseMb} MB in ${p.seconds} s (${(p.releaseMb / p.seconds).toFixed(1)} MB/s)`;
  const ratio = summary.rps_ratio_median;
  console.log(
    [
      '',
      `summary (sample data/; bodies.pack ${mb(b.packBytes)} MB; the build ${mb(second.bytes)} MB, ` +
        `${second.chunks} chunks):`,
      `  delta, one score changed: ${second.newChunks} new chunks, ${mb(second.newBytes)} MB stored = ` +
        `${percent(deltaShare)} of bodies.pack (target ≤ ${percent(TARGET.deltaShare)}: ` +
        `${met(deltaShare <= TARGET.deltaShare)}); a server holding release 1 fetched ` +
        `${deltaPull.fetchedChunks} chunks (${deltaPull.fetchedMb} MB) in ${deltaPull.seconds} s`,
      `  publish: release 1 in ${first.seconds.toFixed(1)} s, release 2 (the delta) in ${second.seconds.toFixed(1)} s`,
      `  memory: peak VmRSS over the pull ${firstMemory.peak_rss_mb} MB (first), ${laterMemory.peak_rss_mb} MB ` +
        `(a later full pull) (target ≤ ${TARGET.peakRssMb} MB: ${met(pullPeak <= TARGET.peakRssMb)}); ` +
        `until the new build is checked and served ${firstMemory.peak_rss_mb_to_switch} and ` +
        `${laterMemory.peak_rss_mb_to_switch} MB (${met(switchPeak <= TARGET.peakRssMb)})`,
      `  full pull: ${rate(firstPull)} first, ${rate(laterPull)} later`,
      `  list page, c=${CONNECTIONS}, ${seconds} s runs: ${summary.without_rps_median} rps ` +
        `(p99 ${summary.without_p99_ms_median} ms) without a pull, ${summary.during_rps_median} rps ` +
        `(p99 ${summary.during_p99_ms_median} ms) during one; median ratio ${ratio} ` +
        `(target ≥ ${TARGET.rpsRatio}: ${met(ratio >= TARGET.rpsRatio)}), p99 ${summary.p99_ratio_median}x; ` +
        `the pull under way for a median ${percent(summary.pull_cover_median)} of a run`,
    ].join('\n'),
  );
}

/**
 * Peak VmRSS from `from` to the pull's log line, and on until the store switched to the build
 * (checked whole; for the first pull, until its check at start ended), with VmHWM.
 */
function memoryOf(s: Pulling, from: number, pull: Pull & { switched: number }) {
  return {
    peak_rss_mb: s.rss.peakMb(from, pull.at),
    peak_rss_mb_to_switch: s.rss.peakMb(from, pull.switched),
    vmhwm_mb: mb(residentBytes(s.pid, 'VmHWM') ?? 0),
    target_mb: TARGET.peakRssMb,
  };
}

function roundedLoad(load: Load): Record<string, number> {
  return { rps: Math.round(load.rps), p50_ms: round2(load.p50Ms), p99_ms: round2(load.p99Ms), errors: load.errors };
}

try {
  await main();
} catch (error) {
  console.error(`pull bench failed: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
} finally {
  if (server) await stopProcess(server);
  if (origin) await stopProcess(origin, 'SIGTERM');
  killAll();
  rmSync(work, { recursive: true, force: true });
}
