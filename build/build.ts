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
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../src/shared/ajv.ts';
import { checksumOf, INDEX_DIR, indexEntry, manifestText, MANIFEST_FILE, MANIFEST_FORMAT, PACK_FILE, indexFile, type CheckedSpan, type Manifest, type RouteIndex } from '../src/shared/manifest.ts';
import { corruptionSummary, verifyBuildSync } from '../src/shared/verify-build.ts';
import { assembleMeasurements } from '../src/shared/measurements.ts';
import { builtRouteIds, createBuildContext, produceBodies } from './shape/bodies.ts';
import { publishedIndexCount } from './derive/language.ts';
import { firstKeptDay } from './shape/measurements.ts';
import { DEFAULT_ARENA_OPTIONS, type ArenaOptions } from './derive/media.ts';
import { parseDataset, readDataFiles, type DataFile } from './load/datasets.ts';
import { DEFAULT_LEVELS, PackWriter, previousPack, type CompressionLevels, type RawHandle } from './pack/pack.ts';
import { documentExamples } from './schemas/openapi.ts';
import { responseSchema, hasResponseSchema } from './schemas/responses.ts';
import { findIdenticalBuild, KEEP_PREVIOUS, lockSnapshots, newBuildId, publishSnapshot, pruneSnapshots, readCurrentManifest, switchCurrent, verifySnapshot } from './pack/snapshot-dir.ts';
import type { Dataset } from './types.ts';

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

