/**
 * The two processes of the pull bench (scripts/bench/pull.ts): the origin, nginx (one worker,
 * plain http on loopback) serving a folder the releases make (scripts/bench/pull-releases.ts), and
 * the bundled server (server.mjs), started with an empty snapshot folder and `--snapshot-from`
 * the origin. The server's VmRSS is read from /proc every 50 ms from its spawn on, each sample
 * kept with its time for the peak over any span; its log lines are read as they come, each pull
 * (the puller's line) and each switch of the snapshot store to a pulled build, checked whole,
 * kept with when this process read it; /readyz says which build it serves and whether verified.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RELEASE_FILE } from '../../src/shared/release.ts';
import { residentBytes } from '../attackers.ts';
import { freePort } from '../processes.ts';
import { mb, round2 } from './pull-figures.ts';
import { firstAnswer, sleep, track } from './processes.ts';

const SAMPLE_MS = 50;
const WAIT_MS = 180_000;
/** A pause after a pull has been switched to, before the next run: the old build pruned, the new one opened. */
export const SETTLE_MS = 1000;

/** What a pull bench started, so that it can stop them whatever happens: nginx and the bundled server. */
export interface PullProcesses {
  origin: ChildProcess | null;
  server: ChildProcess | null;
}

/** One pull as the server logged it; `at` is when this process read the line. */
export interface Pull {
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

/** A pull, and when the store switched to its build. */
export type Pulled = Pull & { switched: number };

/** The puller's line (src/pull/puller.ts): release, build, chunks, MB, seconds, chunks and MB fetched, MB held. */
const PULLED = new RegExp(
  String.raw`pulled release (\d+) \(build (\S+), (\d+) chunks, ([\d.]+) MB\) from \S+ in ([\d.]+) s: ` +
    String.raw`fetched (\d+) chunks \(([\d.]+) MB\), ([\d.]+) MB held here`,
);
/** The snapshot store's line once a pulled build is checked whole and answered from. */
const SWITCHED = /switched to snapshot (\S+)/;

/** Poll `check` until it gives a value; throws after `ms`, or at once when `server` has exited. */
async function waitFor<T>(
  server: ChildProcess,
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  ms = WAIT_MS,
): Promise<T> {
  const since = performance.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}) before ${what}`);
    if (performance.now() - since > ms) throw new Error(`no ${what} within ${ms / 1000} s`);
    await sleep(20);
  }
}

function nginxConfig(prefix: string, port: number, root: string): string {
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
    root ${root};
    location = /${RELEASE_FILE} { add_header Cache-Control no-cache; }
  }
}
`;
}

/** nginx serving `root` (which must offer a release already), its prefix in `work`; its port once it answers. */
export async function startOrigin(work: string, root: string, processes: PullProcesses): Promise<number> {
  const prefix = join(work, 'nginx');
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  const port = await freePort();
  writeFileSync(join(prefix, 'nginx.conf'), nginxConfig(prefix, port, root));
  const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')];
  const origin = track(spawn('nginx', args, { stdio: ['ignore', 'ignore', 'inherit'] }), 'SIGTERM');
  processes.origin = origin;
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

export interface Pulling {
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

export interface PullingStart {
  /** The folder the server runs in, and its empty snapshot folder is made in. */
  work: string;
  bundlePath: string;
  state: string;
  originPort: number;
  /** The key the releases are signed with (--snapshot-key). */
  publicKey: string;
}

/** The bundled server, empty snapshot folder, following the origin; resolves once it listens (after its first pull). */
export async function startPulling(start: PullingStart, processes: PullProcesses): Promise<Pulling> {
  const { work, bundlePath, state, originPort, publicKey } = start;
  const args = [
    ...['--port', '0', '--snapshot', join(work, 'server-snapshot'), '--state', state, '--quiet'],
    ...['--quota-pro', '1000000000', '--snapshot-from', `http://127.0.0.1:${originPort}/`],
    ...['--snapshot-key', publicKey, '--snapshot-poll', '1'],
  ];
  const spawned = performance.now();
  const child = track(spawn(process.execPath, [bundlePath, ...args], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] }));
  // Known before it listens, so that the bench stops (SIGTERM, and waits for) a server that never does.
  processes.server = child;
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
  const url = await waitFor(child, 'listening line', () =>
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
export async function pulled(s: Pulling, release: number): Promise<Pulled> {
  const pull = await waitFor(s.child, `pull of release ${release}`, () =>
    s.pulls.find((p) => p.release === release),
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${s.tail()}`);
  });
  await waitFor(s.child, `build ${pull.buildId} served and verified`, async () => {
    const ready = await readyz(s.url);
    return ready.snapshot === pull.buildId && ready.verification?.state === 'verified' ? true : undefined;
  });
  const switched = s.switches.find((w) => w.buildId === pull.buildId && w.at >= pull.at)?.at ?? performance.now();
  return { ...pull, switched };
}

export function pullFigures(pull: Pull): Record<string, unknown> {
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
