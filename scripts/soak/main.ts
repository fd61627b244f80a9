/**
 * The soak's run (scripts/soak.ts says what it does and checks): set up the folders, seed the
 * state, issue the keys, start the servers, run the load beside the rebuilder, corrupter,
 * killer, attackers, key changes and stall probe until the deadline, then judge.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileAdmin, redisAdmin } from '../../src/key-admin/stores.ts';
import { storeLabel } from '../../src/redis/address.ts';
import { ask } from '../../src/redis/sentinel-ask.ts';
import { bundle } from '../bundle.ts';
import { writeScaleKeys, writeScaleWindows } from '../scale-state.ts';
import { Attackers } from './attack.ts';
import { KeyChanges } from './key-changes.ts';
import { Load } from './load.ts';
import { soakOptions, storeFrom, type SoakOptions } from './options.ts';
import { StallProbe } from './probe.ts';
import { SoakServers } from './servers.ts';
import { firstBuild, renameAndRebuild, switchToCorruptCopy } from './snapshot.ts';
import { issueSoakKeys } from './soak-keys.ts';
import { printVerdict, quotaMismatches } from './verdict.ts';
import { startSentinelSet, type SentinelSet } from '../sentinel-set.ts';
import { StoreFaults } from './store-faults.ts';

const REBUILD_EVERY_MS = 30_000;
const KILL_EVERY_MS = 60_000;
/** Corrupt builds are switched in half-way between two rebuilds, so each is replaced by the next rebuild. */
const CORRUPT_EVERY_MS = REBUILD_EVERY_MS;
/** What no client, however hostile, may make a server hold. */
const RESIDENT_LIMIT_MB = 250;

const mb = (path: string) => (statSync(path).size / 1024 / 1024).toFixed(1);

