/**
 * Published snapshots, pulled (issue: signed snapshots servers pull from an origin): a real nginx
 * (Debian's) serves a published folder over TLS with a CA openssl made; three servers (the
 * bundle, as production runs it) start with empty snapshot folders and `--snapshot-from` it.
 * Builds are published by the build command (`--publish DIR --sign KEY`) and, for releases the
 * command would never make (expired, of an old build), by build/publish/release.ts in-process.
 *
 * What must hold: a new build reaches every server, fetching only the chunks it lacks; the four
 * tamperings (a flipped byte in a chunk, another key, an older version, an expired release) are
 * each refused, said in /readyz's warnings, while the build held keeps serving; an origin stopped
 * part way through a pull and started again is pulled from to the end; and a disk that fills
 * during a pull leaves the old build serving and the room it had.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCa, makeSigned, OPENSSL_INSTALLED } from '../../scripts/certificates.ts';
import { freePort, stopProcess } from '../../scripts/processes.ts';
import { run as runBuildCommand } from '../../build/main.ts';
import { publishRelease } from '../../build/publish/release.ts';
import { CURRENT_LINK } from '../../src/shared/manifest.ts';
import { chunkPath, newSigningKey, signingKeyOf, unsignedRelease, type Release } from '../../src/shared/release.ts';
import { get } from '../helpers/http.ts';
import { caught, ROOT, spawnServer, type ServerProcess } from '../helpers/process.ts';
import { SMALL_FIXTURE, SMALL_PAGE_SIZE, smallBuild } from '../helpers/small-build.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => spawnSync(path, ['-v']).error === undefined);
const FIXTURE = join(ROOT, 'test/fixtures', SMALL_FIXTURE);

const pull = suite('snapshots pulled from a published origin');

const root = mkdtempSync(join(tmpdir(), 'snapshot-pull-'));
const published = join(root, 'published');
const certs = join(root, 'certs');
const maker = join(root, 'maker-snapshot');
const keyFile = join(root, 'signing.key');
const stops: (() => Promise<void>)[] = [];
let publicKey = '';
let origin: { port: number; process: ChildProcess | null; conf: string; prefix: string } | null = null;
const servers: ServerProcess[] = [];

/** The build id the shared small build serves: release 1. */
let buildA = '';
let buildB = '';
let buildC = '';
/** How long release 2 took to reach every server, measured here: what a release's short validity is sized by. */
let reachMs = 0;

function skip(why: string): void {
  pull('pulled snapshots (skipped)', () => console.log(`skipped: ${why}`));
}

/** A copy of the small fixture with one model's evaluation changed by `delta`. */
function changedData(name: string, delta: number): string {
  const dir = join(root, name);
  cpSync(FIXTURE, dir, { recursive: true });
  const file = join(dir, 'language-models.json');
  const models = JSON.parse(readFileSync(file, 'utf8')) as { evaluations: Record<string, number | null> }[];
  const model = models[Math.floor(models.length / 2)];
  model.evaluations.gpqa_diamond = (model.evaluations.gpqa_diamond ?? 0.3) + delta;
  writeFileSync(file, JSON.stringify(models, null, 2));
  return dir;
}

/** The build command, in-process, as `npm run build -- ...` with the small fixture's settings. */
async function build(data: string, key: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const args = ['--data', data, '--out', maker, '--page-size', String(SMALL_PAGE_SIZE), '--gzip-level', '1'];
  return caught((io) => runBuildCommand([...args, '--brotli-level', '1', '--publish', published, '--sign', key], io));
}

function nginxConf(prefix: string, port: number, chunkRate: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `${n}_temp_path ${join(prefix, n)};`);
  // As root nginx's workers would become nobody, who cannot enter this private folder.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `${user}daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
events { worker_connections 256; }
http {
  access_log ${join(prefix, 'access.log')};
  ${temp.join('\n  ')}
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${join(certs, 'server.pem')};
    ssl_certificate_key ${join(certs, 'server.key')};
    root ${published};
    location = /release.json { add_header Cache-Control no-cache; }
    location /chunks/ { limit_rate ${chunkRate}; }
  }
}
`;
}

async function startOrigin(chunkRate = '0'): Promise<void> {
  const o = origin!;
  writeFileSync(o.conf, nginxConf(o.prefix, o.port, chunkRate));
  const args = ['-p', `${o.prefix}/`, '-c', o.conf, '-e', join(o.prefix, 'error.log')];
  const checked = spawnSync(NGINX!, ['-t', ...args], { encoding: 'utf8' });
  assert.is(checked.status, 0, checked.stderr);
  o.process = spawn(NGINX!, args, { stdio: 'ignore' });
  await until(async () => {
    const answered = spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${o.port}`], { input: '' });
    return answered.status === 0;
  }, 'nginx answers');
}

