/**
 * `--history`: the history of builds, measured as a data maintainer who builds daily would meet
 * it. A month of daily data (the generator's `--day K`) built one day after another into one
 * snapshot folder: build time and the pack's bytes, with the history's share, day by day. Then
 * one server on the last build, its answers joined from the history (a model's history, the
 * changes since the build before, the first page of every build's changes) loaded in
 * alternating rounds against the model detail route, which the targets compare them with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild, type BuildSummary } from '../../build/build.ts';
import { createKey } from '../../src/keys/changes.ts';
import { bundle } from '../bundle.ts';
import { DEFAULT_OPTIONS, generateSample } from '../generate-sample.ts';
import { readCurrentManifest } from '../../build/pack/snapshot-dir.ts';
import { historyMarkdown, historyShare, mb } from './history-markdown.ts';
import { writeBenchmarksMarkdown } from './markdown.ts';
import { startServer, stop } from './processes.ts';
import { writeHistoryResults, type HistoryDay, type HistoryRow } from './results.ts';
import { roundRatio, runRounds, type Contender } from './rounds.ts';
import { ensureTools } from './tools.ts';

export interface HistoryOptions {
  days: number;
  seconds: number;
  connections: number[];
  rounds: number;
}

const local = (port: number) => `http://127.0.0.1:${port}`;

/** Build the sample's days 0 to `days` into one snapshot folder, a day at a time; each day's figures. */
async function buildDays(work: string, days: number): Promise<{ snapshot: string; days: HistoryDay[] }> {
  const data = join(work, 'data');
  const snapshot = join(work, 'snapshot');
  const rows: HistoryDay[] = [];
  for (let day = 0; day <= days; day++) {
    generateSample({ ...DEFAULT_OPTIONS, out: data, day });
    const built: BuildSummary = await runBuild({
      ...DEFAULT_BUILD_OPTIONS,
      dataDir: data,
      outDir: snapshot,
      log: () => {},
    });
    const row = { day, seconds: built.seconds, packBytes: built.packBytes, historyBytes: built.historyBytes };
    rows.push(row);
    console.log(
      `day ${day}: built in ${row.seconds} s, pack ${mb(row.packBytes)} MB, ` +
        `history ${mb(row.historyBytes)} MB (${historyShare(row)} of the rest)`,
    );
  }
  return { snapshot, days: rows };
}

export async function history(options: HistoryOptions): Promise<void> {
  ensureTools();
  const work = mkdtempSync(join(tmpdir(), 'bench-history-'));
  const bundlePath = join(work, 'server.mjs');
  await bundle(work);
  const { snapshot, days } = await buildDays(work, options.days);
  const { manifest } = readCurrentManifest(snapshot)!;
  const builds = manifest.history!.builds;
  const slugs = Object.keys(manifest.history!.models);
  const state = join(work, 'state');
  const key = createKey(state, { tier: 'commercial', org: 'bench', user: 'c', quota: 1_000_000_000 }).key;
  const server = await startServer({
    bundlePath,
    snapshot,
    state,
    probe: { path: '/api/v2/language/models/free', key },
  });
  const headers = { 'x-api-key': key, 'accept-encoding': 'br' };
  const base = local(server.port);
  const contenders: Contender[] = [
    { name: 'detail', base, headers, paths: slugs.map((s) => `/api/v2/language/models/${s}`) },
    { name: 'history', base, headers, paths: slugs.map((s) => `/api/v2/language/models/${s}/history`) },
    { name: 'changes since the build before', base, headers, paths: [`/api/v2/changes?since=${builds.at(-2)}`] },
    { name: 'changes, first page', base, headers, paths: ['/api/v2/changes'] },
  ];
  const rows: HistoryRow[] = [];
  for (const connections of options.connections) {
    const runs = runRounds(
      contenders,
      { rounds: options.rounds, connections, seconds: options.seconds, work },
      `history c=${connections}`,
    );
    const detail = runs.get('detail')!;
    for (const { name } of contenders) {
      const run = runs.get(name)!;
      rows.push({
        route: name,
        connections,
        rps: run.rps,
        p50Ms: run.p50Ms,
        p99Ms: run.p99Ms,
        errors: run.errors,
        p99VsDetail: roundRatio(run, detail, 'p99Ms')!,
      });
    }
  }
  await stop(server.child);
  const results = { date: new Date().toISOString(), builds: builds.length, days, rows };
  writeHistoryResults(results);
  writeBenchmarksMarkdown();
  console.log(`\n${historyMarkdown(results)}`);
  console.log('wrote bench/history.json and BENCHMARKS.md');
  rmSync(work, { recursive: true, force: true });
}
