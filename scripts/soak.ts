/**
 * `npm run soak -- [--minutes N] [--clients N] [--store redis://HOST:PORT[/DB]]`: mixed load
 * from several clients while the snapshot is rebuilt every 30 s and the server is killed with
 * SIGKILL and restarted every minute. With `--store redis://...` two servers share that Redis
 * behind one load generator (clients alternate between them) and the kills alternate too.
 * At the end it checks that:
 *   - no request failed, other than those cut by a kill (connection reset or refused);
 *   - no response mixed two snapshots (every body hashes to the ETag it came with);
 *   - every scope's quota counter equals the 200 answers it was sent, give or take the
 *     requests of that scope that a kill cut in flight (those may or may not have counted).
 * It also reports how long the server ever stalled: the slowest `/healthz` answer of a probe
 * that asks every 100 ms (quota compactions, rebuild switches and the like show up there), and
 * the same for the answers it got while attackers were held (what test/http/hostile.test.ts
 * only prints, as its probe shares a process with the attackers).
 * Between rebuilds a corrupter copies the current build, flips bytes of the copy's pack and
 * switches `current` to it: a server must refuse to switch to it (and one restarted on it must
 * serve only bytes that pass their checksum, or a 503 that says why); no body may be wrong.
 * Beside the load, attackers strike every 20 s: 300 connections pipelining 50 requests each and
 * one pipelining 1,400 in one write, none of them reading; one CritPt-approved key posting 20
 * bodies of 4 MB at once and 200 more trickling at 10 bytes a second; and 404s with an
 * 8,100-character path segment (the "did you mean" search's worst case), all held for 5 s; and
 * every other round the server's stdout (its access log) goes unread until the next; the servers' peak
 * resident memory must stay under 250 MB throughout.
 * Prints a one-line verdict; exits 1 on any loss. Not part of `npm test`.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, fstatSync, mkdtempSync, openSync, readFileSync, readlinkSync, readSync, renameSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeOption } from '../src/config.ts';
import { fileAdmin, redisAdmin } from '../src/keys/command/admin.ts';
import { creation } from '../src/keys/changes.ts';
import type { NewKey } from '../src/keys/record.ts';
import { flagsOrExit } from '../src/shared/flags.ts';
import { contentHash, CURRENT_LINK, PACK_FILE } from '../src/shared/manifest.ts';
import { bundle } from './bundle.ts';
import { pipelineFlood, trickleFlood, uploadFlood, watchResident } from './attackers.ts';
import { ROOT, spawnServer } from './processes.ts';

// The servers listen where they like (port 0); restarts may move them, so clients read `ports`.
const ports: number[] = [];
const REBUILD_EVERY_MS = 30_000;
const KILL_EVERY_MS = 60_000;
/** Corrupt builds are switched in half-way between two rebuilds, so each is replaced by the next rebuild. */
const CORRUPT_EVERY_MS = REBUILD_EVERY_MS;
const BYTES_FLIPPED = 16;
const ATTACK_EVERY_MS = 20_000;
const ATTACK_HOLD_MS = 5_000;
/** What no client, however hostile, may make a server hold. */
const RESIDENT_LIMIT_MB = 250;

const USAGE = 'usage: npm run soak -- [--minutes N] [--clients N] [--store file|redis://HOST:PORT[/DB]]\n\n  --minutes N  how long to run (default 5)\n  --clients N  concurrent clients (default 8)\n  --store S    file (one server), or a Redis two servers share';
const { values } = flagsOrExit({ options: { minutes: { type: 'string', default: '5' }, clients: { type: 'string', default: '8' }, store: { type: 'string', default: 'file' }, help: { type: 'boolean', short: 'h' } } }, USAGE);
const minutes = Number(values.minutes);
const clients = Number(values.clients);
const store = storeOption(values.store);
/** One server on its state folder; two on a shared Redis. */
const SERVERS = store === 'file' ? 1 : 2;

interface Reply {
  status: number;
  etag?: string;
  body: Buffer;
  remaining?: string;
  limit?: string;
}

function get(path: string, key: string, method = 'GET', server = 0): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: ports[server], path, method, headers: { 'x-api-key': key }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, body: Buffer.concat(chunks), remaining: res.headers['x-ratelimit-remaining'] as string, limit: res.headers['x-ratelimit-limit'] as string }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a failure must clean up: the servers running now and the work folder. */
const cleanup: { servers: ChildProcess[]; work: string | null } = { servers: [], work: null };
/** Resident memory of every server process started, restarts included. */
const residents: ReturnType<typeof watchResident>[] = [];

