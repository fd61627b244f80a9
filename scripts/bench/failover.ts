/**
 * `npx tsx scripts/bench/failover.ts [--baseline DIR] [--clients N] [--quota N] [--only NAME,...]`:
 * what a Sentinel failover does to the counts, as an operator would try it. For each scenario a
 * fresh set (one primary, two replicas, three sentinels, down-after 2 s; scripts/sentinel-set.ts)
 * and two bundled servers on it, loaded by `--clients` clients (default 24) with one Commercial
 * key of quota `--quota` (default 15,000) until its quota is spent; a third of the way the fault:
 *
 *   manual, manual-replicas-1, manual-replicas-2   SENTINEL FAILOVER, with --store-replicas 0, 1, 2
 *   kill                                           the primary killed (SIGKILL)
 *   freeze                                         the primary frozen 6 s (CLIENT PAUSE ALL) across a failover
 *   liar-stale, liar-newer                         a fake sentinel listed first on one server, naming another
 *                                                  Redis holding a copy of the store, at an older or a newer
 *                                                  epoch than the real ones' (a Free key of limit 20, no fault)
 *
 * and then: 200s delivered, counted (the window in the primary the sentinels name once all is
 * settled), uncounted, over the quota, the 503s and the window they came in (first to last), and
 * how long each server's /readyz said not ready. With `--baseline DIR` an earlier checkout (with
 * its node_modules) is bundled and built by its own code and run through the same scenarios,
 * alternating with this one, so before and after are measured in one run. Not part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { run as keysCommand } from '../keys.ts';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { startFakeSentinel } from '../fake-sentinel.ts';
import { ROOT, spawnServer, stopProcess, type ServerProcess } from '../processes.ts';
import type { RedisProcess } from '../redis-server.ts';
import { countIn, manualFailover, settled, storeCopy } from '../sentinel-faults.ts';
import { SENTINEL_INSTALLED, startSentinelSet, waitFor, type SentinelSet } from '../sentinel-set.ts';
import { FailoverLoad, ReadinessWatch, unavailableWindowMs } from '../failover-load.ts';
import { smallStage } from './stage.ts';

const USAGE = `usage: npx tsx scripts/bench/failover.ts [--baseline DIR] [--clients N] [--quota N] [--only NAME,...]

  --baseline DIR  an earlier checkout (npm install done there), run through the same scenarios
  --clients N     concurrent clients (default 24)
  --quota N       the Commercial key's quota (default 15000)
  --only NAMES    some scenarios: manual, manual-replicas-1, manual-replicas-2, kill, freeze, liar-stale, liar-newer`;

const GUARD_MS = 120_000;
/** Two replicas, down-after 2 s, each Redis keeping an append-only file as docs/operating.md advises. */
const SET_OPTIONS = {
  replicas: 2,
  downAfterMs: 2000,
  failoverTimeoutMs: 10_000,
  guardMs: GUARD_MS,
  nodeArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
};
const FREE_LIMIT = 20;

interface Variant {
  label: string;
  bundlePath: string;
  snapshot: string;
}

interface Scenario {
  name: string;
  fault: 'manual' | 'kill' | 'freeze' | 'liar';
  /** --store-replicas. */
  replicas: number;
  /** For a liar: the epoch it claims, relative to the real sentinels'. */
  liarEpoch?: 'older' | 'newer';
}

const SCENARIOS: Scenario[] = [
  { name: 'manual', fault: 'manual', replicas: 0 },
  { name: 'manual-replicas-1', fault: 'manual', replicas: 1 },
  { name: 'manual-replicas-2', fault: 'manual', replicas: 2 },
  { name: 'kill', fault: 'kill', replicas: 0 },
  { name: 'freeze', fault: 'freeze', replicas: 0 },
  { name: 'liar-stale', fault: 'liar', replicas: 0, liarEpoch: 'older' },
  { name: 'liar-newer', fault: 'liar', replicas: 0, liarEpoch: 'newer' },
];

interface Row {
  scenario: string;
  variant: string;
  delivered: number;
  counted: number;
  quota: number;
  unavailable: number;
  windowS: number;
  notReadyS: number[];
  other: number;
  note: string;
}

