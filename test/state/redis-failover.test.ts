/**
 * Counting through failovers, against real redis-server and redis-sentinel processes (the lying
 * sentinel is scripts/fake-sentinel.ts): two servers through a manual SENTINEL FAILOVER under
 * load never serve past the quota (default settings: at most 1% over; with --store-replicas
 * equal to the replica count, every 200 counted); a sentinel naming another primary, at an
 * older epoch (counted on the majority, /readyz warns naming it) or a newer one (stopped, /readyz
 * names it); a silent sentinel (the majority followed through a failover); the old primary
 * frozen across a failover and back (never counted on again); sentinels with a password, an
 * ACL user and TLS. The sentinels ask their Redis for INFO every second (SENTINEL DEBUG), so a
 * demoted primary is converted about 9 s after the switch rather than up to 18: the tests wait
 * for that, nothing else changes. Nothing is timed: the waits are hang guards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_LIMITS } from '../../src/quota/scopes.ts';
import { parseSentinelUrl } from '../../src/redis/sentinel-url.ts';
import { SentinelWatch } from '../../src/redis/sentinel-watch.ts';
import { makeCertificates, OPENSSL_INSTALLED } from '../../scripts/certificates.ts';
import { startFakeSentinel } from '../../scripts/fake-sentinel.ts';
import { FailoverLoad, ReadinessWatch } from '../../scripts/failover-load.ts';
import { createKeyOn, outageLines, replicasOnline, serveOn, type LoggedServer } from '../helpers/failover.ts';
import { countIn, manualFailover, promoted, settled, storeCopy } from '../../scripts/sentinel-faults.ts';
import { get } from '../helpers/http.ts';
import { SENTINEL_INSTALLED, skipWithoutSentinel, startSentinels, type SentinelSet } from '../helpers/sentinel.ts';
import { buildFixture } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const root = mkdtempSync(join(tmpdir(), 'redis-failover-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let snapshotDir = '';
const FREE_LIST = '/api/v2/language/models/free';
/** The quota of the load's Commercial key; and the Free limit of the servers facing a liar. */
const QUOTA = 2000;
const FREE_LIMIT = 20;
/** Replicas resync at once after a failover (Redis waits 5 s by default before a full sync). */
const NODE_ARGS = ['--repl-diskless-sync-delay', '0'];

const open: LoggedServer[] = [];
async function serve(set: SentinelSet, options: Parameters<typeof serveOn>[3] = {}): Promise<LoggedServer> {
  if (!snapshotDir) ({ snapshotDir } = await buildFixture(root));
  const started = await serveOn(set, snapshotDir, root, options);
  open.push(started);
  return started;
}
async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map(({ server }) => server.close()));
}

/** Load until the quota is spent, after `during` (a fault) has run with a third of it served. */
async function throughFault(servers: LoggedServer[], key: string, during: () => Promise<void>) {
  const load = new FailoverLoad(servers.map((s) => s.url), key, 8);
  const ready = new ReadinessWatch(servers.map((s) => s.url));
  try {
    await until(() => load.tally.ok >= QUOTA / 3 || load.tally.other.length > 0, 'a third of the quota served');
    await during();
    const limited = load.tally.limited;
    await until(() => load.tally.limited >= limited + 200 || load.tally.other.length > 0, () => `the quota spent (${JSON.stringify({ ...load.tally, unavailableAt: undefined })})`);
  } finally {
    await load.stop();
    await ready.stop();
  }
  return { tally: load.tally, reasons: ready.reasons.flatMap((r) => [...r]) };
}

const NAMES = {
  manual: 'should serve at most the quota plus 1% through a manual failover under load on two servers, stopping while it decides and naming it',
  stale: 'should count on the majority past a sentinel that names another primary at an older epoch, and warn naming it',
  newer: 'should stop counting while a sentinel names another primary at a newer epoch, /readyz naming the disagreement, and resume once it agrees',
  replicas: 'should count every 200 and never pass the quota through a manual failover with --store-replicas equal to the replica count',
  silent: 'should go on counting on the majority while a sentinel is silent, warn naming it, and follow a failover without it',
  frozen: 'should never count on the old primary again when it comes back from a freeze after the failover that replaced it',
  held: 'should not take sentinels that answered in time for silent when its own process was held past their deadline',
  password: 'should ask sentinels that want a password with the URL\'s sentinel_password, and say so when it is wrong',
  acl: 'should follow a failover over TLS to sentinels that want an ACL user, hearing it announced on their events',
};

