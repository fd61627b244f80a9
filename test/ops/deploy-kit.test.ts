/**
 * deploy/ run as shipped, with only its paths, ports and addresses made this machine's: one
 * `npm run certs` (a CA, the server and client certificates); redis-server on redis.conf and
 * users.acl with the passwords set by deploy/README.md's step: TLS only, the default user and
 * certificate-less clients refused, the server and the keys command working as `bda`;
 * redis-sentinel on sentinel.conf following it, and a server on its rediss-sentinel:// URL; nginx
 * on benchmark-api.conf in front of two servers (`nginx -t`, HTTPS through it, /metrics kept off,
 * the admin block refusing without the operator's client certificate); and the unit with its
 * drop-in through `systemd-analyze verify` and `security`, its exposure score printed and held.
 * A tool that is missing skips what needs it, saying so.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { OPENSSL_INSTALLED } from '../../scripts/certificates.ts';
import { freePort, stopProcess } from '../../scripts/processes.ts';
import { startRedisProcess, type RedisProcess } from '../../scripts/redis-server.ts';
import { SENTINEL_INSTALLED, waitFor } from '../../scripts/sentinel-set.ts';
import { resolveOptions } from '../../src/config.ts';
import { createKey } from '../../src/keys/changes.ts';
import type { RedisTls } from '../../src/redis/connection.ts';
import { RespError, type Reply } from '../../src/redis/resp.ts';
import { ask } from '../../src/redis/sentinel-ask.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { placeShipped, rewrite, setPasswords, type RedisUser } from '../helpers/deploy-kit.ts';
import { get } from '../helpers/http.ts';
import { ROOT, START_GUARD_MS } from '../helpers/process.ts';
import { keysCommand, REDIS_INSTALLED } from '../helpers/redis.ts';
import { buildFixture } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const run = promisify(execFile);
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => spawnSync(path, ['-v']).error === undefined);
const SYSTEMD_ANALYZE = spawnSync('systemd-analyze', ['--version']).error === undefined;
/** The unit's exposure as `systemd-analyze security` scores it (systemd 252): it may go down, never up. */
const EXPOSURE_BOUND = 1.1;
const FREE_LIST = '/api/v2/language/models/free';