async function createKey(url: string, args: string[]): Promise<string> {
  let out = '';
  const status = await keysCommand(['create', ...args, '--json', '--store', url], {
    out: (text) => (out += text),
    err: (text) => (out += text),
  });
  if (status !== 0) throw new Error(`keys create failed: ${out}`);
  return (JSON.parse(out) as { key: string }).key;
}

async function startServers(variant: Variant, urls: string[], extra: string[], work: string): Promise<ServerProcess[]> {
  return Promise.all(
    urls.map((url, n) => {
      const state = mkdtempSync(join(work, `state-${n}-`));
      return spawnServer(
        ['--port', '0', '--snapshot', variant.snapshot, '--state', state, '--store', url, '--quiet', ...extra],
        [variant.bundlePath],
        30_000,
      );
    }),
  );
}

async function fault(set: SentinelSet, scenario: Scenario): Promise<number> {
  const old = (await set.primary()).port;
  const node = set.nodes.find((n) => n.port === old)!;
  if (scenario.fault === 'manual') await manualFailover(set);
  else if (scenario.fault === 'kill') await node.stop('SIGKILL');
  else void set.askNode(old, 'CLIENT', 'PAUSE', 6000, 'ALL');
  return old;
}

async function faultScenario(
  variant: Variant,
  scenario: Scenario,
  clients: number,
  quota: number,
  work: string,
): Promise<Row> {
  const set = await startSentinelSet(SET_OPTIONS);
  const servers: ServerProcess[] = [];
  try {
    const org = `fo${Date.now().toString(36)}`;
    const key = await createKey(set.url, ['--tier', 'commercial', '--org', org, '--quota', String(quota)]);
    servers.push(
      ...(await startServers(variant, [set.url, set.url], ['--store-replicas', String(scenario.replicas)], work)),
    );
    const urls = servers.map((s) => s.url);
    const load = new FailoverLoad(urls, key, clients);
    const ready = new ReadinessWatch(urls);
    let primary = 0;
    try {
      await waitFor(
        () => load.tally.ok >= quota / 3 || load.tally.other.length > 100,
        'a third of the quota served',
        GUARD_MS,
      );
      // Until every count the old primary took that its successor lacks is gone (it replicates
      // from the new primary), and the quota is spent there: all the 200s one window gives.
      primary = await settled(set, await fault(set, scenario));
      await quotaSpent(load, 1000, 90_000);
    } finally {
      await load.stop();
      await ready.stop();
    }
    return { ...rowOf(scenario, variant, load, ready, await countIn(set, primary, org), quota), note: said(ready, 3) };
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.child)));
    await set.close();
  }
}

/**
 * A fake sentinel listed first on one server, naming a copy of the store at another epoch; the
 * other server lists the real ones.
 */
async function liarScenario(variant: Variant, scenario: Scenario, clients: number, work: string): Promise<Row> {
  const set = await startSentinelSet(SET_OPTIONS);
  const servers: ServerProcess[] = [];
  let copy: RedisProcess | null = null;
  try {
    // One failover first, so the real sentinels are at epoch 1 and an older view exists.
    const primary = await settled(set, await manualFailover(set));
    const org = `liar${Date.now().toString(36)}`;
    const key = await createKey(set.url, ['--tier', 'free', '--org', org]);
    // What an old primary behind a partition keeps: the store, cut loose.
    copy = await storeCopy(set);
    const fake = await startFakeSentinel({
      masterName: set.name,
      primary: { host: '127.0.0.1', port: copy.port },
      epoch: scenario.liarEpoch === 'newer' ? 1000 : 0,
    });
    try {
      const real = set.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
      const liarUrl = `redis-sentinel://127.0.0.1:${fake.port},${real}/${set.name}/0`;
      servers.push(...(await startServers(variant, [liarUrl, set.url], ['--quota-free', String(FREE_LIMIT)], work)));
      const urls = servers.map((s) => s.url);
      const load = new FailoverLoad(urls, key, clients);
      const ready = new ReadinessWatch(urls);
      try {
        await quotaSpent(load, 2000, 15_000);
      } finally {
        await load.stop();
        await ready.stop();
      }
      const inCopy = await countIn(set, copy.port, org);
      const row = rowOf(scenario, variant, load, ready, await countIn(set, primary, org), FREE_LIMIT);
      return { ...row, note: `counted in the copy: ${inCopy}; ${said(ready, 2)}` };
    } finally {
      await fake.close();
    }
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.child)));
    await copy?.close();
    await set.close();
  }
}

