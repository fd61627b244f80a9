/**
 * A real redis-server for a test: on a free loopback port, in a temporary folder, saving
 * nothing unless asked (`persistent`: an append-only file fsynced at every write, so a
 * restart keeps every count). Stopped in `close`, whatever the test did. When the binary is
 * missing the suites say they skipped (apt-get install redis-server; .ci/run installs it).
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Test } from 'uvu';
import { run } from '../../scripts/keys.ts';
import { startRedisProcess, type RedisProcess } from '../../scripts/redis-server.ts';
import { caught, ROOT, START_GUARD_MS, type Said } from './process.ts';
import { stagedBundle } from './staged-bundle.ts';
import { parseRedisUrl, type RedisAddress } from '../../src/redis/client.ts';
import type { RedisTls } from '../../src/redis/connection.ts';
import type { Certificates } from '../../scripts/certificates.ts';

export const REDIS_INSTALLED = spawnSync('redis-server', ['--version']).error === undefined;

/** Register a suite's tests as skipped, saying why (scripts/test.ts prints the reason). */
export function skipWithoutRedis(s: Test, names: readonly string[]): void {
  for (const name of names) s.skip(`${name} (skipped: redis-server is not installed)`, () => {});
  console.log('skipped: redis-server is not installed (apt-get install redis-server; .ci/run installs it)');
}

/** The keys command, in-process (give it `--store`); its status and what it printed. */
export async function keysCommand(...args: string[]): Promise<Said> {
  return caught((io) => run(args, io));
}

/**
 * The keys command as an operator runs it, a process of its own (the run's staged dist/keys.mjs: 0.2 s of CPU
 * a run, through tsx 1 s); its status and what it printed.
 */
export async function keysProcess(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { keys } = await stagedBundle();
  return new Promise((done) => {
    execFile(process.execPath, [keys, ...args], { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } }, (error, stdout, stderr) => {
      done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * A Redis that speaks TLS only (its plain port is off): with the server certificate of `certs`
 * (or the one for a wrong name), asking clients for a certificate when `authClients`.
 */
export interface RedisTlsSetup {
  certs: Certificates;
  wrongName?: boolean;
  authClients?: boolean;
}

export interface RedisServer extends RedisProcess {
  /** redis://127.0.0.1:PORT/DB, or rediss://... with TLS. */
  url: string;
  address: RedisAddress;
}

function tlsArgs(port: number, { certs, wrongName, authClients }: RedisTlsSetup): string[] {
  const server = wrongName ? certs.wrongName : certs.server;
  return ['--port', '0', '--tls-port', String(port), '--tls-cert-file', server.cert, '--tls-key-file', server.key, '--tls-ca-cert-file', certs.ca, '--tls-auth-clients', authClients ? 'yes' : 'no'];
}

function launchArgs(port: number, dir: string, persistent: boolean, extra: readonly string[], tls: RedisTlsSetup | undefined): string[] {
  const args = [...(tls ? tlsArgs(port, tls) : ['--port', String(port)]), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--logfile', ''];
  return [...args, ...(persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']), ...extra];
}

/**
 * `args`: more redis-server options (`--maxmemory-policy allkeys-lru`, `--replicaof HOST PORT`);
 * later ones win, so `--appendonly yes` or `--save 60 1` overrides the helper's. `tls`: TLS only,
 * the address trusting the test CA (without a client certificate).
 */
export async function startRedis(options: { persistent?: boolean; db?: number; args?: readonly string[]; tls?: RedisTlsSetup } = {}): Promise<RedisServer> {
  const redis = await startRedisProcess((port, dir) => launchArgs(port, dir, options.persistent ?? false, options.args ?? [], options.tls), START_GUARD_MS);
  const url = `${options.tls ? 'rediss' : 'redis'}://127.0.0.1:${redis.port}/${options.db ?? 0}`;
  const trust: RedisTls = { ca: options.tls ? readFileSync(options.tls.certs.ca) : null, cert: null, key: null };
  return { ...redis, url, address: parseRedisUrl(url, trust) };
}