export class BodySchemaError extends Error {
  constructor(readonly failures: string[]) {
    super(`${failures.length} response bod${failures.length === 1 ? 'y does' : 'ies do'} not match their route's schema:\n${failures.slice(0, 20).join('\n')}`);
    this.name = 'BodySchemaError';
  }
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

export function inputDigest(files: readonly DataFile[], options: Omit<BuildOptions, 'log' | 'dataDir' | 'outDir' | 'force' | 'keep'>): string {
  const hash = createHash('sha256').update(`format ${MANIFEST_FORMAT}\n`).update(codeDigest()).update(JSON.stringify(options));
  for (const file of files) hash.update(`\n${file.path}\n${file.bytes.length}\n`).update(file.bytes);
  return hash.digest('hex');
}

/** The end of every window: given, or the newest measurement, or the newest release date. */
export function resolveAsOf(dataset: Dataset, given?: string): Date {
  if (given) {
    const at = /^\d{4}-\d{2}-\d{2}$/.test(given) ? `${given}T23:59:59.999Z` : given;
    const date = new Date(at);
    if (Number.isNaN(date.getTime())) throw new Error(`--as-of ${given}: not a date or timestamp`);
    return date;
  }
  let newest = 0;
  for (const s of dataset.series) {
    if (s.columns.length) newest = Math.max(newest, s.columns.time[s.columns.length - 1]);
  }
  if (newest === 0) {
    for (const m of dataset.models) if (m.release_date) newest = Math.max(newest, Date.parse(`${m.release_date}T23:59:59.999Z`));
  }
  return new Date(newest);
}

/** SHA-256 of a file, read in chunks (packs grow past what one buffer may hold). */
/** One index file per route: key -> [hash, spans..., checksums]; returns the checksum of each route's file. */
function writeRouteIndexes(dir: string, entries: Record<string, string>, bodies: Record<string, [number, CheckedSpan, CheckedSpan]>): Record<string, string> {
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

function makeBodyChecker() {
  const ajv = createAjv();
  const validators = new Map<string, ValidateFunction>();
  const failures: string[] = [];
  return {
    failures,
    check(routeId: string, route: Parameters<typeof responseSchema>[0], tier: Parameters<typeof responseSchema>[1], key: string, body: unknown) {
      if (!hasResponseSchema(route)) throw new Error(`route ${routeId} is built but has no response schema`);
      const id = `${routeId}.${tier}`;
      let validate = validators.get(id);
      if (!validate) validators.set(id, (validate = ajv.compile(responseSchema(route, tier))));
      if (validate(body)) return;
      const detail = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
      failures.push(`${key}: ${detail}`);
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
    const digest = inputDigest(files, { pageSize: options.pageSize, statsDays: options.statsDays, asOf: options.asOf, levels: options.levels, arena: options.arena });
    const current = readCurrentManifest(options.outDir);
    const unchanged = (manifest: Manifest, dir: string): BuildSummary => ({ built: false, buildId: manifest.build_id, snapshotDir: dir, entries: manifest.entry_count, bodies: manifest.body_count, reused: 0, identityBytes: 0, packBytes: 0, seconds: Number(elapsed()) });
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
      log(`switched to snapshot ${identical}, already built from these inputs; use --force to rebuild${removed.length ? `; pruned ${removed.length} old snapshot${removed.length === 1 ? '' : 's'}` : ''}`);
      return unchanged(readCurrentManifest(options.outDir)!.manifest, join(options.outDir, identical));
    }

    const dataset = parseDataset(files, problems);
    log(`loaded ${options.dataDir}: ${dataset.models.length} models, ${dataset.creators.length} creators, ${dataset.providers.length} providers, ${dataset.endpoints.length} endpoints, ${dataset.series.reduce((n, s) => n + s.columns.length, 0)} measurement records (${elapsed()} s)`);

    const asOf = resolveAsOf(dataset, options.asOf);
    const builtAt = options.sourceDateEpoch === undefined ? asOf : new Date(options.sourceDateEpoch * 1000);
    const buildId = newBuildId(options.outDir, builtAt, digest);
    const ctx = { ...createBuildContext(dataset, { asOf: asOf.getTime(), statsDays: options.statsDays, pageSize: options.pageSize, arenaOptions: options.arena }), buildId };
    const published = publishedIndexCount(dataset);
    log(`derived indices, prices and performance as of ${asOf.toISOString()}${published ? `; took ${published} published index values as given` : ''} (${elapsed()} s)`);

    tmpDir = join(options.outDir, `.tmp-${buildId}`);
    mkdirSync(tmpDir);
    // A previous build of another format lays its entries out differently, and --force asks for everything anew: compress anew.
    const previous = current && current.manifest.format === MANIFEST_FORMAT && !options.force ? previousPack(current.dir, current.manifest) : null;
    const pack = new PackWriter(join(tmpDir, PACK_FILE), options.levels, previous);
    const checker = makeBodyChecker();
    const entries: Record<string, string> = {};
    const emptyPages: Manifest['empty_pages'] = {};
    const fragments: { key: string; data: RawHandle; index: RawHandle }[] = [];
    let count = 0;
    for (const produced of produceBodies(ctx)) {
      if ('body' in produced) {
        checker.check(produced.route.id, produced.route, produced.tier, produced.key, produced.body);
        // The document's examples are made up, not among the bodies checked here: each is held
        // to its route's schema for the tier it shows (the richest) all the same.
        if (produced.route.id === 'openapi') {
          for (const { route, example } of documentExamples(produced.body)) checker.check(route.id, route, route.tiers[route.tiers.length - 1], `${produced.key}: example of ${route.id}`, example);
        }
        entries[produced.key] = await pack.add(Buffer.from(typeof produced.body === 'string' ? produced.body : JSON.stringify(produced.body)));
      } else if ('blob' in produced) {
        const { data, index } = produced.blob;
        // Check the widest answer the server can assemble from these fragments.
        const widest = JSON.parse(assembleMeasurements(index, data, firstKeptDay(ctx.asOf)).toString('utf8'));
        checker.check(produced.route.id, produced.route, produced.tier, produced.key, widest);
        fragments.push({ key: produced.key, data: await pack.addFragment(data), index: await pack.addFragment(Buffer.from(JSON.stringify(index))) });
      } else {
        const sample = JSON.parse(`${produced.before}${ctx.pageSize}${produced.after}`);
        checker.check(produced.route.id, produced.route, produced.tier, produced.key, sample);
        emptyPages[produced.key] = { before: produced.before, after: produced.after };
      }
      if (++count % 5000 === 0) log(`  ${count} bodies shaped, ${pack.stats.bodies} written (${elapsed()} s)`);
    }
    await pack.finish();
    if (checker.failures.length > 0) throw new BodySchemaError(checker.failures);

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
    log(
      `built snapshot ${buildId}: ${summary.entries} entries, ${summary.bodies} distinct bodies (${summary.reused} compressed bodies reused), ` +
        `${(summary.identityBytes / 1e6).toFixed(1)} MB of JSON, pack ${(summary.packBytes / 1e6).toFixed(1)} MB, in ${summary.seconds} s` +
        (pack.stats.corruptPrevious ? `; ${pack.stats.corruptPrevious} bodies of the previous build failed their checksum and were compressed anew` : '') +
        (removed.length ? `; pruned ${removed.length} old snapshot${removed.length === 1 ? '' : 's'}` : ''),
    );
    return summary;
  } finally {
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    unlock();
  }
}
