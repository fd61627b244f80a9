/**
 * Serving snapshots. A Snapshot is one build: its manifest in memory and its pack of bodies
 * open for positional reads. The SnapshotStore holds the active one, follows `current` when a
 * build switches it (requests already under way keep the snapshot they started with, so no
 * response mixes two), and keeps hot bodies in an LRU bounded by bytes. The LRU is keyed by
 * content hash and encoding, so bodies unchanged by a rebuild stay hot across the switch.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { open, readFile, readlink, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, constants, gunzip, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { Eventually } from '../lib/eventually.ts';
import type { IdleWork, Step } from '../lib/idle-work.ts';
import { assembleMeasurements, type MeasurementIndex } from '../shared/measurements.ts';
import { CURRENT_LINK, MANIFEST_FILE, MANIFEST_FORMAT, PACK_FILE, contentHash, etagOf, indexFile, storedSpanOf, type Encoding, type IndexEntry, type Manifest, type RouteIndex, type Span } from '../shared/manifest.ts';

const POLL_MS = 1000;

/** A body ready to send: its bytes in the chosen encoding and that variant's ETag. */
export interface Body {
  bytes: Buffer;
  etag: string;
}

export class Snapshot {
  /** Requests under way on this snapshot; its pack is closed when it is retired and idle. */
  private inflight = 0;
  private retired = false;
  private readonly servedRoutes: Set<string>;
  private readonly indexes = new Map<string, RouteIndex | null>();

  private constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    private readonly pack: FileHandle,
  ) {
    this.servedRoutes = new Set(manifest.routes);
  }

  static async open(dir: string): Promise<Snapshot> {
    const path = join(dir, MANIFEST_FILE);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(await readFile(path, 'utf8')) as Manifest;
    } catch (error) {
      throw new Error(`cannot read snapshot manifest ${path}: ${(error as Error).message}`);
    }
    if (manifest.format !== MANIFEST_FORMAT) throw new Error(`snapshot ${dir} has manifest format ${manifest.format}; this server reads format ${MANIFEST_FORMAT} (rebuild it)`);
    const pack = await open(join(dir, PACK_FILE), 'r');
    return new Snapshot(dir, manifest, pack);
  }

  get buildId(): string {
    return this.manifest.build_id;
  }

  serves(routeId: string): boolean {
    return this.servedRoutes.has(routeId);
  }

  /**
   * The body a snapshot key names, if the snapshot has it. A route's index is read on its first
   * use (and all are warmed in the background), so start-up does not grow with the snapshot.
   */
  entry(routeId: string, key: string): IndexEntry | undefined {
    const index = this.indexFor(routeId);
    return index && Object.hasOwn(index, key) ? index[key] : undefined;
  }

  private indexFor(routeId: string): RouteIndex | null {
    let index = this.indexes.get(routeId);
    if (index === undefined) {
      index = this.manifest.indexes.includes(routeId) ? (JSON.parse(readFileSync(join(this.dir, indexFile(routeId)), 'utf8')) as RouteIndex) : null;
      this.indexes.set(routeId, index);
    }
    return index;
  }

  /** One step per route index not loaded yet: load it, unless the snapshot was retired meanwhile. */
  warmSteps(): Step[] {
    return this.manifest.indexes.map((routeId) => () => {
      if (this.retired || this.indexes.has(routeId)) return;
      try {
        this.indexFor(routeId);
      } catch {
        // The build pruned this snapshot, or the index is unreadable: a request that needs it
        // meets the same error on its own path and is answered 500 with it.
      }
    });
  }

  fragment(key: string): { data: Span; index: Span } | undefined {
    return Object.hasOwn(this.manifest.fragments, key) ? this.manifest.fragments[key] : undefined;
  }

  emptyPage(key: string): { before: string; after: string } | undefined {
    return Object.hasOwn(this.manifest.empty_pages, key) ? this.manifest.empty_pages[key] : undefined;
  }


  async read([offset, length]: Span): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await this.pack.read(buffer, 0, length, offset);
    if (bytesRead !== length) throw new Error(`snapshot ${this.dir}: pack is shorter than its manifest says`);
    return buffer;
  }

  acquire(): void {
    this.inflight++;
  }

  release(): void {
    if (--this.inflight === 0 && this.retired) void this.pack.close();
  }

  /** No new requests will use this snapshot; close its pack once the last one finishes. */
  retire(): void {
    this.retired = true;
    if (this.inflight === 0) void this.pack.close();
  }
}