const root = mkdtempSync(join(tmpdir(), 'deploy-kit-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const certsDir = join(root, 'certs');
const certFile = (name: string) => join(certsDir, name);
const started: (() => Promise<void>)[] = [];
let snapshotDir: Promise<string> | null = null;
const snapshot = () => (snapshotDir ??= buildFixture(root).then((built) => built.snapshotDir));

/** `npm run certs` once for the file: loopback's address and name, as a one-host deployment's would be. */
let certsMade: Promise<void> | null = null;
const certs = () =>
  (certsMade ??= run('npm', ['run', '-s', 'certs', '--', '--out', certsDir, '--ip', '127.0.0.1', '--dns', 'localhost', '--days', '2'], { cwd: ROOT }).then(() => {}));

function trust(client: 'client' | 'server' | null = 'client'): RedisTls {
  return {
    ca: readFileSync(certFile('ca.pem')),
    cert: client ? readFileSync(certFile(`${client}.pem`)) : null,
    key: client ? readFileSync(certFile(`${client}.key`)) : null,
  };
}

function skipAll(s: Test, names: string[], why: string): void {
  for (const name of names) s.skip(`${name} (skipped: ${why})`, () => {});
  console.log(`skipped: ${why}`);
}

/** A server in this process on a store URL (its TLS files as the flags give them), or on a state folder. */
async function serve(args: string[], extra: { adminPort?: number } = {}): Promise<RunningServer> {
  const options = resolveOptions([...args, '--snapshot', await snapshot(), '--port', '0', '--quiet'], {});
  assert.ok(typeof options === 'object', args.join(' '));
  const server = await startServer({ ...options, ...extra }, { log: () => {}, logError: () => {}, redisProbeMs: 50 });
  started.push(() => server.close());
  return server;
}

// ---------------------------------------------------------------------------------------------

const kit = suite('deploy/ as shipped');

const NAMES = {
  certs: 'should make a CA, a server certificate for the given address and name and a client certificate, keys 0600',
  redis: 'should start redis-server on the shipped redis.conf and users.acl: TLS only, client certificates required, the default user refused',
  bda: 'should serve and run the keys command as users.acl\'s bda, AOF on and noeviction: ready, no warning, nothing refused',
  sentinel: 'should follow the primary with the shipped sentinel.conf, and serve on its rediss-sentinel:// URL as bda-watch',
  nginx: 'should pass nginx -t and proxy HTTPS to two servers with the shipped block, /metrics kept off',
  admin: 'should open the admin block to the operator\'s client certificate only',
  systemd: `should pass systemd-analyze verify and score the unit at most ${EXPOSURE_BOUND} with systemd-analyze security`,
};

kit.after(async () => {
  for (const stop of started.reverse()) await stop().catch(() => {});
});

if (!OPENSSL_INSTALLED) skipAll(kit, [NAMES.certs, NAMES.redis, NAMES.bda, NAMES.sentinel, NAMES.nginx, NAMES.admin], 'openssl is not installed');
else {
  kit(NAMES.certs, async () => {
    await certs();
    for (const key of ['ca.key', 'server.key', 'client.key']) assert.is(statSync(certFile(key)).mode & 0o777, 0o600, key);
    const { stdout } = await run('openssl', ['x509', '-in', certFile('server.pem'), '-noout', '-ext', 'subjectAltName']);
    assert.match(stdout, /IP Address:127\.0\.0\.1, DNS:localhost/);
    await run('openssl', ['verify', '-CAfile', certFile('ca.pem'), certFile('server.pem'), certFile('client.pem')]);
  });

  const redisFolder = join(root, 'redis');
  let redis: RedisProcess;
  let passwords: Record<RedisUser, string>;
  let bdaUrl = '';
  const storeFlags = () => ['--store-ca', certFile('ca.pem'), '--store-cert', certFile('client.pem'), '--store-key', certFile('client.key')];
  const bda = () => ({ username: 'bda', password: passwords.bda });
  /** One question on a connection of its own, as `auth`: its reply, an error reply's text, or why it failed. */
  const outcome = (port: number, tls: RedisTls | null, auth: { username: string; password: string } | null, ...args: string[]) =>
    ask({ host: '127.0.0.1', port }, tls, auth, [args], HANG_GUARD_MS).then(
      (replies) => {
        const reply = replies.at(-1) as Reply;
        return reply instanceof RespError ? reply.message : reply;
      },
      (error: Error) => error.message,
    );

  if (!REDIS_INSTALLED) skipAll(kit, [NAMES.redis, NAMES.bda, NAMES.sentinel], 'redis-server is not installed');
  else {
    kit(NAMES.redis, async () => {
      await certs();
      mkdirSync(redisFolder);
      for (const file of ['users.acl', 'redis.conf', 'sentinel.conf']) placeShipped(`redis/${file}`, redisFolder, file, []);
      passwords = setPasswords(redisFolder);
      const conf = rewrite(join(redisFolder, 'redis.conf'), [
        ['/etc/redis/tls/', `${certsDir}/`],
        ['/etc/redis/users.acl', join(redisFolder, 'users.acl')],
      ]);
      redis = await startRedisProcess((port, dir) => {
        rewrite(conf, [
          [/^tls-port \d+$/m, `tls-port ${port}`],
          [/^dir .*$/m, `dir ${dir}`],
        ]);
        return [conf];
      }, START_GUARD_MS);
      started.push(() => redis.close());
      bdaUrl = `rediss://bda:${passwords.bda}@127.0.0.1:${redis.port}/0`;
      assert.is(await outcome(redis.port, trust(), bda(), 'PING'), 'PONG');
      assert.match(String(await outcome(redis.port, trust(), null, 'PING')), /^NOAUTH/, 'no user: refused');
      const asDefault = await outcome(redis.port, trust(), { username: 'default', password: 'anything' }, 'PING');
      assert.match(String(asDefault), /WRONGPASS/, 'the default user is off');
      assert.is.not(await outcome(redis.port, trust(null), bda(), 'PING'), 'PONG', 'a client without a certificate is refused');
      assert.is.not(await outcome(redis.port, null, bda(), 'PING'), 'PONG', 'no plain-text port');
    });

    kit(NAMES.bda, async () => {
      const made = await keysCommand('create', '--tier', 'free', '--org', 'deployco', '--json', '--store', bdaUrl, ...storeFlags());
      assert.is(made.status, 0, made.stderr);
      const key = JSON.parse(made.stdout).key as string;
      const server = await serve(['--store', bdaUrl, ...storeFlags()]);
      await until(async () => (await get(server.url, '/readyz')).status === 200, 'ready as bda');
      assert.equal((await get(server.url, '/readyz')).json().warnings, [], 'AOF on, noeviction: nothing to warn of');
      const answer = await get(server.url, FREE_LIST, key);
      assert.is(answer.status, 200);
      assert.is(answer.headers['x-ratelimit-remaining'], '99');
      const listed = await keysCommand('list', '--json', '--store', bdaUrl, ...storeFlags());
      assert.is(listed.status, 0, listed.stderr);
      const errors = String(await outcome(redis.port, trust(), bda(), 'INFO', 'errorstats'));
      assert.not.match(errors, /NOPERM/, 'the servers and the keys command were refused nothing');
    });

    if (!SENTINEL_INSTALLED) skipAll(kit, [NAMES.sentinel], 'redis-sentinel is not installed');
    else
      kit(NAMES.sentinel, async () => {
        const port = await freePort();
        const conf = rewrite(join(redisFolder, 'sentinel.conf'), [
          ['/etc/redis/tls/', `${certsDir}/`],
          [/^tls-port \d+$/m, `tls-port ${port}`],
          [/^dir .*$/m, `dir ${redisFolder}`],
          [/^sentinel monitor bda \S+ \d+ /m, `sentinel monitor bda 127.0.0.1 ${redis.port} `],
        ]);
        const sentinel = spawn('redis-sentinel', [conf], { stdio: 'ignore' });
        started.push(() => stopProcess(sentinel, 'SIGKILL'));
        const watch = { username: 'bda-watch', password: passwords['bda-watch'] };
        const master = async () => {
          const fields = await outcome(port, trust(), watch, 'SENTINEL', 'MASTER', 'bda');
          return Array.isArray(fields) ? Object.fromEntries(fields.flatMap((v, i) => (i % 2 ? [] : [[String(v), String(fields[i + 1])]]))) : {};
        };
        // Following it: logged in to it as bda-sentinel, its INFO read (a run id), its hello channel in use.
        await waitFor(async () => (await master())['runid']?.length === 40, 'the sentinel follows the primary', HANG_GUARD_MS);
        assert.is((await master()).flags, 'master');
        assert.equal(await outcome(port, trust(), watch, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'bda'), ['127.0.0.1', String(redis.port)]);
        assert.match(String(await outcome(port, trust(), watch, 'SENTINEL', 'FAILOVER', 'bda')), /^NOPERM/, 'bda-watch asks, nothing more');
        assert.match(String(await outcome(port, trust(), null, 'PING')), /^NOAUTH/, 'no default user');
        const query = new URLSearchParams({ sentinel_username: 'bda-watch', sentinel_password: passwords['bda-watch'] });
        const url = `rediss-sentinel://bda:${passwords.bda}@127.0.0.1:${port}/bda/0?${query}`;
        const made = await keysCommand('create', '--tier', 'free', '--org', 'sentinelco', '--json', '--store', url, ...storeFlags());
        assert.is(made.status, 0, made.stderr);
        const server = await serve(['--store', url, ...storeFlags()]);
        await until(async () => (await get(server.url, '/readyz')).status === 200, 'ready on the sentinel URL');
        assert.is((await get(server.url, FREE_LIST, JSON.parse(made.stdout).key)).status, 200);
        await waitFor(async () => /cmdstat_publish:calls=[1-9]/.test(String(await outcome(redis.port, trust(), bda(), 'INFO', 'commandstats'))), 'the sentinel says hello', HANG_GUARD_MS);
        assert.not.match(String(await outcome(redis.port, trust(), bda(), 'INFO', 'errorstats')), /NOPERM/, 'bda-sentinel was refused nothing');
      });
  }

  /** An HTTPS request to nginx on `port` (trusting the test CA, as `localhost`), with this client certificate if any; a POST with a body. */
  const https = (port: number, path: string, client: 'client' | 'server' | null, headers: Record<string, string> = {}, body?: string) =>
    new Promise<{ status: number; text: string; headers: IncomingHttpHeaders }>((resolve, reject) => {
      const tls = trust(client);
      const method = body === undefined ? 'GET' : 'POST';
      const req = httpsRequest(
        { host: '127.0.0.1', port, path, method, servername: 'localhost', ca: tls.ca!, cert: tls.cert ?? undefined, key: tls.key ?? undefined, headers, agent: false },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
        },
      );
      req.on('error', reject).end(body);
    });

  if (!NGINX) skipAll(kit, [NAMES.nginx, NAMES.admin], 'nginx is not installed (apt-get install nginx-light)');
  else {
    let publicPort = 0;
    let adminPort = 0;
    let adminToken = '';
    kit(NAMES.nginx, async () => {
      await certs();
      const stateA = join(root, 'state-a');
      const made = await keysCommand('admin-token', 'create', '--name', 'ops', '--state', stateA);
      adminToken = made.stdout.trim();
      // As the shipped unit starts it: nginx, on this host, is the proxy it believes.
      const a = await serve(['--state', stateA, '--metrics', '--trust-proxy', 'loopback'], { adminPort: 0 });
      const b = await serve(['--state', join(root, 'state-b'), '--metrics']);
      const prefix = join(root, 'nginx');
      mkdirSync(prefix);
      [publicPort, adminPort] = [await freePort(), await freePort()];
      const site = placeShipped('nginx/benchmark-api.conf', prefix, 'benchmark-api.conf', [
        ['/etc/nginx/tls/', `${certsDir}/`],
        [/listen 443 /, `listen 127.0.0.1:${publicPort} `],
        [/listen 9443 /, `listen 127.0.0.1:${adminPort} `],
        ['server 127.0.0.1:8080;', `server ${new URL(a.url).host};`],
        ['server 10.0.0.12:8080;', `server ${new URL(b.url).host};`],
        ['proxy_pass http://127.0.0.1:9090;', `proxy_pass ${a.admin!.url};`],
      ]);
      const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `${n}_temp_path ${join(prefix, n)};`);
      const main = join(prefix, 'nginx.conf');
      // As root nginx's workers would become nobody, who cannot enter this private folder.
      const user = process.getuid?.() === 0 ? 'user root;\n' : '';
      writeFileSync(main, `${user}daemon off;\nworker_processes 1;\npid ${join(prefix, 'nginx.pid')};\nevents { worker_connections 64; }\nhttp {\naccess_log off;\n${temp.join('\n')}\ninclude ${site};\n}\n`);
      const args = ['-p', `${prefix}/`, '-c', main, '-e', join(prefix, 'error.log')];
      const checked = spawnSync(NGINX, ['-t', ...args], { encoding: 'utf8' });
      assert.is(checked.status, 0, checked.stderr);
      const nginx: ChildProcess = spawn(NGINX, args, { stdio: 'ignore' });
      started.push(() => stopProcess(nginx, 'SIGQUIT'));
      await waitFor(async () => (await https(publicPort, '/healthz', null).catch(() => null))?.status === 200, 'nginx answers', HANG_GUARD_MS);
      // Round robin: both servers answer through it.
      for (let i = 0; i < 4; i++) assert.is((await https(publicPort, '/api/v2/openapi.json', null)).status, 200);
      const answer = await https(publicPort, FREE_LIST, null);
      assert.is(answer.status, 401, answer.text);
      assert.is((await https(publicPort, '/metrics', null)).status, 404, '/metrics is kept off the public side');
      assert.is((await get(a.url, '/metrics')).status, 200, 'and served on loopback');
      const key = createKey(stateA, { tier: 'free', org: 'proxied' }).key;
      const keyed = await Promise.all([1, 2].map(() => https(publicPort, FREE_LIST, null, { 'x-api-key': key })));
      assert.ok(keyed.some((r) => r.status === 200), 'a keyed request through nginx reaches its server');
    });

    kit(NAMES.admin, async () => {
      const auth = { authorization: `Bearer ${adminToken}` };
      const refused = await https(adminPort, '/admin/api/keys', null, auth);
      assert.is(refused.status, 400, 'no client certificate: refused by nginx');
      assert.is((await https(adminPort, '/admin/api/keys', 'server', auth)).status, 403, 'a Redis host\'s certificate is not the operator\'s');
      const answered = await https(adminPort, '/admin/api/keys', 'client', auth);
      assert.is(answered.status, 200, answered.text);
      assert.is((await https(adminPort, '/admin/api/keys', 'client')).status, 401, 'the admin token is still needed');
      // The page behind TLS: nginx says X-Forwarded-Proto https, the server believes it (--trust-proxy loopback).
      const form = { 'content-type': 'application/x-www-form-urlencoded', origin: `https://127.0.0.1:${adminPort}` };
      const signedIn = await https(adminPort, '/admin/login', 'client', form, `token=${encodeURIComponent(adminToken)}`);
      assert.is(signedIn.status, 303, signedIn.text);
      assert.match(String(signedIn.headers['set-cookie']), /^bda_admin=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict; Secure$/);
    });
  }
}

if (!SYSTEMD_ANALYZE) skipAll(kit, [NAMES.systemd], 'systemd-analyze is not installed');
else
  kit(NAMES.systemd, async () => {
    // The unit with its drop-in folder beside it, as installed: both commands read the drop-in from there.
    const folder = join(root, 'systemd');
    cpSync(join(ROOT, 'deploy/systemd'), folder, { recursive: true });
    const unit = join(folder, 'benchmark-api.service');
    const verified = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    assert.is(`${verified.stdout}${verified.stderr}`, '', 'systemd-analyze verify says nothing');
    assert.is(verified.status, 0);
    const scored = spawnSync('systemd-analyze', ['security', '--offline=yes', unit], { encoding: 'utf8' });
    const score = Number(/Overall exposure level for benchmark-api\.service: (\d+\.\d+)/.exec(scored.stdout)?.[1]);
    assert.ok(Number.isFinite(score), scored.stdout + scored.stderr);
    console.log(`systemd-analyze security --offline=yes: exposure ${score} (at most ${EXPOSURE_BOUND})`);
    assert.ok(score <= EXPOSURE_BOUND, `exposure ${score} is over ${EXPOSURE_BOUND}:\n${scored.stdout}`);
  });

kit.run();
