/**
 * A real Sentinel setup on loopback, for the tests (test/helpers/sentinel.ts), the failover
 * bench (scripts/bench/failover.ts) and the soak: one primary, its replicas (`--replicaof`) and
 * three `redis-sentinel` processes (a config file each, in a temporary folder), all on free
 * ports. `startSentinelSet` returns once every sentinel knows every replica and the two other
 * sentinels, so a failover can happen at once. Optionally the sentinels ask for a password or an
 * ACL user, and everything speaks TLS only. Everything is killed and removed in `close`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SentinelAuth } from '../src/redis/address.ts';
import type { RedisTls } from '../src/redis/connection.ts';
import type { Reply } from '../src/redis/resp.ts';
import { ask } from '../src/redis/sentinel-ask.ts';
import type { Certificates } from './certificates.ts';
import { freePort, stopProcess } from './processes.ts';
import { startRedisProcess, type RedisProcess } from './redis-server.ts';

export const SENTINEL_INSTALLED =
  spawnSync('redis-sentinel', ['--version']).error === undefined &&
  spawnSync('redis-server', ['--version']).error === undefined;

/** The password of the sentinels' own ACL user (they log in to each other with it) when clients get another. */
const PEER_USER = { username: 'sentinel-peer', password: 'peer-secret' };

export interface SentinelSetOptions {
  /** Replicas of the first primary (default 1). */
  replicas?: number;
  /** The name the sentinels monitor the primary under (default benchprimary). */
  name?: string;
  /** `down-after-milliseconds` (default 1000): how long a silent primary takes to be down. */
  downAfterMs?: number;
  /** `failover-timeout` (default 6000). */
  failoverTimeoutMs?: number;
  /**
   * The sentinels ask for credentials: a password (`requirepass`), or, with a username, an ACL
   * user that may ask what a server asks and nothing else (the default user off).
   */
  sentinelAuth?: SentinelAuth;
  /** Everything over TLS only (the data Redis, replication, the sentinels), with these certificates. */
  tls?: Certificates;
  /** More redis-server options for every data Redis (e.g. `--appendonly yes`). */
  nodeArgs?: readonly string[];
  /**
   * How often the sentinels ask each Redis for INFO outside a failover (`SENTINEL DEBUG
   * info-period`; Sentinel's own is 10 s): a demoted primary that still says master is converted
   * to a replica at the first INFO 8 s after the switch, so the tests shorten the wait for the
   * set to be whole again from up to 18 s to about 9.
   */
  infoPeriodMs?: number;
  /** How long to wait for anything to start or settle: a hang guard (default 60 s). */
  guardMs?: number;
}

export interface SentinelSet {
  name: string;
  /** How long a wait on this set may take: the hang guard it was started with. */
  guardMs: number;
  /**
   * `redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/NAME/0` (`rediss-` with TLS, the
   * sentinels' credentials in its query).
   */
  url: string;
  /** What a client trusts with TLS (the test CA), else null. */
  trust: RedisTls | null;
  /** That CA's file (for --store-ca), else null. */
  caFile: string | null;
  /** Every data Redis: the first primary at the start, then the replicas. */
  nodes: RedisProcess[];
  sentinelPorts: number[];
  /** The sentinel processes, in the order of their ports (to stop or freeze one). */
  sentinels: ChildProcess[];
  /** A question to a data Redis or a sentinel, on a connection of its own (TLS and credentials as they need). */
  askNode(port: number, ...args: (string | number)[]): Promise<Reply>;
  askSentinel(port: number, ...args: (string | number)[]): Promise<Reply>;
  /** The data Redis a majority of the sentinels names as primary now. */
  primary(): Promise<RedisProcess>;
  close(): Promise<void>;
}

/** A sentinel's `SENTINEL REPLICAS`/`SENTINELS` entries (flat field, value lists) as objects. */
export function entries(reply: Reply): Record<string, string>[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((flat) => {
    const fields: Record<string, string> = {};
    if (Array.isArray(flat)) for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
    return fields;
  });
}

