/**
 * The bundled server on a state folder at scale: `npx tsx scripts/bench/server-scale.ts
 * [--keys 100000] [--windows 200000]`. The folder is seeded (scripts/scale-state.ts), the load's
 * keys are issued by the keys command, the small fixture is built and the server bundled as the
 * soak does; then the real process is measured, one JSON line per figure group:
 * - start: ms from spawn to `listening on`, and its resident memory (VmRSS) then and after the load;
 * - compaction: the longest /healthz answer while wrk counts requests (Commercial keys, so every
 *   answer is a journal line) until the quota book has compacted in the background at least
 *   twice (it does every 50,000 lines, src/quota/file-quota.ts), and how many times it did: counted
 *   from the journal numbers in the state folder, as the server neither logs nor exports them;
 * - key_change: the keys command (`create`, then `revoke`) run as a process beside the server,
 *   the longest /healthz answer meanwhile, and the time from its exit until the key answers
 *   200 (then 401), with the requests that took;
 * - stop: ms from SIGTERM to exit (a graceful stop compacts the book one last time).
 * /healthz is asked every 10 ms by a probe process of its own (healthz-probe.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { residentBytes } from '../attackers.ts';
import { bundle } from '../bundle.ts';
import { ROOT, spawnServer } from '../processes.ts';
import { writeScaleKeys, writeScaleWindows } from '../scale-state.ts';
import { firstBuild } from '../soak/snapshot.ts';
import { pathsScript } from './wrk.ts';

const USAGE = `usage: npx tsx scripts/bench/server-scale.ts [--keys N] [--windows N]

  --keys N     keys seeded into the state folder (default 100000)
  --windows N  open quota windows seeded there (default 200000)`;
const { values } = flagsOrExit(
  {
    options: {
      keys: { type: 'string', default: '100000' },
      windows: { type: 'string', default: '200000' },
      help: { type: 'boolean', short: 'h' },
    },
  },
  USAGE,
);
const seedKeys = Number(values.keys);
const seedWindows = Number(values.windows);

const LOAD_KEYS = 2;
const WRK_CONNECTIONS = 16;
/** wrk runs in slices of this long until the book has compacted COMPACTIONS_WANTED times (or MAX_SLICES ran). */
const WRK_SLICE_S = 10;
const MAX_SLICES = 8;
const COMPACTIONS_WANTED = 2;