/** Seed the state folder with the scale keys and windows; says what was seeded, for the verdict. */
async function seed(options: SoakOptions, state: string): Promise<string> {
  if (options.store !== 'file') return 'none (the seeding is for the file store only)';
  if (options.seedKeys === 0 && options.seedWindows === 0) return 'none (--keys 0 --windows 0)';
  const t0 = performance.now();
  const parts: string[] = [];
  if (options.seedKeys > 0) {
    writeScaleKeys(state, options.seedKeys);
    parts.push(`${options.seedKeys} keys (keys.json ${mb(join(state, 'keys.json'))} MB)`);
  }
  if (options.seedWindows > 0) {
    await writeScaleWindows(state, options.seedWindows);
    parts.push(`${options.seedWindows} open windows (quota.json ${mb(join(state, 'quota.json'))} MB)`);
  }
  return `${parts.join(' and ')}, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
}

/** What a failure must clean up: the servers running now, a Sentinel set of the soak's own and the work folder. */
export interface SoakCleanup {
  servers: SoakServers | null;
  sentinels: SentinelSet | null;
  work: string | null;
}

/**
 * --store sentinel: a set of the soak's own, as docs/operating.md sets one up (two replicas, an
 * append-only file on each), its URL given to the servers and the keys command from then on.
 */
async function ownSentinels(options: SoakOptions, cleanup: SoakCleanup): Promise<void> {
  if (!options.ownSentinels) return;
  const set = await startSentinelSet({
    replicas: 2,
    downAfterMs: 2000,
    failoverTimeoutMs: 10_000,
    nodeArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
  });
  cleanup.sentinels = set;
  options.storeFlag = set.url;
  options.store = storeFrom(set.url).store;
}

/**
 * The 200s a scope may lose in the failovers: none unless --store-replicas is below the set's
 * replicas (then at most 1%).
 */
async function lossAllowed(options: SoakOptions, own: SentinelSet | null): Promise<(answered: number) => number> {
  if (options.store === 'file' || !options.store.sentinel) return () => 0;
  const { masterName } = options.store.sentinel;
  const replicas = own ? own.nodes.length - 1 : await externalReplicas(options);
  const everyCounted = options.replicas.count >= replicas;
  const held = everyCounted ? 'every 200 must be counted' : "a failover may lose up to 1% of a scope's 200s";
  console.log(
    `soak: on Sentinel, ${replicas} replicas, --store-replicas ${options.replicas.count}: ${held} (${masterName})`,
  );
  return everyCounted ? () => 0 : (answered) => Math.ceil(answered / 100);
}

/** The replicas a given set's first sentinel lists. */
async function externalReplicas(options: SoakOptions): Promise<number> {
  const address = options.store as Exclude<SoakOptions['store'], 'file'>;
  const { sentinels, auth, masterName } = address.sentinel!;
  const [reply] = await ask(sentinels[0]!, address.tls, auth, [['SENTINEL', 'REPLICAS', masterName]], 2000);
  return Array.isArray(reply) ? reply.length : 0;
}

export async function soak(cleanup: SoakCleanup): Promise<boolean> {
  const options = soakOptions();
  const work = mkdtempSync(join(tmpdir(), 'soak-'));
  cleanup.work = work;
  await ownSentinels(options, cleanup);
  const data = join(work, 'data');
  const snapshot = join(work, 'snapshot');
  const state = join(work, 'state');
  await firstBuild(data, snapshot);
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);
  // Before the soak's own keys: they are added to the seeded keys.json, as an operator's would be.
  const seeded = await seed(options, state);

  const providers = JSON.parse(readFileSync(join(data, 'providers.json'), 'utf8')) as { slug: string }[];
  const run = Date.now().toString(36);
  const admin =
    options.store === 'file' ? fileAdmin(state) : await redisAdmin(options.store, undefined, options.replicas);
  const keys = await issueSoakKeys(
    admin,
    providers.map((p) => p.slug),
    run,
  );
  admin.close();

  const servers = new SoakServers({ bundlePath, snapshot, state, store: options.storeFlag });
  cleanup.servers = servers;
  await Promise.all(Array.from({ length: options.servers }, (_, n) => servers.start(n)));
  const firstStartMs = servers.startMs[0]!;

  const failures: string[] = [];
  const load = new Load(servers, options.servers, keys, failures);
  const attackers = new Attackers(servers, options.servers, keys.uploader);
  const probe = new StallProbe(servers, () => attackers.attacking);
  const keyChanges = new KeyChanges(
    servers,
    options.servers,
    ['--state', state, '--store', options.storeFlag],
    run,
    failures,
  );
  const deadline = Date.now() + options.minutes * 60_000;
  const allowed = await lossAllowed(options, cleanup.sentinels);
  const onSentinel = options.store !== 'file' && options.store.sentinel !== undefined;
  const faults = onSentinel
    ? new StoreFaults(storeFaultTarget(options, cleanup.sentinels), servers, options.servers, failures)
    : null;
  faults?.start(deadline);

  let rebuilds = 0;
  // Rebuilds and corrupt copies change the snapshot one at a time, in the order they come.
  let snapshotChanges: Promise<void> = Promise.resolve();
  const changeSnapshot = (change: () => void | Promise<void>) => (snapshotChanges = snapshotChanges.then(change));
  const rebuilder = setInterval(() => {
    const n = ++rebuilds;
    changeSnapshot(async () => {
      const problem = await renameAndRebuild(data, snapshot, n);
      if (problem) failures.push(`rebuild ${n} failed: ${problem.slice(0, 200)}`);
    });
  }, REBUILD_EVERY_MS);
  let corruptions = 0;
  let corrupter: NodeJS.Timeout | undefined;
  const corrupterStart = setTimeout(() => {
    const corrupt = () => changeSnapshot(() => switchToCorruptCopy(snapshot, ++corruptions));
    corrupt();
    corrupter = setInterval(corrupt, CORRUPT_EVERY_MS);
  }, REBUILD_EVERY_MS / 2);
  let killing: Promise<void> = Promise.resolve();
  const killer = setInterval(() => (killing = servers.killAndRestart(servers.kills % options.servers)), KILL_EVERY_MS);
  keyChanges.start();

  await Promise.all([
    probe.run(deadline),
    attackers.run(deadline),
    ...Array.from({ length: options.clients }, (_, n) => load.client(n, deadline)),
  ]);
  for (const log of servers.accessLogs) log.resume();
  clearInterval(rebuilder);
  clearTimeout(corrupterStart);
  clearInterval(corrupter);
  clearInterval(killer);
  await snapshotChanges;
  await faults?.stop();
  await keyChanges.stop();
  await killing;
  while (servers.restarting) await new Promise((r) => setTimeout(r, 100));

  const quota = await quotaMismatches(servers, keys.load, load, {
    leased: options.store === 'file',
    lossAllowed: allowed,
  });
  servers.signalAll('SIGTERM');
  rmSync(work, { recursive: true, force: true });

  const dropNotices = servers.dropNotices();
  const droppedLines = dropNotices.reduce((sum, notice) => sum + Number(/(\d+)/.exec(notice)![1]), 0);
  const peakMb = servers.stopWatching();
  if (peakMb > RESIDENT_LIMIT_MB)
    failures.push(`a server's resident memory reached ${peakMb.toFixed(0)} MB (limit ${RESIDENT_LIMIT_MB} MB)`);
  const ok = failures.length === 0 && load.mixed === 0 && quota.mismatches.length === 0;
  const where = options.store === 'file' ? 'the state folder' : storeLabel(options.store);
  const restarts = servers.startMs.slice(options.servers);
  const servedBy = `${options.servers} server${options.servers > 1 ? 's' : ''} on ${where}`;
  const requests =
    `${load.requests} requests (${load.statusSummary()}; ${load.cutTotal()} cut by ${servers.kills} kills)`;
  const quotaHeld = quota.mismatches.length
    ? `wrong for ${quota.mismatches.join('; ')}`
    : `${quotaRule(options, onSentinel)} for ${quota.scopes} scopes`;
  const restartNote = restarts.length ? `, restarts up to ${Math.max(...restarts).toFixed(0)} ms` : '';
  printVerdict({
    ok,
    headline:
      `${options.minutes} min, ${servedBy}, ${requests}, ${rebuilds} rebuilds, ` +
      `${corruptions} corrupt builds switched in (${load.refusedCorrupt} answers refused as corrupt), ` +
      `${failures.length} failures, ${load.mixed} wrong or mixed bodies, quota ${quotaHeld}`,
    seeded: `${seeded}; the first server listened ${firstStartMs.toFixed(0)} ms after spawn${restartNote}`,
    failovers: faults
      ? `${faults.outcomes.join('; ') || 'none (the run was shorter than the first at 45 s)'}; ` +
        `${quota.delivered} 200s delivered, ${quota.counted} counted, ${quota.lost} lost, ` +
        `${load.unavailableTotal()} answered 503 while a failover lasted`
      : null,
    keyChanges: keyChanges.outcomes,
    healthz: probe.healthz,
    attacked: probe.attacked,
    attackRounds: attackers.rounds,
    peakMb,
    residentLimitMb: RESIDENT_LIMIT_MB,
    droppedLines,
    dropNotices: dropNotices.length,
    failures,
  });
  return ok;
}

function storeFaultTarget(options: SoakOptions, own: SentinelSet | null) {
  const address = options.store as Exclude<SoakOptions['store'], 'file'>;
  return { target: address.sentinel!, tls: address.tls, own };
}

/** What the quota check held the counts to, for the headline. */
function quotaRule(options: SoakOptions, onSentinel: boolean): string {
  if (options.store === 'file') return 'within bounds (served <= counted <= served + cut + a lease a kill)';
  if (!onSentinel) return 'exact';
  return (
    'within bounds (served - the loss the setting allows <= counted <= served + cut + 503s ' +
    'while a failover lasted)'
  );
}