export interface SnapshotStoreOptions {
  /** The folder holding `current` and the builds. */
  root: string;
  cacheBytes: number;
  /** Told when a switch happens or fails. */
  log: (line: string) => void;
  logError: (line: string) => void;
  /** Where index warming is queued. */
  idle: IdleWork;
}

const gunzipAsync = promisify(gunzip);

/** Compress a body assembled at request time (small; done once, then cached). */
function compressNow(identity: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(identity, { level: 6 });
  if (encoding === 'br') return brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } });
  return identity;
}

export class SnapshotStore {
  private active!: Snapshot;
  private readonly cache: LRUCache<string, Buffer>;
  /** Reads of bodies under way, by cache key: one read however many requests wait for it. */
  private readonly reading = new Map<string, Promise<Buffer>>();
  /** Bodies assembled at request time, with their content hash. */
  private readonly assemblies: LRUCache<string, { identity: Buffer; hash: string }>;
  private watcher: FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private lastFailure: string | null = null;
  private hits = 0;
  private misses = 0;

  constructor(private readonly options: SnapshotStoreOptions) {
    this.cache = new LRUCache<string, Buffer>({ maxSize: Math.max(1, options.cacheBytes), sizeCalculation: (b) => Math.max(1, b.length) });
    // A quarter of the budget again: assembled answers are few (one per provider, prompt type and day).
    this.assemblies = new LRUCache({ maxSize: Math.max(1, options.cacheBytes / 4), sizeCalculation: (a) => Math.max(1, a.identity.length) });
  }

  /** Load `current`; throws with a clear message when there is no snapshot to serve. */
  async start(): Promise<void> {
    const target = await this.currentTarget();
    if (!target) throw new Error(`no snapshot at ${join(this.options.root, CURRENT_LINK)}; build one with: npm run build -- --out ${this.options.root}`);
    this.active = await Snapshot.open(target);
    this.options.idle.add(this.active.warmSteps());
  }

  /** Follow `current`: an fs watch for quick switches, a slow poll in case the watch misses one. */
  follow(): void {
    try {
      this.watcher = watch(this.options.root, () => void this.check());
      this.watcher.on('error', (error) => this.options.logError(`snapshot watch stopped: ${error.message}; polling only`));
    } catch (error) {
      this.options.logError(`cannot watch ${this.options.root}: ${(error as Error).message}; polling only`);
    }
    this.poller = setInterval(() => void this.check(), POLL_MS);
    this.poller.unref();
  }

  /** Stop following `current`; the active snapshot is retired (closed once idle). */
  stop(): void {
    this.watcher?.close();
    if (this.poller) clearInterval(this.poller);
    this.active.retire();
  }

  /** The snapshot a new request should use. The caller acquires it and releases it when done. */
  get current(): Snapshot {
    return this.active;
  }

