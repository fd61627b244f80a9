/** `--scale`: build and serve 1x, 3x and 10x datasets and report how time, size and memory grow. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import { createKey } from '../../src/keys/changes.ts';
import { bundle } from '../bundle.ts';
import { DEFAULT_OPTIONS, generateSample } from '../generate-sample.ts';
import { scaledCounts } from '../sample/options.ts';
import { writeBenchmarksMarkdown } from './markdown.ts';
import { median, medianStartup, peakRssMb, startServer, stop } from './processes.ts';
import { writeScale, type ScaleRow } from './results.ts';
import { ensureTools } from './tools.ts';
import { wrk } from './wrk.ts';

/**
 * Builds of the datasets up to this factor are repeated and their median taken: they take
 * seconds, and one of them running 10% slow or fast moved the 10x ratio by a whole unit (9.9x
 * and 11.9x in two runs of the same code). The 10x build, minutes long, runs once.
 */
const REPEATED_UP_TO_FACTOR = 3;
const BUILD_RUNS = 3;

/** Build and serve 1x, 3x and 10x datasets; report how time, size and memory grow. */
export async function scale(factors: number[]): Promise<void> {
  ensureTools();
  const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);
  const rows: ScaleRow[] = [];
  for (const factor of factors) {
    const data = join(work, `data-${factor}x`);
    const records = generateSample({ ...DEFAULT_OPTIONS, ...scaledCounts(factor), out: data }).counts[
      'measurement records'
    ];
    const snapshot = join(work, `snapshot-${factor}x`);
    // Each repeat into an empty folder: a build beside an earlier one reuses its compressed bodies.
    const build = async () => {
      rmSync(snapshot, { recursive: true, force: true });
      return runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: data, outDir: snapshot, force: true, log: () => {} });
    };
    const runs = factor <= REPEATED_UP_TO_FACTOR ? BUILD_RUNS : 1;
    let built = await build();
    const seconds = [built.seconds];
    while (seconds.length < runs) {
      built = await build();
      seconds.push(built.seconds);
    }
    const buildSeconds = median(seconds);
    const state = join(work, `state-${factor}x`);
    const key = createKey(state, { tier: 'pro', org: 'bench', quota: null, user: 'p' }).key;
    const slugs = (JSON.parse(readFileSync(join(data, 'language-models.json'), 'utf8')) as { slug: string }[]).map(
      (m) => m.slug,
    );
    const start = () =>
      startServer({ bundlePath, snapshot, state, probe: { path: '/api/v2/language/models/free', key }, cacheMb: 32 });
    const startupMs = await medianStartup(start);
    const server = await start();
    const load = wrk(
      `http://127.0.0.1:${server.port}`,
      slugs.map((s) => `/api/v2/language/models/${s}`),
      { 'x-api-key': key, 'accept-encoding': 'br' },
      32,
      5,
      work,
    );
    const models = slugs.length;
    rows.push({
      scale: factor,
      models,
      records,
      buildSeconds,
      packMB: built.packBytes / 1e6,
      entries: built.entries,
      startupMs,
      rssMb: peakRssMb(server.child.pid!),
      rps: load.rps,
    });
    await stop(server.child);
    console.log(
      `${factor}x: ${models} models, build ${seconds.join(', ')} s, pack ${(built.packBytes / 1e6).toFixed(0)} MB, ` +
        `start-up ${startupMs.toFixed(0)} ms, RSS ${rows.at(-1)!.rssMb.toFixed(0)} MB, ${load.rps.toFixed(0)} rps`,
    );
    rmSync(snapshot, { recursive: true, force: true });
  }
  writeScale({ date: new Date().toISOString(), rows });
  writeBenchmarksMarkdown();
  console.log('wrote bench/scale.json and BENCHMARKS.md');
  rmSync(work, { recursive: true, force: true });
}