/** Stop nginx at once (SIGTERM: a fast shutdown, transfers under way are cut). */
async function stopOrigin(): Promise<void> {
  if (origin?.process) await stopProcess(origin.process, 'SIGTERM');
  if (origin) origin.process = null;
}

/** Publish a build folder as the origin's next release, signed with the servers' key (`now` and `validDays` as given). */
function publish(buildDir: string, now = new Date(), validDays = 14): number {
  const signingKey = signingKeyOf(readFileSync(keyFile, 'utf8'));
  return publishRelease({ buildDir, to: published, signingKey, validDays, now, log: () => {} }).version;
}

async function readyz(server: ServerProcess): Promise<any> {
  return (await get(server.url, '/readyz')).json();
}

/** The snapshot warnings /readyz lists (the key store's own warning is not this test's). */
function snapshotWarnings(body: any): string[] {
  return (body.warnings as string[]).filter((w) => /release|origin|pull|snapshot/.test(w));
}

async function allServe(buildId: string, what: string, group = servers): Promise<void> {
  // Asked every 100 ms, not every 5: a server asked without pause is busy, and its pull gives way (src/pull/pacer.ts).
  const serving = async () => (await Promise.all(group.map(readyz))).every((r) => r.snapshot === buildId);
  await until(serving, what, HANG_GUARD_MS, 100);
}

async function allWarn(pattern: RegExp, what: string): Promise<void> {
  await until(
    async () => (await Promise.all(servers.map(readyz))).every((r) => snapshotWarnings(r).some((w) => pattern.test(w))),
    what,
  );
}

function releaseOf(version: number): Release {
  return unsignedRelease(readFileSync(join(published, 'releases', `${version}.json`), 'utf8'));
}

function currentBuildDir(snapshotDir: string): string {
  return join(snapshotDir, readlinkSync(join(snapshotDir, CURRENT_LINK)));
}

async function startPulling(name: string, snapshotDir: string): Promise<ServerProcess> {
  const server = await spawnServer([
    ...['--port', '0', '--snapshot', snapshotDir, '--state', join(root, `state-${name}`), '--quiet'],
    ...['--snapshot-from', `https://localhost:${origin!.port}/`, '--snapshot-key', publicKey],
    ...['--snapshot-ca', join(certs, 'ca.pem'), '--snapshot-poll', '1', '--metrics'],
  ]);
  stops.push(() => stopProcess(server.child));
  return server;
}