function stageBaseline(dir: string, work: string): Variant {
  const checkout = resolve(dir);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: checkout, encoding: 'utf8' }).trim();
  execFileSync('npm', ['run', '-s', 'bundle'], { cwd: checkout, stdio: 'ignore' });
  const snapshot = join(work, 'baseline-snapshot');
  execFileSync(
    'npm',
    ['run', '-s', 'build', '--', '--data', join(ROOT, 'test/fixtures/sample-small'), '--out', snapshot, '--quiet'],
    { cwd: checkout, stdio: 'ignore' },
  );
  return { label: commit, bundlePath: join(checkout, 'dist', 'server.mjs'), snapshot };
}

/** Until `more` 429s than now have come (the quota spent), or `capMs` have passed. */
async function quotaSpent(load: FailoverLoad, more: number, capMs: number): Promise<void> {
  const limited = load.tally.limited + more;
  const deadline = performance.now() + capMs;
  await waitFor(() => load.tally.limited >= limited || performance.now() > deadline, 'the quota spent', GUARD_MS, 50);
}

/** A scenario's row from its load, its readiness watch and what was counted (the note added by the caller). */
function rowOf(
  scenario: Scenario,
  variant: Variant,
  load: FailoverLoad,
  ready: ReadinessWatch,
  counted: number,
  quota: number,
): Omit<Row, 'note'> {
  const { tally } = load;
  return {
    scenario: scenario.name,
    variant: variant.label,
    delivered: tally.ok,
    counted,
    quota,
    unavailable: tally.unavailable,
    windowS: unavailableWindowMs(tally) / 1000,
    notReadyS: ready.notReadyMs.map((ms) => ms / 1000),
    other: tally.other.length,
  };
}

/** The first `most` different things the servers' /readyz said, for the table's last column. */
function said(ready: ReadinessWatch, most: number): string {
  return [...new Set(ready.reasons.flatMap((r) => [...r]))].slice(0, most).join(' | ').slice(0, 400);
}

function printRow(r: Row): void {
  const over = r.delivered - r.quota;
  const cells = [
    r.scenario,
    r.variant,
    r.delivered,
    r.counted,
    Math.max(0, r.delivered - r.counted),
    r.quota,
    over > 0 ? `+${over} (${((100 * over) / r.quota).toFixed(1)}%)` : over,
    r.unavailable,
    r.windowS.toFixed(2),
    r.notReadyS.map((s) => s.toFixed(1)).join(' / '),
    r.other,
    r.note.replace(/\|/g, '/'),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}

async function main(): Promise<void> {
  const { values } = flagsOrExit(
    {
      options: {
        baseline: { type: 'string' },
        clients: { type: 'string', default: '24' },
        quota: { type: 'string', default: '15000' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  if (!SENTINEL_INSTALLED) {
    console.log('redis-server and redis-sentinel are needed (apt-get install redis-server redis-sentinel)');
    process.exit(1);
  }
  const clients = Number(values.clients);
  const quota = Number(values.quota);
  const only = values.only?.split(',');
  const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.name));
  const work = mkdtempSync(join(tmpdir(), 'failover-bench-'));
  try {
    const snapshot = await smallStage(work);
    const variants: Variant[] = [{ label: 'this checkout', bundlePath: join(work, 'server.mjs'), snapshot }];
    if (values.baseline) variants.push(stageBaseline(values.baseline, work));
    console.log(
      `${clients} clients, two servers, one primary, two replicas, three sentinels (down-after 2 s); ` +
        `quota ${quota} (liars: a Free key of limit ${FREE_LIMIT})\n`,
    );
    const columns = [
      'scenario',
      'server',
      '200s',
      'counted',
      'uncounted',
      'quota',
      'over quota',
      '503s',
      '503 window s',
      'not ready s (1 / 2)',
      'other',
      '/readyz said',
    ];
    console.log(`| ${columns.join(' | ')} |`);
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    let turn = 0;
    for (const scenario of scenarios) {
      // Each scenario's variants in turn, the first one changing each time.
      const order = turn++ % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order)
        printRow(
          scenario.fault === 'liar'
            ? await liarScenario(variant, scenario, clients, work)
            : await faultScenario(variant, scenario, clients, quota, work),
        );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
