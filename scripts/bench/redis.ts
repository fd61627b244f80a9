/**
 * The bench's Redis: a redis-server (Debian's package) set up as docs/operating.md's "Redis in
 * production" says (noeviction, an append-only file fsynced every second), holding the stage's
 * keys (copied by the keys command's migrate), for our server on the shared store beside the
 * same server on its state folder in the same rounds. It listens on a plain port and, when
 * openssl can make certificates, on a TLS port too (the same data).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run as keysCommand } from '../keys.ts';
import { makeCertificates, OPENSSL_INSTALLED } from '../certificates.ts';
import { freePort } from '../processes.ts';
import { spawnRedisServer } from '../redis-server.ts';
import { track } from './processes.ts';

export interface BenchRedis {
  child: ChildProcess;
  /** The store URL our server is given. */
  url: string;
  /** The same Redis over TLS: the URL and the flags our server is given, or null without openssl. */
  tls: { url: string; flags: string[] } | null;
}

/** Start it in `work`/redis and copy the state folder's keys into it; with a TLS port unless `tls` is false. */
export async function startBenchRedis(work: string, state: string, { tls = true } = {}): Promise<BenchRedis> {
  const dir = join(work, 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  const certificates = tls && OPENSSL_INSTALLED ? makeCertificates(join(work, 'certificates')) : null;
  const tlsPort = certificates ? await freePort() : null;
  if (certificates)
    args.push(
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      certificates.server.cert,
      '--tls-key-file',
      certificates.server.key,
      '--tls-ca-cert-file',
      certificates.ca,
      '--tls-auth-clients',
      'no',
    );
  else if (tls) console.log('openssl is not installed: the bench leaves out Redis over TLS (apt-get install openssl)');
  const child = track(await spawnRedisServer(args, 30_000));
  const url = `redis://127.0.0.1:${port}/0`;
  let said = '';
  const status = await keysCommand(['migrate', '--state', state, '--store', url], {
    out: (text) => (said += `${text}\n`),
    err: (text) => (said += `${text}\n`),
  });
  if (status !== 0) throw new Error(`keys migrate into the bench's Redis failed (${status}):\n${said}`);
  return {
    child,
    url,
    tls: certificates ? { url: `rediss://127.0.0.1:${tlsPort}/0`, flags: ['--store-ca', certificates.ca] } : null,
  };
}
