/**
 * The admin listener on a large state folder: `npx tsx scripts/bench/admin-scale.ts [--keys
 * 100000] [--revokes 100] [--at-once 10] [--lists 3] [--only
 * revokes,list,list_all,get,page,search,deep,compaction]`. The bundled server (`node server.mjs`, as operators run
 * it, its collector sized by src/lib/heap.ts) runs on a build of the small fixture and a state
 * folder of KEYS keys (scripts/scale-state.ts) with its admin listener on; a server of its own for
 * each group below, so that the group's peak is the server's whole life's (start and that group). A
 * probe process of its own (healthz-probe.ts) asks `/healthz` and a Commercial key's data request
 * every 5 ms. One JSON line per figure group:
 * - start: ms from spawn to `listening on`, resident memory then and its peak (VmHWM) a second later;
 * - quiet: the probe's answers with nothing else going on, the baseline of the group that follows;
 * - revokes: REVOKES admin revokes (`DELETE /admin/api/keys/ID`, keys spread through the file),
 *   AT_ONCE at a time: how long they took, each one's answer time, the probe's longest and median
 *   answer meanwhile (how long a request was held), and the server's peak resident memory;
 * - list: LISTS lists of one org's keys (`GET /admin/api/keys?org=...`, every key read in
 *   slices between turns), one after the other: the same figures, and (`after_first`) the same for
 *   the lists after the first;
 * - list_all: one list of every key (`GET /admin/api/keys`): the same figures;
 * - get: LISTS reads of one key with its usage (`GET /admin/api/keys/ID`, a key half-way through
 *   the file): the same figures;
 * - page, search, deep: LISTS pages of the key-management page's table, one after the other (`GET
 *   /admin/api/keys?page=1&per_page=50&sort=name`, the same with `q=org7` found in some 100 keys'
 *   organisations, and page 1,000 sorted by last use, newest first): the same figures;
 * - compaction: on a copy of the folder given a change line for every key (each key's CritPt
 *   approval turned over), one admin change, which compacts the file (src/keys/file-compact.ts):
 *   the file before and after, the change's answer time, the probe meanwhile, the server's peak.
 * With `--store redis`, the same keys carried into a redis-server of the bench's own (keys migrate)
 * and every server on it (its admin listener holds every key and follows the changes:
 * src/keys/redis-mirror.ts); compaction is the state folder's alone.
 * The admin list's stall alone was scripts/bench/admin-list-stall.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { residentBytes } from '../attackers.ts';
import { freePort, ROOT, spawnServer, stopProcess } from '../processes.ts';
import { scaleKeyId, writeScaleKeys } from '../scale-state.ts';
import { smallStage } from './stage.ts';
import { startRedisProcess } from '../redis-server.ts';
import { readKeysFile } from '../../src/keys/file-read.ts';
import { recordLine } from '../../src/keys/file-format.ts';

const USAGE = `usage: npx tsx scripts/bench/admin-scale.ts [--keys N] [--revokes N] [--at-once N] [--lists N]

  --keys N      keys seeded into the state folder (default 100000)
  --revokes N   admin revokes (default 100)
  --at-once N   revokes under way at once (default 10)
  --lists N     admin lists of every key, one after the other (default 3)
  --only NAMES  only these groups, comma-separated (revokes, list, list_all, get, page, search, deep,
                compaction)
  --store S     file (default) or redis`;
const { values } = flagsOrExit(
  {
    options: {
      keys: { type: 'string', default: '100000' },
      revokes: { type: 'string', default: '100' },
      'at-once': { type: 'string', default: '10' },
      lists: { type: 'string', default: '3' },
      only: { type: 'string', default: 'revokes,list,list_all,get,page,search,deep,compaction' },
      store: { type: 'string', default: 'file' },
      help: { type: 'boolean', short: 'h' },
    },
  },
  USAGE,
);
const seedKeys = Number(values.keys);
const revokes = Number(values.revokes);
const atOnce = Number(values['at-once']);
const lists = Number(values.lists);
const only = new Set(values.only.split(','));
const onRedis = values.store === 'redis';
if (onRedis) only.delete('compaction');
/** Where the keys are for the keys command and the servers: the state folder, or the bench's Redis. */
let store: string[] = [];

const PROBE_EVERY_MS = 5;
const QUIET_MS = 2000;
/** Long enough for the probe's lines about a span's last moments to reach the bench. */
const PROBE_LAG_MS = 500;
const KEYED_PATH = '/api/v2/language/models/free';

