/**
 * Redis over TLS (`--store rediss://...`) against real redis-servers speaking TLS only, with
 * certificates made by openssl: served with the right CA (a process started with the flags, the
 * keys command over TLS); refused, never in plain TCP, with a certificate from another CA, one
 * for another name, or at a port that does not speak TLS: /readyz 503 naming TLS and what
 * failed, keyed requests 503, Redis running none of the server's commands; mutual TLS refused
 * without a client certificate and accepted with one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { parseRedisUrl, RedisClient, type RedisAddress } from '../../src/redis/client.ts';
import type { RedisTls } from '../../src/redis/connection.ts';
import { parseInfo } from '../../src/redis/info.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { makeCertificates, OPENSSL_INSTALLED, type Certificates } from '../../scripts/certificates.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { spawnServer, stopProcess } from '../helpers/process.ts';
import { freePort } from '../../scripts/processes.ts';
import { keysCommand, REDIS_INSTALLED, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildFixture } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const FREE_LIST = '/api/v2/language/models/free';
/** A key of the right form, so that the server must ask Redis about it (nothing else would answer 503). */
const WELL_FORMED = `bdk_${'A'.repeat(43)}`;
const root = mkdtempSync(join(tmpdir(), 'redis-tls-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const NAMES = {
  accepted: 'should serve over TLS with the right CA: a process started with --store rediss:// --store-ca, a key the keys command made over TLS, requests 200 and counted',
  otherCa: 'should refuse a certificate signed by another CA: /readyz 503 naming TLS and the verification error, keyed requests 503, the log line not repeated, no command run',
  wrongName: 'should refuse a certificate that does not name the host: /readyz 503 naming the altnames mismatch, keyed requests 503',
  plain: 'should never fall back to plain TCP: rediss:// at a port speaking plain Redis is refused and that Redis runs none of the server\'s commands',
  mutualRefused: 'should be refused by a Redis that asks for a client certificate when none is given, saying that it asks for one',
  mutualAccepted: 'should be accepted by that Redis with --store-cert and --store-key, by the server and the keys command',
  mismatch: 'should refuse a client certificate and a key that do not go together before connecting (usage, exit status 2)',
};

const verified = suite('Redis over TLS, verified');
const mutual = suite('Redis over mutual TLS');

let snapshotDir = '';
let certs: Certificates;
const opened: RedisClient[] = [];

interface Started {
  server: RunningServer;
  lines: string[];
  close: () => Promise<void>;
}

function tlsOf(files: { ca?: string; cert?: string; key?: string }): RedisTls {
  const read = (path: string | undefined) => (path === undefined ? null : readFileSync(path));
  return { ca: read(files.ca), cert: read(files.cert), key: read(files.key) };
}

/** A server (startServer, port 0) on `url` with these TLS files, its probe run often (nothing is timed). */
async function serve(url: string, files: { ca?: string; cert?: string; key?: string }): Promise<Started> {
  const lines: string[] = [];
  const server = await startServer(
    { ...DEFAULT_OPTIONS, port: 0, host: '127.0.0.1', snapshotDir, stateDir: join(root, 'unused-state'), store: parseRedisUrl(url, tlsOf(files)), quiet: true },
    { log: (line) => lines.push(line), logError: (line) => lines.push(line), redisProbeMs: 20 },
  );
  return { server, lines, close: () => server.close() };
}

/** A connection for what an operator does to the Redis (to look at it). */
async function operator(address: RedisAddress): Promise<RedisClient> {
  const client = new RedisClient({ address });
  opened.push(client);
  await client.started();
  assert.is(client.problem(), null);
  return client;
}

/** INFO's fields of one section. */
async function info(client: RedisClient, section: string): Promise<Map<string, string>> {
  return parseInfo(String(await client.send(['INFO', section])));
}

/** The commands Redis ran other than the operator's own (INFO, CONFIG, its handshake's PING). */
async function othersCommands(client: RedisClient): Promise<string[]> {
  return [...(await info(client, 'commandstats')).keys()].map((name) => name.replace(/^cmdstat_/, '')).filter((name) => !/^(info|config|ping)\b/.test(name));
}

async function untilNotReady(url: string, reason: RegExp, what: string): Promise<Reply> {
  let reply: Reply | null = null;
  await until(async () => {
    reply = await get(url, '/readyz');
    return reply.status === 503 && reason.test(String(reply.json().details.reason));
  }, () => `${what} (last: ${reply?.status} ${reply?.text})`);
  return reply!;
}

/**
 * A TCP relay to `port` that counts the connections made through it: Redis counts no
 * connection whose TLS handshake failed, so the server's attempts are counted here.
 */
async function relay(port: number): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    connections++;
    const outbound = connect({ host: '127.0.0.1', port });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A refused connection: not ready naming `reason`, keyed requests 503, no new log line however
 * often the server tries again, and Redis (looked at through `look`) ran nothing of the server's.
 */
async function assertRefused(redis: RedisServer, files: { ca?: string; cert?: string; key?: string }, reason: RegExp, look: RedisAddress = redis.address): Promise<void> {
  const admin = await operator(look);
  await admin.send(['CONFIG', 'RESETSTAT']);
  const through = await relay(redis.port);
  const started = await serve(`rediss://127.0.0.1:${through.port}/0`, files);
  try {
    const ready = await untilNotReady(started.server.url, reason, '/readyz names the TLS failure');
    assert.match(ready.json().details.reason, `Redis at 127.0.0.1:${through.port}/0 is unreachable: TLS`);
    const reply = await get(started.server.url, FREE_LIST, WELL_FORMED);
    assert.is(reply.status, 503, reply.text);
    assert.match(reply.json().error, /Quota bookkeeping is unavailable/);
    const logged = started.lines.filter((line) => reason.test(line)).length;
    assert.ok(logged >= 1, `the failure is logged:\n${started.lines.join('\n')}`);
    const attempts = through.connections();
    await until(() => through.connections() >= attempts + 3, 'three more attempts');
    assert.is(started.lines.filter((line) => reason.test(line)).length, logged, `no line per attempt:\n${started.lines.join('\n')}`);
    assert.equal(await othersCommands(admin), [], 'Redis ran none of the server\'s commands');
  } finally {
    await started.close();
    await through.close();
  }
}

if (!REDIS_INSTALLED) {
  skipWithoutRedis(verified, [NAMES.accepted, NAMES.otherCa, NAMES.wrongName, NAMES.plain]);
  skipWithoutRedis(mutual, [NAMES.mutualRefused, NAMES.mutualAccepted, NAMES.mismatch]);
} else if (!OPENSSL_INSTALLED) {
  for (const [s, names] of [[verified, [NAMES.accepted, NAMES.otherCa, NAMES.wrongName, NAMES.plain]], [mutual, [NAMES.mutualRefused, NAMES.mutualAccepted, NAMES.mismatch]]] as const) {
    for (const name of names) s.skip(`${name} (skipped: openssl is not installed)`, () => {});
  }
  console.log('skipped: openssl is not installed (apt-get install openssl): the TLS tests make their certificates with it');
} else {
  let redis: RedisServer;
  verified.before(async () => {
    certs = makeCertificates();
    [redis, { snapshotDir }] = await Promise.all([startRedis({ tls: { certs } }), buildFixture(root)]);
  });
  verified.after(async () => {
    for (const client of opened.splice(0)) client.close();
    await redis?.close();
  });

  verified(NAMES.accepted, async () => {
    const made = await keysCommand('create', '--tier', 'free', '--org', 'tlsco', '--json', '--store', redis.url, '--store-ca', certs.ca);
    assert.is(made.status, 0, made.stderr);
    const { key } = JSON.parse(made.stdout) as { key: string };
    const running = await spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', join(root, 'state'), '--store', redis.url, '--store-ca', certs.ca, '--quiet']);
    try {
      assert.match(running.output(), `state store: Redis at 127.0.0.1:${redis.port}/0`);
      assert.is((await get(running.url, '/readyz')).status, 200);
      const reply = await get(running.url, FREE_LIST, key);
      assert.is(reply.status, 200, reply.text);
      const head = await request(running.url, FREE_LIST, { method: 'HEAD', headers: { 'x-api-key': key } });
      assert.is(Number(head.headers['x-ratelimit-limit']) - Number(head.headers['x-ratelimit-remaining']), 1, 'the request was counted in Redis');
      const usage = await keysCommand('usage', '--json', '--store', redis.url, '--store-ca', certs.ca);
      assert.is(usage.status, 0, usage.stderr);
      assert.ok((JSON.parse(usage.stdout) as { used: number }[]).some((row) => row.used === 1), usage.stdout);
    } finally {
      await stopProcess(running.child);
    }
  });

  verified(NAMES.otherCa, async () => {
    await assertRefused(redis, { ca: certs.otherCa }, /TLS handshake failed: self-signed certificate in certificate chain/);
    const keys = await keysCommand('list', '--store', redis.url, '--store-ca', certs.otherCa);
    assert.is(keys.status, 1);
    assert.match(keys.stderr, /TLS handshake failed: self-signed certificate in certificate chain \(its certificate is not signed by a CA this server trusts/);
  });

  verified(NAMES.wrongName, async () => {
    // The operator looks in by a plain port: TLS to this Redis at 127.0.0.1 fails for everyone.
    const plainPort = await freePort();
    const other = await startRedis({ tls: { certs, wrongName: true }, args: ['--port', String(plainPort)] });
    try {
      const reason = /TLS handshake failed: Hostname\/IP does not match certificate's altnames: IP: 127\.0\.0\.1 is not in the cert's list/;
      await assertRefused(other, { ca: certs.ca }, reason, parseRedisUrl(`redis://127.0.0.1:${plainPort}/0`));
    } finally {
      await other.close();
    }
  });

  verified(NAMES.plain, async () => {
    const plain = await startRedis();
    try {
      await assertRefused(plain, { ca: certs.ca }, /TLS handshake failed: no answer within \d+ ms \(that port may not speak TLS/);
    } finally {
      await plain.close();
    }
  });

  let strict: RedisServer;
  mutual.before(async () => {
    certs ??= makeCertificates();
    if (!snapshotDir) ({ snapshotDir } = await buildFixture(root));
    strict = await startRedis({ tls: { certs, authClients: true } });
  });
  mutual.after(async () => {
    for (const client of opened.splice(0)) client.close();
    await strict?.close();
    certs?.remove();
  });

  mutual(NAMES.mutualRefused, async () => {
    const started = await serve(strict.url, { ca: certs.ca });
    try {
      // The alert, or (by timing, under TLS 1.3) the connection ended before a first answer, naming the likely cause.
      const reply = await untilNotReady(started.server.url, /certificate required|before its first answer/, '/readyz says Redis asks for a client certificate');
      assert.match(
        reply.json().details.reason,
        /TLS failed: tlsv13 alert certificate required \(Redis asks for a client certificate: --store-cert and --store-key\)|TLS connection (reset|closed) by Redis before its first answer \(if Redis asks for a client certificate \(tls-auth-clients\): --store-cert and --store-key\)/,
      );
      assert.is((await get(started.server.url, FREE_LIST, WELL_FORMED)).status, 503);
    } finally {
      await started.close();
    }
    const keys = await keysCommand('list', '--store', strict.url, '--store-ca', certs.ca);
    assert.is(keys.status, 1);
    // The alert, or (by timing, under TLS 1.3) the connection ended before a first answer, naming the likely cause.
    assert.match(keys.stderr, /certificate required|before its first answer \(if Redis asks for a client certificate/);
  });

  mutual(NAMES.mutualAccepted, async () => {
    const client = ['--store-ca', certs.ca, '--store-cert', certs.client.cert, '--store-key', certs.client.key];
    const made = await keysCommand('create', '--tier', 'pro', '--org', 'mutualco', '--json', '--store', strict.url, ...client);
    assert.is(made.status, 0, made.stderr);
    const { key } = JSON.parse(made.stdout) as { key: string };
    const started = await serve(strict.url, { ca: certs.ca, cert: certs.client.cert, key: certs.client.key });
    try {
      assert.is((await get(started.server.url, '/readyz')).status, 200);
      assert.is((await get(started.server.url, FREE_LIST, key)).status, 200);
    } finally {
      await started.close();
    }
  });

  mutual(NAMES.mismatch, async () => {
    const keys = await keysCommand('list', '--store', strict.url, '--store-ca', certs.ca, '--store-cert', certs.client.cert, '--store-key', certs.server.key);
    assert.is(keys.status, 2);
    assert.match(keys.stderr, /--store-cert \S+client\.pem and --store-key \S+server\.key cannot be used together: .*key values mismatch/);
  });
}

verified.run();
mutual.run();