const mb = (bytes: number | null) => (bytes === null ? null : Math.round(bytes / 1024 / 1024));
const round = (ms: number) => Math.round(ms * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Long enough for the probe's lines about a span's last moments to reach the bench. */
const PROBE_LAG_MS = 500;

/** The highest quota journal number in the folder: one more each time the book compacts. */
function journalNumber(state: string): number {
  return Math.max(0, ...readdirSync(state).map((name) => Number(/^quota\.journal\.(\d+)$/.exec(name)?.[1] ?? 0)));
}

/** Run a program to its end; its stdout, and when it exited (epoch ms). Throws on a non-zero exit. */
function run(command: string, args: string[]): Promise<{ stdout: string; exitedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => {
      const exitedAt = Date.now();
      if (code === 0) resolve({ stdout, exitedAt });
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

const keysCommand = (state: string, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', ...args, '--state', state, '--json']);

function status(port: number, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'x-api-key': key }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The /healthz probe process: its answers as they come, and the longest among those that ended in a span. */
function startProbe(port: number) {
  const samples: { at: number; ms: number }[] = [];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/healthz-probe.ts', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.push(child);
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [at, ms] = line.split(' ').map(Number);
    samples.push({ at: at!, ms: ms! });
  });
  return {
    /** Wait for the first answer (the probe's own start takes a while under tsx). */
    async ready(): Promise<void> {
      while (samples.length === 0) await sleep(20);
    },
    longest(from: number, to: number): { max_ms: number; answers: number } {
      // An answer held past the span's end began in it: give it the time it may have taken.
      const inSpan = samples.filter((s) => s.at >= from && s.at - s.ms <= to);
      return { max_ms: round(Math.max(0, ...inSpan.map((s) => s.ms))), answers: inSpan.length };
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/**
 * wrk for `seconds` over `paths` with one key (one thread, kept-alive connections), asynchronously
 * so the bench keeps reading the probe.
 */
async function wrk(
  base: string,
  paths: string[],
  key: string,
  seconds: number,
  work: string,
): Promise<{ requests: number; non2xx: number }> {
  const script = join(work, 'load.lua');
  writeFileSync(script, pathsScript(paths));
  const { stdout } = await run('wrk', [
    '-t1',
    `-c${WRK_CONNECTIONS}`,
    `-d${seconds}s`,
    '-s',
    script,
    '-H',
    `x-api-key: ${key}`,
    base,
  ]);
  return {
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0),
  };
}

/** Ask with `key` until the answer is `wanted`; the requests it took and the ms since `since`. */
async function untilStatus(
  port: number,
  path: string,
  key: string,
  wanted: number,
  since: number,
): Promise<{ requests: number; after_exit_ms: number }> {
  for (let requests = 1; ; requests++) {
    const got = await status(port, path, key);
    if (got === wanted) return { requests, after_exit_ms: Date.now() - since };
    if (requests >= 1000) throw new Error(`the key still answered ${got}, not ${wanted}, after 1000 requests`);
  }
}

/** What must not outlive the bench when it fails: the server and the probe. */
const running: ChildProcess[] = [];

async function main(work: string): Promise<void> {
  const data = join(work, 'data');
  const snapshot = join(work, 'snapshot');
  const state = join(work, 'state');
  firstBuild(data, snapshot);
  await bundle(work);
  if (seedKeys > 0) writeScaleKeys(state, seedKeys);
  if (seedWindows > 0) await writeScaleWindows(state, seedWindows);
  const slug = (JSON.parse(readFileSync(join(data, 'providers.json'), 'utf8')) as { slug: string }[])[0]!.slug;
  // Commercial keys with room for every request, so each 200 is counted: a journal line.
  const loadKeys: string[] = [];
  for (let i = 0; i < LOAD_KEYS; i++) {
    const { stdout } = await keysCommand(
      state,
      'create',
      '--tier',
      'commercial',
      '--org',
      'bench',
      '--user',
      `load${i}`,
      '--quota',
      '100000000',
      '--grant',
      slug,
      '--force',
    );
    loadKeys.push((JSON.parse(stdout) as { key: string }).key);
  }
  const paths = [
    '/api/v2/language/models/free',
    '/api/v2/data/llms/models',
    '/api/v2/language/models?page=1',
    `/api/v2/language/providers/${slug}`,
  ];

  const spawned = performance.now();
  const server = await spawnServer(
    ['--port', '0', '--snapshot', snapshot, '--state', state, '--store', 'file'],
    [join(work, 'server.mjs')],
  );
  const listeningMs = performance.now() - spawned;
  running.push(server.child);
  const pid = server.child.pid!;
  const rssListening = residentBytes(pid);
  // The access log is read and dropped, so a full pipe never holds the server.
  server.child.stdout!.removeAllListeners('data');
  server.child.stdout!.on('data', () => {});
  const probe = startProbe(server.port);
  await probe.ready();

  const journalBefore = journalNumber(state);
  const loadFrom = Date.now();
  let requests = 0;
  let non2xx = 0;
  let slices = 0;
  while (slices < MAX_SLICES && journalNumber(state) - journalBefore < COMPACTIONS_WANTED) {
    const slice = await wrk(server.url, paths, loadKeys[slices % LOAD_KEYS]!, WRK_SLICE_S, work);
    requests += slice.requests;
    non2xx += slice.non2xx;
    slices++;
  }
  const loadTo = Date.now();
  const compactions = journalNumber(state) - journalBefore;
  await sleep(PROBE_LAG_MS);
  console.log(
    JSON.stringify({
      group: 'start',
      keys: seedKeys,
      windows: seedWindows,
      listening_ms: Math.round(listeningMs),
      rss_listening_mb: mb(rssListening),
      rss_after_load_mb: mb(residentBytes(pid)),
      rss_peak_mb: mb(residentBytes(pid, 'VmHWM')),
    }),
  );
  console.log(
    JSON.stringify({
      group: 'compaction',
      load_s: round((loadTo - loadFrom) / 1000),
      requests,
      non2xx,
      rps: Math.round(requests / ((loadTo - loadFrom) / 1000)),
      compactions,
      healthz: probe.longest(loadFrom, loadTo),
    }),
  );

  // Quiet first, so the key change's figures are its own.
  await sleep(1000);
  const createFrom = Date.now();
  const created = await keysCommand(state, 'create', '--tier', 'pro', '--org', 'bench');
  const issued = JSON.parse(created.stdout) as { id: string; key: string };
  const usable = await untilStatus(server.port, paths[0]!, issued.key, 200, created.exitedAt);
  const createTo = Date.now();
  const revokeFrom = Date.now();
  const revoked = await keysCommand(state, 'revoke', issued.id);
  const refused = await untilStatus(server.port, paths[0]!, issued.key, 401, revoked.exitedAt);
  const revokeTo = Date.now();
  await sleep(PROBE_LAG_MS);
  console.log(
    JSON.stringify({
      group: 'key_change',
      create: { command_ms: created.exitedAt - createFrom, ...usable, healthz: probe.longest(createFrom, createTo) },
      revoke: { command_ms: revoked.exitedAt - revokeFrom, ...refused, healthz: probe.longest(revokeFrom, revokeTo) },
      rss_mb: mb(residentBytes(pid)),
      rss_peak_mb: mb(residentBytes(pid, 'VmHWM')),
    }),
  );

  probe.stop();
  const stopFrom = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  console.log(JSON.stringify({ group: 'stop', stop_ms: Math.round(performance.now() - stopFrom), exit }));
}

const work = mkdtempSync(join(tmpdir(), 'server-scale-'));
try {
  await main(work);
} finally {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