const mb = (bytes: number | null) => (bytes === null ? null : Math.round(bytes / 1024 / 1024));
const round = (ms: number) => Math.round(ms * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
/** max and median of some answer times, rounded, with how many there were. */
const spread = (values: number[]) => ({
  max_ms: round(Math.max(0, ...values)),
  median_ms: round(median(values)),
  answers: values.length,
});

/** What must not outlive the bench when it fails: the server and the probe, and the bench's Redis. */
const running: ChildProcess[] = [];
const closing: (() => Promise<void>)[] = [];

/** The probe process: its answers as they come, and those that ended in a span. */
function startProbe(port: number, key: string) {
  const samples: { at: number; ms: number; keyed: boolean; status: number }[] = [];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/bench/healthz-probe.ts', String(port), String(PROBE_EVERY_MS), KEYED_PATH, key],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  running.push(child);
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [at, ms, label, status] = line.split(' ');
    samples.push({ at: Number(at), ms: Number(ms), keyed: label === 'keyed', status: Number(status ?? 200) });
  });
  return {
    async ready(): Promise<void> {
      while (!samples.some((s) => s.keyed) || !samples.some((s) => !s.keyed)) await sleep(20);
    },
    /** The answers of a span: an answer that ended after the span began and started before it ended. */
    during(from: number, to: number) {
      const inSpan = samples.filter((s) => s.at >= from && s.at - s.ms <= to);
      const keyed = inSpan.filter((s) => s.keyed);
      const refused = keyed.filter((s) => s.status !== 200).length;
      return {
        healthz: spread(inSpan.filter((s) => !s.keyed).map((s) => s.ms)),
        keyed: { ...spread(keyed.map((s) => s.ms)), not_200: refused },
      };
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** The bundled keys command on the folder (or the bench's Redis); its stdout. */
function keysCommand(work: string, state: string, ...args: string[]): string {
  const where = store.length > 0 && args[0] !== 'migrate' ? store : ['--state', state];
  const done = spawnSync(process.execPath, [join(work, 'keys.mjs'), ...args, ...where], { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`keys ${args.join(' ')} exited ${done.status}: ${done.stderr}`);
  return done.stdout;
}

/** `n` seeded keys, active ones (every tenth is seeded revoked), spread through the file. */
function revokedIds(n: number): string[] {
  const ids: string[] = [];
  const step = Math.max(1, Math.floor(seedKeys / n));
  for (let i = 0; ids.length < n && i < seedKeys; i += step) ids.push(scaleKeyId(i % 10 === 9 ? i - 1 : i));
  return ids;
}

/**
 * The bundled server on the folder with its admin listener, its start's figures printed, and the
 * probe on it with a quiet span's baseline.
 */
async function startMeasured(
  work: string,
  snapshot: string,
  state: string,
  adminPort: number,
  probeKey: string,
  before: string,
) {
  const spawned = performance.now();
  const server = await spawnServer(
    ['--port', '0', '--admin-port', String(adminPort), '--snapshot', snapshot, '--state', state, ...store, '--quiet'],
    [join(work, 'server.mjs')],
    60_000,
  );
  const listeningMs = performance.now() - spawned;
  running.push(server.child);
  const pid = server.child.pid!;
  const rssListening = residentBytes(pid);
  await sleep(1000);
  console.log(
    JSON.stringify({
      group: 'start',
      before,
      keys: seedKeys,
      listening_ms: Math.round(listeningMs),
      rss_listening_mb: mb(rssListening),
      rss_peak_mb: mb(residentBytes(pid, 'VmHWM')),
    }),
  );
  const probe = startProbe(server.port, probeKey);
  await probe.ready();
  const from = Date.now();
  await sleep(QUIET_MS);
  console.log(JSON.stringify({ group: 'quiet', before, ...probe.during(from, Date.now()) }));
  return {
    pid,
    probe,
    async stop(): Promise<void> {
      probe.stop();
      await stopProcess(server.child);
    },
  };
}

async function main(work: string): Promise<void> {
  const snapshot = await smallStage(work);
  const state = join(work, 'state');
  writeScaleKeys(state, seedKeys);
  if (onRedis) {
    const redis = await startRedisProcess((port, dir) => ['--port', String(port), '--dir', dir, '--save', ''], 10_000);
    closing.push(() => redis.close());
    const url = `redis://127.0.0.1:${redis.port}/0`;
    keysCommand(work, state, 'migrate', '--store', url);
    store = ['--store', url];
  }
  const token = /^bdat_\S+$/m.exec(keysCommand(work, state, 'admin-token', 'create', '--name', 'bench'))?.[0];
  if (!token) throw new Error('no admin token');
  // A Commercial key with room for every probe request: each is authenticated and counted.
  const probeKey = (
    JSON.parse(
      keysCommand(
        work,
        state,
        'create',
        '--tier',
        'commercial',
        '--org',
        'bench',
        '--user',
        'probe',
        '--quota',
        '100000000',
        '--json',
      ),
    ) as { key: string }
  ).key;
  const adminPort = await freePort();
  const admin = (method: string, path: string) =>
    fetch(`http://127.0.0.1:${adminPort}/admin/api${path}`, { method, headers: { authorization: `Bearer ${token}` } });

  // Each group on a server of its own, so that its peak is the server's whole life's: start and that group.
  if (only.has('revokes')) await revokesGroup();
  if (only.has('list')) await listGroup('list', '/keys?org=org1', lists);
  if (only.has('list_all')) await listGroup('list_all', '/keys', 1);
  // Half-way through the file, active (not seeded revoked, nor one of the revokes): its usage is read too.
  if (only.has('get')) await listGroup('get', `/keys/${scaleKeyId(Math.floor(seedKeys / 2) + 1)}`, lists);
  if (only.has('page')) await listGroup('page', '/keys?page=1&per_page=50&sort=name', lists);
  if (only.has('search')) await listGroup('search', '/keys?q=org7&page=1&per_page=50', lists);
  if (only.has('deep')) await listGroup('deep', '/keys?page=1000&per_page=50&sort=last_used&order=desc', lists);
  if (only.has('compaction')) await compactionGroup();

  /** One admin change on a copy of the folder with a change line for every key: the change that compacts it. */
  async function compactionGroup(): Promise<void> {
    const copy = join(work, 'state-compaction');
    cpSync(state, copy, { recursive: true });
    const path = join(copy, 'keys.json');
    const records = readKeysFile(path)!.records;
    for (let i = 0; i < records.length; i += 10_000)
      appendFileSync(
        path,
        records
          .slice(i, i + 10_000)
          .map((r) => recordLine({ ...r, critpt: !r.critpt }))
          .join(''),
      );
    const bytesBefore = statSync(path).size;
    const server = await startMeasured(work, snapshot, copy, adminPort, probeKey, 'compaction');
    const from = Date.now();
    const t = performance.now();
    const answer = await admin('PUT', `/keys/${scaleKeyId(2)}/grants/capstan-serve`);
    const answerMs = performance.now() - t;
    if (answer.status !== 200) throw new Error(`the change answered ${answer.status} ${await answer.text()}`);
    const to = Date.now();
    await sleep(PROBE_LAG_MS);
    const compacted = readFileSync(path, 'utf8');
    const header = JSON.parse(compacted.slice(0, compacted.indexOf('\n'))) as { records: number };
    console.log(
      JSON.stringify({
        group: 'compaction',
        lines_before: records.length * 2 + 1,
        mb_before: +(bytesBefore / 1e6).toFixed(1),
        records_after: header.records,
        mb_after: +(compacted.length / 1e6).toFixed(1),
        answer_ms: Math.round(answerMs),
        ...server.probe.during(from, to),
        rss_peak_mb: mb(residentBytes(server.pid, 'VmHWM')),
      }),
    );
    await server.stop();
  }

  /** REVOKES admin revokes, AT_ONCE at a time: how long they took, the probe meanwhile, the server's peak. */
  async function revokesGroup(): Promise<void> {
    const server = await startMeasured(work, snapshot, state, adminPort, probeKey, 'revokes');
    const ids = revokedIds(revokes);
    const answerMs: number[] = [];
    const from = Date.now();
    const t0 = performance.now();
    const workers = Array.from({ length: atOnce }, async (_, w) => {
      for (let i = w; i < ids.length; i += atOnce) {
        const t = performance.now();
        const answer = await admin('DELETE', `/keys/${ids[i]}`);
        const body = (await answer.json()) as { changed?: boolean };
        answerMs.push(performance.now() - t);
        if (answer.status !== 200 || body.changed !== true)
          throw new Error(`revoke of ${ids[i]} answered ${answer.status} ${JSON.stringify(body)}`);
      }
    });
    await Promise.all(workers);
    const revokesMs = performance.now() - t0;
    const to = Date.now();
    await sleep(PROBE_LAG_MS);
    console.log(
      JSON.stringify({
        group: 'revokes',
        revokes: ids.length,
        at_once: atOnce,
        total_ms: Math.round(revokesMs),
        answer: spread(answerMs),
        ...server.probe.during(from, to),
        rss_peak_mb: mb(residentBytes(server.pid, 'VmHWM')),
      }),
    );
    await server.stop();
  }

  /**
   * `times` lists one after the other on a server of their own: how long each took, the probe
   * meanwhile, the server's peak.
   */
  async function listGroup(group: string, path: string, times: number): Promise<void> {
    const server = await startMeasured(work, snapshot, state, adminPort, probeKey, group);
    const listMs: number[] = [];
    let records = 0;
    const from = Date.now();
    let second = from;
    for (let i = 0; i < times; i++) {
      if (i === 1) second = Date.now();
      const t = performance.now();
      const list = await admin('GET', path);
      const body = (await list.json()) as { data?: unknown[]; usage?: unknown[] };
      records = body.data?.length ?? (body.usage ? 1 : 0);
      listMs.push(performance.now() - t);
      if (list.status !== 200) throw new Error(`admin list answered ${list.status}`);
    }
    const to = Date.now();
    await sleep(PROBE_LAG_MS);
    console.log(
      JSON.stringify({
        group,
        path,
        lists: times,
        records,
        answer: spread(listMs),
        ...server.probe.during(from, to),
        // On Redis the first view reads every key (src/keys/redis-mirror.ts): the views after it alone.
        ...(times > 1 ? { after_first: { answer: spread(listMs.slice(1)), ...server.probe.during(second, to) } } : {}),
        rss_peak_mb: mb(residentBytes(server.pid, 'VmHWM')),
      }),
    );
    await server.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'bda-admin-scale-'));
try {
  await main(work);
} finally {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const close of closing) await close();
  rmSync(work, { recursive: true, force: true });
}