/** Each server's stdout (its access log): read and thrown away, except while the slow-log attacker holds it. */
const accessLogs: Readable[] = [];
/** Every server's own output (stderr included), restarts included: the access log's drop notices are counted there. */
const outputs: (() => string)[] = [];

async function startServer(bundlePath: string, snapshot: string, state: string, n: number): Promise<ChildProcess> {
  const server = await spawnServer(['--port', '0', '--snapshot', snapshot, '--state', state, '--store', values.store], [bundlePath]);
  ports[n] = server.port;
  cleanup.servers[n] = server.child;
  residents.push(watchResident(server.child.pid!, 200));
  // spawnServer keeps what it reads (to find the `listening on` line); the access log is not kept.
  const stdout = server.child.stdout!;
  stdout.removeAllListeners('data');
  stdout.on('data', () => {});
  accessLogs[n] = stdout;
  outputs.push(server.output);
  return server.child;
}

/** Copy the current build, flip bytes at random places of the copy's pack, and point `current` at the copy. */
function switchToCorruptCopy(snapshot: string, n: number): void {
  const currentId = readlinkSync(join(snapshot, CURRENT_LINK));
  // Named after its source, so pruning (by name order) sees it as that build's neighbour.
  const copyId = `${currentId.replace(/-corrupt\d+$/, '')}-corrupt${n}`;
  cpSync(join(snapshot, currentId), join(snapshot, copyId), { recursive: true });
  const fd = openSync(join(snapshot, copyId, PACK_FILE), 'r+');
  try {
    const { size } = fstatSync(fd);
    const byte = Buffer.alloc(1);
    for (let i = 0; i < BYTES_FLIPPED; i++) {
      const at = Math.floor(Math.random() * size);
      readSync(fd, byte, 0, 1, at);
      byte[0] ^= 0xff;
      writeSync(fd, byte, 0, 1, at);
    }
  } finally {
    closeSync(fd);
  }
  const link = join(snapshot, `.corrupt-${n}`);
  symlinkSync(copyId, link);
  renameSync(link, join(snapshot, CURRENT_LINK));
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'soak-'));
  cleanup.work = work;
  const data = join(work, 'data');
  const snapshot = join(work, 'snapshot');
  const state = join(work, 'state');
  cpSync(join(ROOT, 'test/fixtures/sample-small'), data, { recursive: true });
  const build = () => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'build/main.ts'), '--data', data, '--out', snapshot, '--quiet', '--gzip-level', '1', '--brotli-level', '1'], { cwd: ROOT, encoding: 'utf8' });
  const first = build();
  if (first.status !== 0) throw new Error(`initial build failed: ${first.stderr}`);
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);

  // Scopes: two keys sharing an org counter, Free keys that run out, Commercial keys that do not.
  // Orgs are named for this run, so a Redis that served an earlier one holds no counts of theirs.
  const providers = JSON.parse(readFileSync(join(data, 'providers.json'), 'utf8')) as { slug: string }[];
  const run = Date.now().toString(36);
  const admin = store === 'file' ? fileAdmin(state) : await redisAdmin(store);
  const issue = async (scope: string, input: NewKey) => ({ scope: scope.replace(/:(\w+)/, `:$1-${run}`), ...(await admin.apply(creation({ ...input, org: `${input.org}-${run}` }))) });
  const keys = [
    await issue('org:shared', { tier: 'pro', org: 'shared', user: 'a', scope: 'org' }),
    await issue('org:shared', { tier: 'pro', org: 'shared', user: 'b', scope: 'org' }),
    await issue('user:free/f1', { tier: 'free', org: 'free', user: 'f1' }),
    await issue('user:free/f2', { tier: 'free', org: 'free', user: 'f2' }),
    await issue('user:big/c1', { tier: 'commercial', org: 'big', user: 'c1', quota: 10_000_000, grants: providers.map((p) => p.slug) }),
    await issue('user:big/c2', { tier: 'commercial', org: 'big', user: 'c2', quota: 10_000_000, grants: providers.map((p) => p.slug) }),
  ];
  // The upload attacker's key: approved for CritPt (approval is free to ask for), never counted.
  const uploader = (await issue('user:up/u', { tier: 'commercial', org: 'up', user: 'u', critpt: true })).key;
  admin.close();
  // Each key asks for routes its tier may read, so the load is answers, not refusals.
  const free = ['/api/v2/language/models/free', '/api/v2/data/llms/models', '/api/v2/media/music/instrumental/models/free'];
  const pro = [...free, '/api/v2/language/models?page=1', '/api/v2/language/models?prompt_type=100k', '/api/v2/media/text-to-image/models?include_categories=true'];
  const commercial = [...pro, `/api/v2/language/providers/${providers[0].slug}/measurements`, `/api/v2/language/providers/${providers[0].slug}`, `/api/v2/language/providers/${providers[0].slug}/performance`];
  const routesOf = { free, pro, commercial };

  const servers = await Promise.all(Array.from({ length: SERVERS }, (_, n) => startServer(bundlePath, snapshot, state, n)));
  const answered = new Map<string, number>();
  const cut = new Map<string, number>();
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let mixed = 0;
  /** 503s for stored bytes that failed their checksum: honest refusals, not failures. */
  let refusedCorrupt = 0;
  let corruptions = 0;
  let requests = 0;
  let kills = 0;
  let rebuilds = 0;
  let restarting = false;
  const deadline = Date.now() + minutes * 60_000;

  const client = async (n: number) => {
    for (let i = n; Date.now() < deadline; i++) {
      const key = keys[i % keys.length];
      const routes = routesOf[key.record.tier];
      const path = routes[(i * 7 + n) % routes.length];
      requests++;
      try {
        const reply = await get(path, key.key, 'GET', (i + n) % SERVERS);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 200) {
          answered.set(key.scope, (answered.get(key.scope) ?? 0) + 1);
          if (reply.etag !== `"${contentHash(reply.body)}"`) mixed++;
        } else if (reply.status === 503 && reply.body.toString().includes('integrity check')) refusedCorrupt++;
        else if (![403, 429].includes(reply.status)) failures.push(`${reply.status} ${path}: ${reply.body.toString().slice(0, 120)}`);
      } catch (error) {
        // Only a kill may cut a request; anything else is a failure.
        if (restarting) cut.set(key.scope, (cut.get(key.scope) ?? 0) + 1);
        else failures.push(`${path}: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };

  const rebuilder = setInterval(() => {
    // Rename a provider so the new snapshot differs from the old one.
    const path = join(data, 'providers.json');
    const list = JSON.parse(readFileSync(path, 'utf8')) as { name: string }[];
    list[0].name = `${list[0].name.replace(/ \(\d+\)$/, '')} (${++rebuilds})`;
    writeFileSync(path, JSON.stringify(list, null, 2));
    const result = build();
    if (result.status !== 0) failures.push(`rebuild ${rebuilds} failed: ${result.stderr.slice(0, 200)}`);
  }, REBUILD_EVERY_MS);

  let corrupter: NodeJS.Timeout | undefined;
  const corrupterStart = setTimeout(() => {
    const corrupt = () => switchToCorruptCopy(snapshot, ++corruptions);
    corrupt();
    corrupter = setInterval(corrupt, CORRUPT_EVERY_MS);
  }, REBUILD_EVERY_MS / 2);

  const killer = setInterval(async () => {
    restarting = true;
    const victim = kills % SERVERS;
    servers[victim].kill('SIGKILL');
    await new Promise((r) => servers[victim].once('exit', r));
    kills++;
    servers[victim] = await startServer(bundlePath, snapshot, state, victim);
    // Requests cut by the kill fail within moments; after that a failure is a failure.
    setTimeout(() => (restarting = false), 500);
  }, KILL_EVERY_MS);

  // Attackers that pipeline and never read, at one server at a time.
  let attacks = 0;
  let attacking = false;
  const attacker = async () => {
    while (Date.now() + ATTACK_EVERY_MS < deadline) {
      await new Promise((r) => setTimeout(r, ATTACK_EVERY_MS - ATTACK_HOLD_MS));
      const target = attacks++ % SERVERS;
      const port = ports[target];
      const upload = { port, path: '/api/v2/critpt/evaluate', headers: { 'x-api-key': uploader } };
      const floods = await Promise.all([
        pipelineFlood({ port, path: '/api/v2/openapi.json', sockets: 300, requests: 50 }),
        pipelineFlood({ port, path: '/api/v2/language/models/free', sockets: 1, requests: 1400, headers: { 'x-api-key': 'bdk_not_a_key' } }),
        trickleFlood({ ...upload, sockets: 200, bytes: 1_000_000, bytesPerSecond: 10 }),
      ]);
      attacking = true;
      // The slow log: every other round the server's stdout is left unread until the next round
      // (some 20 s of lines, more than the access log may hold back), then read again.
      if (attacks % 2 === 1) accessLogs[target].pause();
      else for (const log of accessLogs) log.resume();
      const posts = uploadFlood({ ...upload, sockets: 20, bytes: 4 * 1024 * 1024 });
      const longSegment = `/api/v2/media/${'c'.repeat(8_100)}/models`;
      const until = Date.now() + ATTACK_HOLD_MS;
      while (Date.now() < until) await get(longSegment, '', 'GET', target).catch(() => {});
      await posts;
      attacking = false;
      for (const flood of floods) flood.close();
    }
  };

  // The stall probe: /healthz answers at once unless the event loop is held.
  const healthz: number[] = [];
  const attacked: number[] = [];
  const probe = async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      const underAttack = attacking;
      try {
        await get('/healthz', '');
        if (!restarting) healthz.push(performance.now() - started);
        if (!restarting && underAttack && attacking) attacked.push(performance.now() - started);
      } catch {
        // a kill; counted by the clients
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  await Promise.all([probe(), attacker(), ...Array.from({ length: clients }, (_, n) => client(n))]);
  for (const log of accessLogs) log.resume();
  clearInterval(rebuilder);
  clearTimeout(corrupterStart);
  clearInterval(corrupter);
  clearInterval(killer);
  while (restarting) await new Promise((r) => setTimeout(r, 100));

  // Every scope's counter now: limit - remaining, read with HEAD (never counted).
  const mismatches: string[] = [];
  const scopes = [...new Set(keys.map((k) => k.scope))];
  for (const scope of scopes) {
    const key = keys.find((k) => k.scope === scope)!;
    const reply = await get('/api/v2/language/models/free', key.key, 'HEAD');
    const counted = Number(reply.limit) - Number(reply.remaining);
    const sent = answered.get(scope) ?? 0;
    const mayHaveCounted = cut.get(scope) ?? 0;
    if (counted < sent || counted > sent + mayHaveCounted) mismatches.push(`${scope}: counted ${counted}, answered 200 ${sent}, cut ${mayHaveCounted}`);
  }
  for (const server of servers) server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });

  const cutTotal = [...cut.values()].reduce((a, b) => a + b, 0);
  const dropNotices = outputs.flatMap((output) => output().match(/access log: \d+ lines? dropped/g) ?? []);
  const droppedLines = dropNotices.reduce((sum, notice) => sum + Number(/(\d+)/.exec(notice)![1]), 0);
  const peakMb = Math.max(...residents.map((r) => r.stop())) / 1024 / 1024;
  if (peakMb > RESIDENT_LIMIT_MB) failures.push(`a server's resident memory reached ${peakMb.toFixed(0)} MB (limit ${RESIDENT_LIMIT_MB} MB)`);
  const ok = failures.length === 0 && mixed === 0 && mismatches.length === 0;
  const summary = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n}x${s}`).join(' ');
  console.log(
    `soak: ${ok ? 'PASS' : 'FAIL'} ${minutes} min, ${SERVERS} server${SERVERS > 1 ? 's' : ''} on ${store === 'file' ? 'the state folder' : `redis://${store.label}`}, ${requests} requests (${summary}; ${cutTotal} cut by ${kills} kills), ${rebuilds} rebuilds, ` +
      `${corruptions} corrupt builds switched in (${refusedCorrupt} answers refused as corrupt), ${failures.length} failures, ${mixed} wrong or mixed bodies, quota ${mismatches.length ? `wrong for ${mismatches.join('; ')}` : `exact for ${scopes.length} scopes`}`,
  );
  const quantiles = (figures: number[]) => {
    const sorted = [...figures].sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(1);
    return `${sorted.length} answers: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
  };
  console.log(`  stall probe: /healthz every 100 ms, ${quantiles(healthz)}; while attackers were held, ${quantiles(attacked)}`);
  console.log(`  attackers: ${attacks} rounds of 300 connections x 50 unread pipelined requests and 1 x 1,400, 20 CritPt posts of 4 MB and 200 trickling at 10 B/s, 404s with an 8,100-character segment, stdout unread every other round; peak resident memory of a server ${peakMb.toFixed(0)} MB (limit ${RESIDENT_LIMIT_MB})`);
  console.log(`  access log: ${droppedLines} lines dropped while stdout went unread, said in ${dropNotices.length} notices`);
  for (const f of failures.slice(0, 10)) console.log(`  failure: ${f}`);
  process.exit(ok ? 0 : 1);
}

try {
  await main();
} finally {
  for (const server of cleanup.servers) server.kill('SIGKILL');
  if (cleanup.work) rmSync(cleanup.work, { recursive: true, force: true });
}
