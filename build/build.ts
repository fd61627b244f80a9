/**
 * The build: data/ -> validated dataset -> derived views -> one body per route, tier, key
 * parameters and page or slug (checked against its response schema) -> pack + manifest in a
 * new snapshot folder -> verified -> `current` switched atomically.
 * On any problem it throws before touching `current`; the previous snapshot keeps serving.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDir } from '../src/shared/state-files.ts';
import {
  historyPartsBytes,
  manifestText,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  PACK_FILE,
  type Manifest,
} from '../src/shared/manifest.ts';
import { corruptionSummary, verifyBuildSync } from '../src/shared/verify-build.ts';
import { produceBodies } from './shape/bodies.ts';
import { builtRouteIds } from './shape/route-builders.ts';
import { publishedIndexCount } from './derive/language.ts';
import { readDataFiles } from './load/data-files.ts';
import { parseDataset } from './load/datasets.ts';
import { PackWriter, previousPack, type RawHandle } from './pack/pack.ts';
import { writeRouteIndexes } from './pack/route-indexes.ts';
import { BodyChecker } from './check-bodies.ts';
import type { BuildOptions } from './build-options.ts';
import { inputDigest } from './input-digest.ts';
import { shapingContext } from './shaping-context.ts';
import { nextHistory } from './history/stored.ts';
import { historyBodies } from './history/changes-parts.ts';
import { historyTexts, writeHistory } from './history/write-history.ts';
import { changeCounts, changeSummary } from './history/summary.ts';
import {
  findIdenticalBuild,
  lockSnapshots,
  newBuildId,
  publishSnapshot,
  pruneSnapshots,
  readCurrentManifest,
  switchCurrent,
  verifySnapshot,
} from './pack/snapshot-dir.ts';

export interface BuildSummary {
  /** False when the inputs were unchanged and nothing was written. */
  built: boolean;
  buildId: string;
  snapshotDir: string;
  entries: number;
  bodies: number;
  reused: number;
  identityBytes: number;
  packBytes: number;
  /** Bytes of the pack the history of builds takes (build/history/). */
  historyBytes: number;
  seconds: number;
}

/** The log's note of the snapshots a switch or a build removed, or nothing when none was. */
function prunedNote(removed: string[]): string {
  return removed.length ? `; pruned ${removed.length} old snapshot${removed.length === 1 ? '' : 's'}` : '';
}