/** Resolve once `done()` holds, checking every `everyMs`; throw naming `what` after `guardMs` (a hang guard). */
export async function waitFor(
  done: () => boolean | Promise<boolean>,
  what: string,
  guardMs: number,
  everyMs = 20,
): Promise<void> {
  const deadline = performance.now() + guardMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what}: still not so after ${guardMs / 1000} s`);
    await sleep(everyMs);
  }
}

function tlsLines(tls: Certificates | undefined): string[] {
  if (!tls) return [];
  return [
    `tls-cert-file ${tls.server.cert}`,
    `tls-key-file ${tls.server.key}`,
    `tls-ca-cert-file ${tls.ca}`,
    'tls-auth-clients no',
    'tls-replication yes',
  ];
}

function authLines(auth: SentinelAuth | undefined): string[] {
  if (!auth) return [];
  if (auth.username === null) return [`requirepass ${auth.password}`];
  // What a server asks a sentinel, and no more: its two questions and the events.
  const questions = '+ping +auth +hello +subscribe +sentinel|get-master-addr-by-name +sentinel|master';
  return [
    'user default off',
    `user ${PEER_USER.username} on >${PEER_USER.password} allchannels +@all`,
    `user ${auth.username} on >${auth.password} allchannels -@all ${questions}`,
    `sentinel sentinel-user ${PEER_USER.username}`,
    `sentinel sentinel-pass ${PEER_USER.password}`,
  ];
}

function launchSentinel(
  dir: string,
  port: number,
  primaryPort: number,
  options: SentinelSetOptions & { name: string },
  guardMs: number,
  askSentinel: SentinelSet['askSentinel'],
): Promise<ChildProcess> {
  const { name, tls } = options;
  const config = join(dir, `sentinel-${port}.conf`);
  // Written fresh: a sentinel rewrites its file as it learns (replicas, other sentinels, epochs).
  writeFileSync(
    config,
    [
      tls ? `port 0\ntls-port ${port}` : `port ${port}`,
      ...tlsLines(tls),
      ...authLines(options.sentinelAuth),
      'bind 127.0.0.1',
      'daemonize no',
      'logfile ""',
      `dir ${dir}`,
      'sentinel resolve-hostnames yes',
      'sentinel announce-ip 127.0.0.1',
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
      `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 6000}`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-sentinel', [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`redis-sentinel exited (${code}):\n${output}`)));
    waitFor(
      async () => child.exitCode !== null || (await askSentinel(port, 'PING').catch(() => null)) === 'PONG',
      `sentinel on ${port} answers`,
      guardMs,
    ).then(() => {
      // Read and dropped from now on, so the pipes never fill.
      output = '';
      child.stdout!.removeAllListeners('data').resume();
      child.stderr!.removeAllListeners('data').resume();
      if (child.exitCode === null) resolve(child);
    }, reject);
  });
}

/** A data Redis's options: TLS as the set has it, a replica of `primaryPort` unless null. */
export function nodeArgs(port: number, dir: string, options: SentinelSetOptions, primaryPort: number | null): string[] {
  const { tls } = options;
  const listen = tls
    ? [
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--tls-cert-file',
        tls.server.cert,
        '--tls-key-file',
        tls.server.key,
        '--tls-ca-cert-file',
        tls.ca,
        '--tls-auth-clients',
        'no',
        '--tls-replication',
        'yes',
      ]
    : ['--port', String(port)];
  const replica = primaryPort === null ? [] : ['--replicaof', '127.0.0.1', String(primaryPort)];
  return [
    ...listen,
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--logfile',
    '',
    ...replica,
    ...(options.nodeArgs ?? []),
  ];
}

export async function startSentinelSet(options: SentinelSetOptions = {}): Promise<SentinelSet> {
  const name = options.name ?? 'benchprimary';
  const guardMs = options.guardMs ?? 60_000;
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-set-'));
  const trust: RedisTls | null = options.tls ? { ca: readFileSync(options.tls.ca), cert: null, key: null } : null;
  const auth = options.sentinelAuth ?? null;
  // The set's own questions (its replicas, its sentinels, a failover) go as the sentinels' peer user under ACL.
  const admin = auth?.username ? PEER_USER : auth;
  const askNode = (port: number, ...args: (string | number)[]) =>
    ask({ host: '127.0.0.1', port }, trust, null, [args], guardMs).then(([reply]) => reply);
  const askSentinel = (port: number, ...args: (string | number)[]) =>
    ask({ host: '127.0.0.1', port }, trust, admin, [args], guardMs).then(([reply]) => reply);
  const nodes: RedisProcess[] = [];
  const sentinels: ChildProcess[] = [];
  const sentinelPorts: number[] = [];
  const close = async () => {
    await Promise.all(sentinels.map((child) => (child.signalCode === 'SIGSTOP' ? child.kill('SIGCONT') : null)));
    await Promise.all(sentinels.map((child) => stopProcess(child, 'SIGKILL')));
    await Promise.all(nodes.map((node) => node.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const first = await startRedisProcess((port, folder) => nodeArgs(port, folder, options, null), guardMs);
    nodes.push(first);
    for (let i = 0; i < (options.replicas ?? 1); i++)
      nodes.push(await startRedisProcess((port, folder) => nodeArgs(port, folder, options, first.port), guardMs));
    for (let i = 0; i < 3; i++) {
      let port = await freePort();
      for (let attempt = 1; ; attempt++) {
        try {
          sentinels.push(await launchSentinel(dir, port, first.port, { ...options, name }, guardMs, askSentinel));
          sentinelPorts.push(port);
          break;
        } catch (error) {
          if (attempt >= 5 || !/Address already in use/.test((error as Error).message)) throw error;
          port = await freePort();
        }
      }
    }
    // Ready once each sentinel sees every replica linked and the two other sentinels.
    await waitFor(
      async () => {
        for (const port of sentinelPorts) {
          const replicas = entries(await askSentinel(port, 'SENTINEL', 'REPLICAS', name));
          const healthy = replicas.filter((r) => r.flags === 'slave' && r['master-link-status'] === 'ok');
          if (healthy.length !== nodes.length - 1) return false;
          if (entries(await askSentinel(port, 'SENTINEL', 'SENTINELS', name)).length !== 2) return false;
        }
        return true;
      },
      'the sentinels know every replica and each other',
      guardMs,
    );
    if (options.infoPeriodMs)
      for (const port of sentinelPorts)
        await askSentinel(port, 'SENTINEL', 'DEBUG', 'INFO-PERIOD', options.infoPeriodMs);
  } catch (error) {
    await close();
    throw error;
  }
  const credentials: Record<string, string> = auth?.username ? { sentinel_username: auth.username } : {};
  const query = auth ? `?${new URLSearchParams({ ...credentials, sentinel_password: auth.password })}` : '';
  const listed = sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
  return {
    name,
    guardMs,
    url: `${options.tls ? 'rediss' : 'redis'}-sentinel://${listed}/${name}/0${query}`,
    trust,
    caFile: options.tls?.ca ?? null,
    nodes,
    sentinelPorts,
    sentinels,
    askNode,
    askSentinel,
    async primary() {
      // A short deadline: a sentinel a test froze must not hold the question.
      const question = (port: number) =>
        ask({ host: '127.0.0.1', port }, trust, admin, [['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name]], 2000).then(
          ([reply]) => reply,
        );
      const named = await Promise.all(sentinelPorts.map((port) => question(port).catch(() => null)));
      for (const node of nodes)
        if (named.filter((reply) => Array.isArray(reply) && Number(reply[1]) === node.port).length >= 2) return node;
      throw new Error(`no majority of the sentinels names a primary for ${name}: ${JSON.stringify(named)}`);
    },
    close,
  };
}