if (!NGINX) skip('nginx is not installed (apt-get install nginx-light)');
else if (!OPENSSL_INSTALLED) skip('openssl is not installed');
else {
  pull.before(async () => {
    mkdirSync(certs, { mode: 0o700 });
    makeCa(certs, 'ca');
    makeSigned(certs, 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth');
    const made = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/signing-key.ts', 'create', '--out', keyFile],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.is(made.status, 0, made.stderr);
    publicKey = made.stdout.trim();
    // Release 1: the shared small build, published as it is.
    const shared = currentBuildDir((await smallBuild()).snapshotDir);
    const first = publishRelease({
      buildDir: shared,
      to: published,
      signingKey: signingKeyOf(readFileSync(keyFile, 'utf8')),
      validDays: 14,
      now: new Date(),
      log: () => {},
    });
    buildA = first.buildId;
    const prefix = join(root, 'nginx');
    mkdirSync(prefix);
    origin = { port: await freePort(), process: null, conf: join(prefix, 'nginx.conf'), prefix };
    stops.push(stopOrigin);
  });

  pull.after(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    spawnSync('umount', [join(root, 'small-disk')]);
    rmSync(root, { recursive: true, force: true });
  });

  pull('should start three servers with empty snapshot folders from the origin, over TLS', async () => {
    await startOrigin();
    servers.push(
      ...(await Promise.all(['a', 'b', 'c'].map((name) => startPulling(name, join(root, `snapshot-${name}`))))),
    );
    for (const server of servers) {
      const ready = await readyz(server);
      assert.is(ready.status, 'ready');
      assert.is(ready.snapshot, buildA);
      assert.is(ready.origin.release, 1);
      assert.equal(snapshotWarnings(ready), []);
      assert.match(
        server.output(),
        /no snapshot in .* yet: pulling the first from https:\/\/localhost:\d+\/release.json/,
      );
    }
  });

  pull('should bring a new build to every server, fetching only the chunks it lacks', async () => {
    const made = await build(changedData('data-b', 0.01), keyFile);
    assert.is(made.status, 0, made.stderr);
    const line = /published build (\S+) as release 2 .*: (\d+) chunks of .*, (\d+) new/.exec(made.stdout);
    assert.ok(line, made.stdout);
    buildB = line[1];
    const started = performance.now();
    await allServe(buildB, 'every server serves release 2');
    reachMs = performance.now() - started;
    console.log(
      `  release 2 reached all three servers ${((performance.now() - started) / 1000).toFixed(1)} s after it was published (poll 1 s)`,
    );
    for (const server of servers) {
      const pulled = /pulled release 2 \(build \S+, (\d+) chunks, .*fetched (\d+) chunks/.exec(server.output());
      assert.ok(pulled, server.output());
      // Exactly the chunks the publisher stored anew: every other one is release 1's, held already.
      assert.is(Number(pulled[2]), Number(line[3]), 'fetched the new chunks only');
      assert.ok(Number(pulled[2]) < Number(pulled[1]) / 2, `${pulled[2]} of ${pulled[1]} chunks fetched`);
    }
    const metrics = (await get(servers[0].url, '/metrics')).text;
    assert.match(metrics, /^bda_snapshot_release 2$/m);
    assert.match(metrics, /^bda_snapshot_pulls_total\{outcome="done"\} 2$/m, 'the first pull and this one');
    assert.match(metrics, /^bda_snapshot_release_expiry_seconds \d/m);
    const fetched = Number(/^bda_snapshot_pulled_bytes_total\{source="origin"\} (\d+)$/m.exec(metrics)?.[1]);
    const held = Number(/^bda_snapshot_pulled_bytes_total\{source="held"\} (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(fetched > 0 && held > 0, metrics);
  });

  pull('should refuse an older version (a rollback) and keep serving', async () => {
    const release = join(published, 'release.json');
    cpSync(join(published, 'releases', '1.json'), release);
    await allWarn(/release 1 .* is not newer than release 2/, 'every server refuses release 1');
    for (const server of servers) {
      const ready = await readyz(server);
      assert.is(ready.status, 'ready');
      assert.is(ready.snapshot, buildB);
    }
    cpSync(join(published, 'releases', '2.json'), release);
    await until(
      async () => (await Promise.all(servers.map(readyz))).every((r) => snapshotWarnings(r).length === 0),
      'the warning ends once the origin offers release 2 again',
    );
  });

  pull('should refuse a release signed by another key', async () => {
    const other = join(root, 'other.key');
    writeFileSync(other, newSigningKey().privatePem, { mode: 0o600 });
    const made = await build(changedData('data-c', 0.02), other);
    assert.is(made.status, 0, made.stderr);
    buildC = /published build (\S+) as release 3/.exec(made.stdout)![1];
    await allWarn(/signed by key [0-9a-f]{16}, which this server does not trust/, 'every server refuses the other key');
    for (const server of servers) assert.is((await readyz(server)).snapshot, buildB);
  });

  pull('should refuse an expired release', async () => {
    publish(currentBuildDir(maker), new Date(Date.now() - 3 * 86_400_000), 1);
    await allWarn(/release 4 \(build \S+\) expired at/, 'every server refuses the expired release');
    for (const server of servers) assert.is((await readyz(server)).snapshot, buildB);
  });

  pull('should refuse a chunk with a flipped byte, and take the release once the chunk is sound', async () => {
    const held = new Set(releaseOf(2).files.flatMap((f) => f.chunks.map((c) => c[0])));
    const fresh = releaseOf(4)
      .files.flatMap((f) => f.chunks)
      .find((c) => !held.has(c[0]) && c[2] === 0);
    assert.ok(fresh, 'release 4 has a chunk release 2 does not, stored as it is');
    const file = join(published, chunkPath(fresh));
    const sound = readFileSync(file);
    const flipped = Buffer.from(sound);
    flipped[flipped.length >> 1] ^= 0x01;
    writeFileSync(file, flipped);
    publish(currentBuildDir(maker));
    await allWarn(
      new RegExp(`pulling release 5 .* failed: .*${fresh[0]} fails its checksum`),
      'every server refuses the chunk',
    );
    for (const server of servers) {
      assert.is((await readyz(server)).snapshot, buildB);
      assert.not.match(server.output(), /pulled release 5/);
    }
    writeFileSync(file, sound);
    await allServe(buildC, 'every server takes release 5 once its chunk is sound');
    for (const server of servers) assert.equal(snapshotWarnings(await readyz(server)), []);
  });

  pull('should finish a pull the origin broke off once it is back, and resume one a restart cut off', async () => {
    // Chunks slowed to 16 KB/s a connection, so the pulls are under way when the origin stops.
    await stopOrigin();
    await startOrigin('16k');
    const access = join(origin!.prefix, 'access.log');
    const seen = readFileSync(access, 'utf8').length;
    publish(currentBuildDir((await smallBuild()).snapshotDir));
    // Every server has written chunks (a pack begins as zeros), and a chunk was fetched whole (nginx logs a
    // request when it is done): each pull is under way, and what a restart finds in place is there.
    const folders = ['a', 'b', 'c'].map((name) => join(root, `snapshot-${name}`));
    const third = folders[2];
    const written = (folder: string) => {
      const pulling = readdirSync(folder).find((name) => name.startsWith('.pull-'));
      if (pulling === undefined) return false;
      try {
        return readFileSync(join(folder, pulling, 'bodies.pack')).some((byte) => byte !== 0);
      } catch (error) {
        // The pull folder is made before its files are (a CI run once looked in between).
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    };
    await until(
      () => readFileSync(access, 'utf8').slice(seen).includes('/chunks/') && folders.every(written),
      'the servers begin to fetch chunks',
      HANG_GUARD_MS,
      50,
    );
    await stopProcess(servers[2].child);
    await stopOrigin();
    const cut = await Promise.all(servers.slice(0, 2).map(readyz));
    assert.ok(
      cut.every((r) => r.snapshot === buildC),
      `no server had the whole release when the origin stopped: ${JSON.stringify(cut.map((r) => r.snapshot))}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await startOrigin();
    servers[2] = await startPulling('c', third);
    await allServe(buildA, 'every server finishes release 6 (build A again) once the origin is back');
    for (const server of servers.slice(0, 2))
      assert.match(server.output(), /pulled release 6 .*, \d+ failed fetches tried again/, server.output());
    assert.match(servers[2].output(), /pulled release 6 .* MB from the pull cut off before/, servers[2].output());
    assert.not.ok(
      readdirSync(third).some((name) => name.startsWith('.pull-')),
      'the pull folder became the build',
    );
  });

  pull('should keep serving, and give back the room, when the disk fills during a pull', async () => {
    const disk = join(root, 'small-disk');
    mkdirSync(disk);
    const bytes = releaseOf(6).files.reduce((sum, f) => sum + f.size, 0);
    // Room for one build and half another.
    const mounted = spawnSync('mount', [
      '-t',
      'tmpfs',
      '-o',
      `size=${Math.ceil((bytes * 1.5) / 4096) * 4096}`,
      'tmpfs',
      disk,
    ]);
    if (mounted.status !== 0) {
      console.log(`skipped: the full disk (mounting a small tmpfs needs root: ${String(mounted.stderr).trim()})`);
      return;
    }
    const small = await startPulling('small', join(disk, 'snapshot'));
    assert.is((await readyz(small)).snapshot, buildA);
    const free = statfsSync(disk).bavail;
    publish(currentBuildDir(maker));
    await until(
      async () => snapshotWarnings(await readyz(small)).some((w) => /no space left/.test(w)),
      'the small disk fills',
    );
    const ready = await readyz(small);
    assert.is(ready.status, 'ready');
    assert.is(ready.snapshot, buildA, 'the old build keeps serving');
    assert.is((await get(small.url, '/api/v2/openapi.json')).status, 200);
    assert.is(statfsSync(disk).bavail, free, 'the part written is removed');
    await allServe(buildC, 'the servers with room take release 7');
  });

  pull(
    'should take a release of the build it serves as a renewal, fetching nothing, and warn once it expires',
    async () => {
      // Valid briefly: signed a day ago, for a day and a few times what release 2 took to reach every server.
      // Should a server ask only once it has expired (a machine slower now than then), the release is
      // published again with twice the time.
      let renewal = 0;
      for (let validMs = Math.max(3000, 4 * reachMs); ; validMs *= 2) {
        renewal = publish(currentBuildDir(maker), new Date(Date.now() - 86_400_000 + validMs), 1);
        const refused = new RegExp(`release ${renewal} \\(build \\S+\\) expired at`);
        let states: any[] = [];
        await until(async () => {
          states = await Promise.all(servers.map(readyz));
          return states.every((r) => r.origin.release === renewal || snapshotWarnings(r).some((w) => refused.test(w)));
        }, `every server takes release ${renewal}, or finds it expired`);
        if (states.every((r) => r.origin.release === renewal)) break;
      }
      for (const server of servers) {
        assert.match(server.output(), new RegExp(`release ${renewal} renews build ${buildC} until`));
        assert.not.match(server.output(), new RegExp(`pulled release ${renewal}`));
      }
      await allWarn(
        new RegExp(`the release of the served build \\S+ \\(release ${renewal}\\) expired at .*publish again`),
        'the renewal expires',
      );
      for (const server of servers) assert.is((await readyz(server)).status, 'ready');
      publish(currentBuildDir(maker));
      await until(
        async () => (await Promise.all(servers.map(readyz))).every((r) => snapshotWarnings(r).length === 0),
        'a fresh release ends the warning',
      );
      const asked = readFileSync(join(origin!.prefix, 'access.log'), 'utf8');
      assert.match(asked, /"GET \/release\.json HTTP\/1\.1" 304 /, 'an unchanged release.json is a 304');
    },
  );
}

pull.run();