const manual = suite('two servers through a manual failover');
const quiet = suite('a silent sentinel, a frozen primary');
const credentials = suite('sentinels with credentials and TLS');

if (!SENTINEL_INSTALLED) {
  skipWithoutSentinel(manual, [NAMES.manual, NAMES.stale, NAMES.newer, NAMES.replicas]);
  skipWithoutSentinel(quiet, [NAMES.silent, NAMES.frozen, NAMES.held]);
  skipWithoutSentinel(credentials, [NAMES.password, NAMES.acl]);
} else {
  let set: SentinelSet;
  manual.before(async () => {
    [set] = await Promise.all([startSentinels({ replicas: 2, infoPeriodMs: 1000, nodeArgs: NODE_ARGS }), buildFixture(root).then((b) => (snapshotDir = b.snapshotDir))]);
  });
  manual.after.each(closeAll);
  manual.after(async () => {
    await closeAll();
    await set?.close();
  });

  manual(NAMES.manual, async () => {
    const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'manualco', '--quota', String(QUOTA));
    const servers = [await serve(set), await serve(set)];
    let old = 0;
    let primary = 0;
    const { tally, reasons } = await throughFault(servers, key, async () => {
      old = await manualFailover(set);
      primary = await settled(set, old);
    });
    assert.equal(tally.other, []);
    const counted = await countIn(set, primary, 'manualco');
    assert.ok(tally.ok <= QUOTA * 1.01, `${tally.ok} served, quota ${QUOTA}`);
    assert.ok(tally.ok <= counted + QUOTA / 100, `${tally.ok} served, ${counted} counted`);
    assert.ok(tally.unavailable > 0, 'counting stopped while the failover decided');
    assert.ok(reasons.some((r) => /is not used: a failover of benchprimary is under way at sentinel/.test(r)), reasons.join('\n'));
    for (const { lines } of servers) {
      const { began, ended } = outageLines(lines);
      assert.ok(began.length >= 1 && began.length === ended.length, lines.join('\n'));
      assert.match(ended.at(-1)!, new RegExp(`\\(primary 127\\.0\\.0\\.1:${primary}\\) again$`));
    }
  });

  /** One server lists the fake first, the other the real sentinels; a Free key of limit 20 loaded on both. */
  async function facingALiar(epoch: number, org: string) {
    const key = await createKeyOn(set, '--tier', 'free', '--org', org);
    // What an old primary behind a partition holds.
    const copy = await storeCopy(set);
    const fake = await startFakeSentinel({ masterName: set.name, primary: { host: '127.0.0.1', port: copy.port }, epoch });
    const real = set.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
    const limits = { ...DEFAULT_LIMITS, free: FREE_LIMIT };
    const lied = await serve(set, { url: `redis-sentinel://127.0.0.1:${fake.port},${real}/${set.name}/0`, limits });
    const honest = await serve(set, { limits });
    return { org, key, copy, fake, lied, honest, close: async () => Promise.all([fake.close(), copy.close()]) };
  }

  /** Both servers loaded until the Free quota is spent: exactly the limit served, none of it counted on the copy; the tally. */
  async function spendFreeQuota(liar: Awaited<ReturnType<typeof facingALiar>>) {
    const load = new FailoverLoad([liar.lied.url, liar.honest.url], liar.key, 4);
    await until(() => load.tally.limited >= 100 || load.tally.other.length > 0, 'the Free quota spent');
    await load.stop();
    assert.equal(load.tally.other, []);
    assert.is(load.tally.ok, FREE_LIMIT, 'the quota, counted on one Redis');
    assert.is(await countIn(set, liar.copy.port, liar.org), 0, 'nothing counted on the copy');
    return load.tally;
  }

  manual(NAMES.stale, async () => {
    // The manual failover above raised the real sentinels' epoch to 1: the liar's 0 is older.
    const liar = await facingALiar(0, 'staleco');
    try {
      await spendFreeQuota(liar);
      const ready = await get(liar.lied.url, '/readyz');
      assert.is(ready.status, 200);
      const warning = (ready.json().warnings as string[]).find((w) => w.includes('sentinels name'));
      assert.match(String(warning), new RegExp(`^3 of 4 sentinels name 127\\.0\\.0\\.1:\\d+ as primary of benchprimary \\(epoch 1\\), counted on; the others disagree or did not answer: 127\\.0\\.0\\.1:${liar.fake.port} names 127\\.0\\.0\\.1:${liar.copy.port} \\(epoch 0\\)$`));
      assert.is(liar.lied.lines.filter((l) => l.startsWith('warning: ') && l.includes('sentinels name')).length, 1, liar.lied.lines.join('\n'));
    } finally {
      await liar.close();
    }
  });

  manual(NAMES.newer, async () => {
    const liar = await facingALiar(1000, 'newerco');
    try {
      assert.ok((await spendFreeQuota(liar)).unavailable > 0, 'the lied-to server answered 503');
      const ready = await get(liar.lied.url, '/readyz');
      assert.is(ready.status, 503);
      assert.match(String(ready.json().details.reason), new RegExp(`is not used: 127\\.0\\.0\\.1:${liar.copy.port} is named at the newest epoch 1000 by 1 of 4 sentinels, fewer than a majority \\(3\\) \\(sentinels: 127\\.0\\.0\\.1:${liar.fake.port} names 127\\.0\\.0\\.1:${liar.copy.port} \\(epoch 1000\\); 127\\.0\\.0\\.1:\\d+ names 127\\.0\\.0\\.1:\\d+ \\(epoch 1\\)`));
      assert.is((await get(liar.honest.url, '/readyz')).status, 200);
      // The liar comes round: the majority's primary at the majority's epoch.
      liar.fake.says = { masterName: set.name, primary: { host: '127.0.0.1', port: (await set.primary()).port }, epoch: 1 };
      await until(async () => (await get(liar.lied.url, '/readyz')).status === 200, 'ready once it agrees');
      const { began, ended } = outageLines(liar.lied.lines);
      assert.is(began.length, 1, liar.lied.lines.join('\n'));
      assert.is(ended.length, 1, liar.lied.lines.join('\n'));
    } finally {
      await liar.close();
    }
  });

  manual(NAMES.replicas, async () => {
    await replicasOnline(set, 2);
    const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'everyco', '--quota', String(QUOTA), '--store-replicas', '2');
    const servers = [await serve(set, { storeReplicas: { count: 2, timeoutMs: 500 } }), await serve(set, { storeReplicas: { count: 2, timeoutMs: 500 } })];
    let primary = 0;
    const { tally } = await throughFault(servers, key, async () => {
      primary = await settled(set, await manualFailover(set));
    });
    assert.equal(tally.other, []);
    const counted = await countIn(set, primary, 'everyco');
    assert.ok(tally.ok <= counted, `${tally.ok} served > ${counted} counted: a 200 was lost`);
    assert.ok(tally.ok <= QUOTA, `${tally.ok} served > the quota of ${QUOTA}`);
    assert.is(counted, QUOTA);
  });

  let quietSet: SentinelSet;
  quiet.before(async () => {
    [quietSet] = await Promise.all([startSentinels({ replicas: 1, infoPeriodMs: 1000, nodeArgs: NODE_ARGS }), snapshotDir ? null : buildFixture(root).then((b) => (snapshotDir = b.snapshotDir))]);
  });
  quiet.after.each(closeAll);
  quiet.after(async () => {
    await closeAll();
    await quietSet?.close();
  });

  quiet(NAMES.silent, async () => {
    const set = quietSet;
    const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'silentco');
    const { url, lines } = await serve(set);
    const silent = set.sentinels[2]!;
    silent.kill('SIGSTOP');
    try {
      const warned = () => get(url, '/readyz').then((r) => (r.json().warnings as string[]).find((w) => w.includes('sentinels name')));
      await until(async () => /no answer within 1000 ms$/.test(String(await warned())), 'a warning names the silent sentinel');
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      assert.match(String(await warned()), new RegExp(`^2 of 3 sentinels name .* the others disagree or did not answer: 127\\.0\\.0\\.1:${set.sentinelPorts[2]} no answer within 1000 ms$`));
      const primary = await promoted(set, await manualFailover(set));
      await until(async () => (await get(url, FREE_LIST, key)).status === 200 && (await countIn(set, primary, 'silentco')) > 0, () => `served and counted on the promoted replica; the server's log:\n${lines.join('\n')}`);
    } finally {
      silent.kill('SIGCONT');
    }
    await until(async () => (await get(url, '/readyz')).json().warnings.length === 0 || !(await get(url, '/readyz')).json().warnings.some((w: string) => w.includes('sentinels name')), 'the warning ends');
    assert.ok(lines.some((l) => l.startsWith('no longer: ') && l.includes('sentinels name')), lines.join('\n'));
  });

  quiet(NAMES.frozen, async () => {
    const set = quietSet;
    // The failover above done: the old primary a replica again, for the next failover to promote.
    await replicasOnline(set, 1);
    const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'frozenco', '--quota', String(QUOTA));
    const servers = [await serve(set), await serve(set)];
    let old = 0;
    let primary = 0;
    const { tally } = await throughFault(servers, key, async () => {
      old = (await set.primary()).port;
      // Every client of the primary waits, the sentinels' too: it is down for them after a second.
      await set.askNode(old, 'CLIENT', 'PAUSE', 4000, 'ALL');
      await until(async () => (await set.primary().catch(() => null))?.port !== old, 'a replica promoted while the primary is frozen', undefined, 100);
      // Back, it says it is the primary until a sentinel converts it: the load goes on meanwhile.
      await until(async () => ((await set.askNode(old, 'ROLE')) as string[])[0] === 'master', 'the old primary answers again');
      primary = await settled(set, old);
    });
    assert.equal(tally.other, []);
    const counted = await countIn(set, primary, 'frozenco');
    assert.ok(tally.ok <= counted + QUOTA / 100, `${tally.ok} served, ${counted} counted`);
    assert.ok(tally.ok <= QUOTA * 1.01, `${tally.ok} served, quota ${QUOTA}`);
    for (const { lines } of servers) assert.not.ok(lines.some((l) => new RegExp(`connected to .*\\(primary 127\\.0\\.0\\.1:${old}\\) again`).test(l)), `reconnected to the old primary:\n${lines.join('\n')}`);
  });

  quiet(NAMES.held, async () => {
    const address = parseSentinelUrl(quietSet.url);
    // A server's deadline (src/state-store.ts): each sentinel has all of it to answer once asked.
    const watch = new SentinelWatch({ target: address.sentinel!, tls: null, timeoutMs: 1000 });
    const verdicts: unknown[] = [];
    watch.follow((verdict) => verdicts.push(verdict));
    try {
      // A round asked, then the process held past the deadline before it could go on.
      const found = watch.find();
      const until = performance.now() + 1500;
      while (performance.now() < until);
      assert.is((await found).port, (await quietSet.primary()).port);
      assert.is(verdicts.length, 1);
      assert.not.type(verdicts[0], 'string');
    } finally {
      watch.close();
    }
  });

  credentials(NAMES.password, async () => {
    const set = await startSentinels({ replicas: 1, sentinelAuth: { username: null, password: 's3ntinel' } });
    try {
      if (!snapshotDir) ({ snapshotDir } = await buildFixture(root));
      const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'passco');
      const { url } = await serve(set);
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      assert.is(await countIn(set, (await set.primary()).port, 'passco'), 1);
      const wrong = await serve(set, { url: set.url.replace('sentinel_password=s3ntinel', 'sentinel_password=wrong') });
      assert.is((await get(wrong.url, FREE_LIST, key)).status, 503);
      const ready = await get(wrong.url, '/readyz');
      assert.is(ready.status, 503);
      assert.match(String(ready.json().details.reason), /only 0 of 3 sentinels answered.*127\.0\.0\.1:\d+ login refused: WRONGPASS/);
    } finally {
      await closeAll();
      await set.close();
    }
  });

  credentials(NAMES.acl, async () => {
    if (!OPENSSL_INSTALLED) {
      console.log('skipped the TLS half: openssl is not installed');
      return;
    }
    const certs = makeCertificates(join(root, 'certificates'));
    const set = await startSentinels({ replicas: 1, tls: certs, sentinelAuth: { username: 'bda-watch', password: 'w4tch' }, infoPeriodMs: 1000 });
    try {
      if (!snapshotDir) ({ snapshotDir } = await buildFixture(root));
      assert.match(set.url, /^rediss-sentinel:\/\/.*\?sentinel_username=bda-watch&sentinel_password=w4tch$/);
      const key = await createKeyOn(set, '--tier', 'commercial', '--org', 'aclco');
      // Rounds far apart: what stops counting at once is the event, not a round.
      const { url, lines } = await serve(set, { probeMs: 60_000 });
      assert.is((await get(url, FREE_LIST, key)).status, 200);
      const primary = await promoted(set, await manualFailover(set));
      await until(async () => (await get(url, FREE_LIST, key)).status === 200 && (await countIn(set, primary, 'aclco')) > 0, () => `served and counted on the promoted replica; the server's log:\n${lines.join('\n')}`);
      assert.ok(lines.some((l) => /^redis: .* not used \(a failover of benchprimary is under way at sentinel .*announced \+try-failover/.test(l)), lines.join('\n'));
    } finally {
      await closeAll();
      await set.close();
      certs.remove();
    }
  });
}

manual.run();
quiet.run();
credentials.run();
