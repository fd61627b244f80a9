/**
 * The build: data/ -> validated dataset -> derived views -> one body per route, tier, key
 * parameters and page or slug (checked against its response schema) -> pack + manifest in a
 * new snapshot folder -> verified -> `current` switched atomically.
 * On any problem it throws before touching `current`; the previous snapshot keeps serving.
 */
import { createHash } from 'node:crypto';
import { fsyncDir } from '../src/shared/state-files.ts';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checksumOf,
  INDEX_DIR,
  indexEntry,
  manifestText,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  PACK_FILE,
  indexFile,
  type CheckedSpan,
  type Manifest,
  type RouteIndex,
} from '../src/shared/manifest.ts';
import { corruptionSummary, verifyBuildSync } from '../src/shared/verify-build.ts';
import { builtRouteIds, createBuildContext, produceBodies, type BuildContext } from './shape/bodies.ts';
import type { Dataset } from './types.ts';
import { publishedIndexCount } from './derive/language.ts';
import { DEFAULT_ARENA_OPTIONS, type ArenaOptions } from './derive/media.ts';
import { parseDataset, readDataFiles, type DataFile } from './load/datasets.ts';
import { DEFAULT_LEVELS, PackWriter, previousPack, type CompressionLevels, type RawHandle } from './pack/pack.ts';
import { BodyChecker } from './check-bodies.ts';
import { resolveDataDate } from './as-of.ts';
import {
  findIdenticalBuild,
  KEEP_PREVIOUS,
  lockSnapshots,
  newBuildId,
  publishSnapshot,
  pruneSnapshots,
  readCurrentManifest,
  switchCurrent,
  verifySnapshot,
} from './pack/snapshot-dir.ts';

export interface BuildOptions {
  dataDir: string;
  outDir: string;
  /** Items per page of paginated lists. */
  pageSize: number;
  /** Days of measurements the medians and percentiles are taken over. */
  statsDays: number;
  /** End of the statistics windows; by default the time of the newest measurement. */
  asOf?: string;
  /** Rebuild even when the inputs are unchanged. */
  force: boolean;
  /** Leaderboard eligibility of media arena entries. */
  arena: ArenaOptions;
  levels: CompressionLevels;
  /** Builds kept besides the current one (older ones are removed after a switch). */
  keep: number;
  /**
   * The time the build's id and manifest carry, in seconds since 1970 (`SOURCE_DATE_EPOCH`); by
   * default the data's as-of time. Never the wall clock: two builds of the same inputs into two
   * empty folders are byte-identical, file for file.
   */
  sourceDateEpoch?: number;
  /** Progress and summary lines. */
  log: (line: string) => void;
}

export const DEFAULT_BUILD_OPTIONS: Omit<BuildOptions, 'log'> = {
  dataDir: 'data',
  outDir: 'snapshot',
  pageSize: 200,
  statsDays: 14,
  force: false,
  arena: DEFAULT_ARENA_OPTIONS,
  levels: DEFAULT_LEVELS,
  keep: KEEP_PREVIOUS,
};

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
  seconds: number;
}

const CODE_DIRS = ['build', 'src'];

/** Hash of the build's own source, so a changed build rebuilds an unchanged dataset. */
function codeDigest(): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mjs|js|json)$/.test(entry.name)) hash.update(relative(root, path)).update(readFileSync(path));
    }
  };
  for (const dir of CODE_DIRS) walk(join(root, dir));
  return hash.digest('hex');
}

/**
 * The digest of a build's inputs: the format, the build's code, the options that change its
 * bytes and the data files. SOURCE_DATE_EPOCH is not among them: it changes only the id.
 */
export function inputDigest(
  files: readonly DataFile[],
  options: Pick<BuildOptions, 'pageSize' | 'statsDays' | 'asOf' | 'levels' | 'arena'>,
): string {
  const { pageSize, statsDays, asOf, levels, arena } = options;
  const hash = createHash('sha256')
    .update(`format ${MANIFEST_FORMAT}\n`)
    .update(codeDigest())
    .update(JSON.stringify({ pageSize, statsDays, asOf, levels, arena }));
  for (const file of files) hash.update(`\n${file.path}\n${file.bytes.length}\n`).update(file.bytes);
  return hash.digest('hex');
}

/** The log's note of the snapshots a switch or a build removed, or nothing when none was. */
function prunedNote(removed: string[]): string {
  return removed.length ? `; pruned ${removed.length} old snapshot${removed.length === 1 ? '' : 's'}` : '';
}

/** One index file per route: key -> [hash, spans..., checksums]; returns the checksum of each route's file. */
function writeRouteIndexes(
  dir: string,
  entries: Record<string, string>,
  bodies: Record<string, [number, CheckedSpan, CheckedSpan]>,
): Record<string, string> {
  const byRoute = new Map<string, RouteIndex>();
  for (const [key, hash] of Object.entries(entries)) {
    const routeId = key.slice(0, key.indexOf(' '));
    let index = byRoute.get(routeId);
    if (!index) byRoute.set(routeId, (index = {}));
    const [identityLength, gz, br] = bodies[hash];
    index[key] = indexEntry(hash, identityLength, gz, br);
  }
  mkdirSync(join(dir, INDEX_DIR));
  const sums: Record<string, string> = {};
  for (const [routeId, index] of byRoute) {
    const bytes = Buffer.from(JSON.stringify(index));
    writeFileSync(join(dir, indexFile(routeId)), bytes, { mode: 0o644 });
    sums[routeId] = checksumOf(bytes);
  }
  fsyncDir(join(dir, INDEX_DIR));
  return sums;
}

/**
 * What shaping needs, as a build and `--check` both make it: the data date (said in the log,
 * with its warning), the time the build carries (SOURCE_DATE_EPOCH when given, else the data's),
 * the build id `idOf` makes of that time, and the context the bodies are shaped in.
 */
export function shapingContext(
  dataset: Dataset,
  options: BuildOptions,
  idOf: (builtAt: Date) => string,
): { asOf: Date; builtAt: Date; ctx: BuildContext & { buildId: string } } {
  const { asOf, reason, warning } = resolveDataDate(dataset, options.asOf);
  options.log(`data date ${asOf.toISOString()}: ${reason}`);
  if (warning) options.log(`warning: ${warning}`);
  const builtAt = options.sourceDateEpoch === undefined ? asOf : new Date(options.sourceDateEpoch * 1000);
  const buildId = idOf(builtAt);
  return {
    asOf,
    builtAt,
    ctx: {
      ...createBuildContext(dataset, {
        asOf: asOf.getTime(),
        statsDays: options.statsDays,
        pageSize: options.pageSize,
        arenaOptions: options.arena,
      }),
      buildId,
    },
  };
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
      seconds: Number(elapsed()),
    };
    const corruptNote = pack.stats.corruptPrevious
      ? `; ${pack.stats.corruptPrevious} bodies of the previous build failed their checksum and were compressed anew`
      : '';
    log(
      `built snapshot ${buildId}: ${summary.entries} entries, ${summary.bodies} distinct bodies ` +
        `(${summary.reused} compressed bodies reused), ${(summary.identityBytes / 1e6).toFixed(1)} MB of JSON, ` +
        `pack ${(summary.packBytes / 1e6).toFixed(1)} MB, in ${summary.seconds} s${corruptNote}${prunedNote(removed)}`,
    );
    return summary;
  } finally {
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    unlock();
  }
}