export async function runBuild(options: BuildOptions): Promise<BuildSummary> {
  const started = performance.now();
  const { log } = options;
  const elapsed = () => ((performance.now() - started) / 1000).toFixed(1);
  const unlock = lockSnapshots(options.outDir);
  let tmpDir: string | null = null;
  try {
    const { files, problems } = readDataFiles(options.dataDir);
    const digest = inputDigest(files, options);
    const current = readCurrentManifest(options.outDir);
    const unchanged = (manifest: Manifest, dir: string): BuildSummary => ({
      built: false,
      buildId: manifest.build_id,
      snapshotDir: dir,
      entries: manifest.entry_count,
      bodies: manifest.body_count,
      reused: 0,
      identityBytes: 0,
      packBytes: 0,
      historyBytes: 0,
      seconds: Number(elapsed()),
    });
    if (current && current.manifest.input_digest === digest && !options.force) {
      // Unchanged inputs are not enough: bytes that rotted on disk are built again.
      const corrupt = verifyBuildSync(current.dir, current.manifest);
      if (corrupt.length === 0) {
        log(`snapshot ${current.manifest.build_id} is up to date (inputs unchanged); use --force to rebuild`);
        return unchanged(current.manifest, current.dir);
      }
      log(`${corruptionSummary(current.manifest.build_id, corrupt)}; building it again`);
    }
    // Data changed and changed back: the kept build of these inputs is served again, not rewritten.
    const identical = options.force ? null : findIdenticalBuild(options.outDir, digest);
    if (identical) {
      switchCurrent(options.outDir, identical);
      const removed = pruneSnapshots(options.outDir, identical, options.keep);
      log(
        `switched to snapshot ${identical}, already built from these inputs; ` +
          `use --force to rebuild${prunedNote(removed)}`,
      );
      return unchanged(readCurrentManifest(options.outDir)!.manifest, join(options.outDir, identical));
    }

    const dataset = parseDataset(files, problems);
    const records = dataset.series.reduce((n, s) => n + s.columns.length, 0);
    log(
      `loaded ${options.dataDir}: ${dataset.models.length} models, ${dataset.creators.length} creators, ` +
        `${dataset.providers.length} providers, ${dataset.endpoints.length} endpoints, ` +
        `${records} measurement records (${elapsed()} s)`,
    );

    const { asOf, builtAt, ctx } = shapingContext(dataset, options, (at) => newBuildId(options.outDir, at, digest));
    const { buildId } = ctx;
    const published = publishedIndexCount(dataset);
    const publishedNote = published ? `; took ${published} published index values as given` : '';
    log(`derived indices, prices and performance as of ${asOf.toISOString()}${publishedNote} (${elapsed()} s)`);

    const next = nextHistory(current, ctx, options.historyBuilds, log);

    tmpDir = join(options.outDir, `.tmp-${buildId}`);
    mkdirSync(tmpDir);
    // A previous build of another format lays its entries out differently, and --force asks for
    // everything anew: compress anew.
    const previous =
      current && current.manifest.format === MANIFEST_FORMAT && !options.force
        ? previousPack(current.dir, current.manifest)
        : null;
    const pack = new PackWriter(join(tmpDir, PACK_FILE), options.levels, previous);
    const checker = new BodyChecker();
    const entries: Record<string, string> = {};
    const emptyPages: Manifest['empty_pages'] = {};
    const fragments: { key: string; data: RawHandle; index: RawHandle }[] = [];
    let count = 0;
    for (const produced of produceBodies(ctx)) {
      checker.check(produced, ctx);
      if ('body' in produced) {
        entries[produced.key] = await pack.add(
          Buffer.from(typeof produced.body === 'string' ? produced.body : JSON.stringify(produced.body)),
        );
      } else if ('blob' in produced) {
        const { data, index } = produced.blob;
        fragments.push({
          key: produced.key,
          data: await pack.addFragment(data),
          index: await pack.addFragment(Buffer.from(JSON.stringify(index))),
        });
      } else {
        emptyPages[produced.key] = { before: produced.before, after: produced.after };
      }
      if (++count % 5000 === 0) log(`  ${count} bodies shaped, ${pack.stats.bodies} written (${elapsed()} s)`);
    }
    const texts = historyTexts(next);
    for (const produced of historyBodies(next.history, texts)) checker.check(produced, ctx);
    const historyParts = await writeHistory(pack, next, texts);
    await pack.finish();
    checker.throwFailures();

    const indexSums = writeRouteIndexes(tmpDir, entries, pack.bodies);
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      build_id: buildId,
      built_at: builtAt.toISOString(),
      as_of: asOf.toISOString(),
      input_digest: digest,
      intelligence_index_version: ctx.intelligenceIndexVersion,
      page_size: options.pageSize,
      routes: builtRouteIds(ctx),
      indexes: Object.keys(indexSums),
      index_sums: indexSums,
      entry_count: Object.keys(entries).length,
      body_count: pack.stats.bodies,
      empty_pages: emptyPages,
      critpt_problems: dataset.critptProblems,
      fragments: Object.fromEntries(fragments.map((f) => [f.key, { data: f.data.span!, index: f.index.span! }])),
      history: historyParts(),
      changes: changeCounts(next.record),
    };
    writeFileSync(join(tmpDir, MANIFEST_FILE), manifestText(manifest), { mode: 0o644 });
    fsyncDir(join(tmpDir, MANIFEST_FILE));
    verifySnapshot(tmpDir);
    publishSnapshot(options.outDir, tmpDir, buildId);
    tmpDir = null;
    const removed = pruneSnapshots(options.outDir, buildId, options.keep);
    const summary: BuildSummary = {
      built: true,
      buildId,
      snapshotDir: join(options.outDir, buildId),
      entries: Object.keys(entries).length,
      bodies: pack.stats.bodies,
      reused: pack.stats.reused,
      identityBytes: pack.stats.identityBytes,
      packBytes: pack.stats.packBytes,
      historyBytes: historyPartsBytes(manifest.history!),
      seconds: Number(elapsed()),
    };
    const corruptNote = pack.stats.corruptPrevious
      ? `; ${pack.stats.corruptPrevious} bodies of the previous build failed their checksum and were compressed anew`
      : '';
    log(
      `built snapshot ${buildId}: ${summary.entries} entries, ${summary.bodies} distinct bodies ` +
        `(${summary.reused} compressed bodies reused), ${(summary.identityBytes / 1e6).toFixed(1)} MB of JSON, ` +
        `pack ${(summary.packBytes / 1e6).toFixed(1)} MB (${(summary.historyBytes / 1e6).toFixed(1)} MB of it ` +
        `the history of ${next.history.builds.length} builds), in ${summary.seconds} s` +
        `${corruptNote}${prunedNote(removed)}`,
    );
    for (const line of changeSummary(next.record)) log(line);
    return summary;
  } finally {
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    unlock();
  }
}