  private async currentTarget(): Promise<string | null> {
    try {
      return resolve(this.options.root, await readlink(join(this.options.root, CURRENT_LINK)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Switch to the build `current` points at, if it changed. One check at a time. */
  check(): Promise<void> {
    this.checking ??= this.switchIfChanged().finally(() => (this.checking = null));
    return this.checking;
  }

  private async switchIfChanged(): Promise<void> {
    let target: string | null;
    try {
      target = await this.currentTarget();
    } catch (error) {
      this.options.logError(`cannot read ${CURRENT_LINK} link: ${(error as Error).message}`);
      return;
    }
    if (!target || target === this.active.dir) return;
    try {
      const next = await Snapshot.open(target);
      this.options.idle.add(next.warmSteps());
      const previous = this.active;
      this.active = next;
      this.lastFailure = null;
      previous.retire();
      this.options.log(`switched to snapshot ${next.buildId}`);
    } catch (error) {
      // Tried again at every check (a failed read may be passing: descriptors exhausted), but
      // said once per distinct failure, so a broken build does not flood the log.
      const failure = `keeping snapshot ${this.active.buildId}: ${(error as Error).message}`;
      if (failure !== this.lastFailure) this.options.logError(failure);
      this.lastFailure = failure;
    }
  }

  /**
   * A precomputed body in one encoding: at once from the LRU, else read from the snapshot's pack
   * (identity: the gzip variant, decompressed on zlib's thread pool).
   */
  body(snapshot: Snapshot, entry: IndexEntry, encoding: Encoding): Eventually<Body> {
    const hash = entry[0];
    const key = `${hash}.${encoding}`;
    const etag = etagOf(hash, encoding);
    const cached = this.cache.get(key);
    if (cached) {
      this.hits++;
      return { bytes: cached, etag };
    }
    this.misses++;
    // Requests that miss the same body at once share one read (and one buffer): a thousand
    // clients asking for it together cost one copy, not a thousand.
    let reading = this.reading.get(key);
    if (!reading) {
      const stored = snapshot.read(storedSpanOf(entry, encoding));
      reading = (encoding === 'identity' ? stored.then((gz) => gunzipAsync(gz)) : stored).then(
        (bytes) => {
          this.cache.set(key, bytes);
          this.reading.delete(key);
          return bytes;
        },
        (error: unknown) => {
          this.reading.delete(key);
          throw error;
        },
      );
      this.reading.set(key, reading);
    }
    return reading.then((bytes) => ({ bytes, etag }));
  }

  /** A body assembled at request time: hashed (unless the hash is known), compressed once, cached. */
  assembled(identity: Buffer, encoding: Encoding, hash = contentHash(identity)): Body {
    const key = `${hash}.${encoding}`;
    let bytes = this.cache.get(key);
    if (!bytes) {
      bytes = compressNow(identity, encoding);
      this.cache.set(key, bytes);
    }
    return { bytes, etag: etagOf(hash, encoding) };
  }

  /**
   * A measurements answer since `startDay`, assembled from the snapshot's fragments. The
   * assembled body and its hash are cached by snapshot, key and day (hashing hundreds of
   * kilobytes per request would cost more than sending them); compressed variants by content.
   */
  async measurements(snapshot: Snapshot, key: string, startDay: string, encoding: Encoding): Promise<Body> {
    const cacheKey = `${snapshot.buildId} ${key} ${startDay}`;
    let assembly = this.assemblies.get(cacheKey);
    if (!assembly) {
      const spans = snapshot.fragment(key)!;
      const [index, data] = await Promise.all([this.fragmentBytes(snapshot, spans.index), this.fragmentBytes(snapshot, spans.data)]);
      const identity = assembleMeasurements(JSON.parse(index.toString('utf8')) as MeasurementIndex, data, startDay);
      assembly = { identity, hash: contentHash(identity) };
      this.assemblies.set(cacheKey, assembly);
    }
    return this.assembled(assembly.identity, encoding, assembly.hash);
  }

  /** A fragment, inflated (it is stored gzip-compressed) and cached. */
  private async fragmentBytes(snapshot: Snapshot, span: Span): Promise<Buffer> {
    const key = `fragment ${snapshot.buildId} ${span[0]}`;
    let bytes = this.cache.get(key);
    if (!bytes) {
      bytes = await gunzipAsync(await snapshot.read(span));
      this.cache.set(key, bytes);
    }
    return bytes;
  }

  cacheStats(): { hits: number; misses: number; bytes: number } {
    return { hits: this.hits, misses: this.misses, bytes: this.cache.calculatedSize };
  }
}
