/**
 * The state folder's quota book at scale: `npx tsx scripts/bench/quota-scale.ts [WINDOWS]`
 * (default 200,000 open windows). Each figure is taken in a process of its own, so its RSS is
 * that of a server that has just opened such a folder:
 * - start from quota.json alone (every window in the snapshot file), then a graceful stop;
 * - start from quota.json and a journal of 49,999 lines (the most a journal holds before compaction);
 * - the longest the event loop is held while a background compaction runs, requests counted meanwhile.
 * Only the book's public interface is used, so the same script measures any commit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sizeCollector } from '../../src/lib/heap.ts';
import { FileQuota } from '../../src/quota/file-quota.ts';
import { countWindows, writeScaleWindows } from '../scale-state.ts';

// As the bundled server does (src/bin.ts): its collector sized as the server's (src/lib/heap.ts),
// which the figures are about.
sizeCollector();

const JOURNAL_LINES = 49_999;
const clock = { now: () => Date.now() };
const log = () => {};

const open = (stateDir: string) => FileQuota.open({ stateDir, clock, log });

const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const rssMb = () => Math.round(process.memoryUsage().rss / 1e6);

async function child(step: string, dir: string, windows: number): Promise<void> {
  if (step === 'snapshot') {
    await writeScaleWindows(dir, windows);
  } else if (step === 'journal') {
    await writeScaleWindows(dir, windows - JOURNAL_LINES);
    const again = open(dir);
    await countWindows(again, windows - JOURNAL_LINES, JOURNAL_LINES);
    process.exit(0); // no close: the journal carries the last lines
  } else if (step === 'start-stop') {
    const t0 = process.hrtime.bigint();
    const book = open(dir);
    const start = ms(t0);
    const rss = rssMb();
    const t1 = process.hrtime.bigint();
    book.close();
    console.log(JSON.stringify({ start_ms: Math.round(start), stop_ms: Math.round(ms(t1)), rss_mb: rss }));
  } else if (step === 'compaction') {
    const book = open(dir);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    await new Promise((r) => setTimeout(r, 50));
    // Requests go on being counted meanwhile, each turn's lines written on the loop, as under load.
    let n = 0;
    const load = setInterval(() => {
      for (let i = 0; i < 10; i++) book.take('data', `user:org${n % 997}/user-${n++ % windows}`, 1e9);
    }, 1);
    delay.enable();
    const t0 = process.hrtime.bigint();
    await book.compactInBackground();
    const total = ms(t0);
    delay.disable();
    clearInterval(load);
    console.log(
      JSON.stringify({ compaction_hold_ms: Math.round(delay.max / 1e6), compaction_total_ms: Math.round(total) }),
    );
    book.close();
  }
}

function run(step: string, dir: string, windows: number): string {
  const result = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, String(windows), step, dir], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${step}: ${result.stderr}`);
  return result.stdout.trim();
}

const windows = Number(process.argv[2] ?? 200_000);
if (process.argv[3]) {
  await child(process.argv[3], process.argv[4]!, windows);
} else {
  for (const layout of ['snapshot', 'journal'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'quota-scale-'));
    try {
      run(layout, dir, windows);
      const from = layout === 'snapshot' ? 'quota.json' : `quota.json + ${JOURNAL_LINES} journal lines`;
      console.log(`${windows} windows, from ${from}: ${run('start-stop', dir, windows)}`);
      if (layout === 'snapshot')
        console.log(`${windows} windows, background compaction: ${run('compaction', dir, windows)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
