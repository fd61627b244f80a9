/**
 * Serving snapshots. The SnapshotStore holds the active build (snapshot.ts), follows `current`
 * when a build switches it (requests already under way keep the snapshot they started with, so
 * no response mixes two), and keeps hot bodies in an LRU bounded by bytes. The LRU is keyed by
 * content hash and encoding, so bodies unchanged by a rebuild stay hot across the switch.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, constants, gunzip, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { Eventually } from '../lib/eventually.ts';
import type { IdleWork } from '../lib/idle-work.ts';
import { assembleMeasurements, type MeasurementIndex } from '../shared/measurements.ts';
import { CURRENT_LINK, contentHash, etagOf, storedSpanOf, type Encoding, type IndexEntry, type Span } from '../shared/manifest.ts';
import { Snapshot, type Body } from './snapshot.ts';

const POLL_MS = 1000;

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
  /** Reads of bodies under way, by variant (content hash and encoding): one read however many requests wait for it. */
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
    const variant = `${hash}.${encoding}`;
    const etag = etagOf(hash, encoding);
    const cached = this.cache.get(variant);
    if (cached) {
      this.hits++;
      return { bytes: cached, etag };
    }
    this.misses++;
    // Requests that miss the same body at once share one read (and one buffer): a thousand
    // clients asking for it together cost one copy, not a thousand.
    let reading = this.reading.get(variant);
    if (!reading) {
      const stored = snapshot.read(storedSpanOf(entry, encoding));
      reading = (encoding === 'identity' ? stored.then((gz) => gunzipAsync(gz)) : stored).then(
        (bytes) => {
          this.cache.set(variant, bytes);
          this.reading.delete(variant);
          return bytes;
        },
        (error: unknown) => {
          this.reading.delete(variant);
          throw error;
        },
      );
      this.reading.set(variant, reading);
    }
    return reading.then((bytes) => ({ bytes, etag }));
  }

  /** A body assembled at request time: hashed (unless the hash is known), compressed once, cached. */
  assembled(identity: Buffer, encoding: Encoding, hash = contentHash(identity)): Body {
    const variant = `${hash}.${encoding}`;
    let bytes = this.cache.get(variant);
    if (!bytes) {
      bytes = compressNow(identity, encoding);
      this.cache.set(variant, bytes);
    }
    return { bytes, etag: etagOf(hash, encoding) };
  }

  /**
   * A measurements answer since `startDay`, assembled from the snapshot's fragments. The
   * assembled body and its hash are cached by snapshot, entry name and day (hashing hundreds of
   * kilobytes per request would cost more than sending them); compressed variants by content.
   */
  async measurements(snapshot: Snapshot, name: string, startDay: string, encoding: Encoding): Promise<Body> {
    const assemblyId = `${snapshot.buildId} ${name} ${startDay}`;
    let assembly = this.assemblies.get(assemblyId);
    if (!assembly) {
      const spans = snapshot.fragment(name)!;
      const [index, data] = await Promise.all([this.fragmentBytes(snapshot, spans.index), this.fragmentBytes(snapshot, spans.data)]);
      const identity = assembleMeasurements(JSON.parse(index.toString('utf8')) as MeasurementIndex, data, startDay);
      assembly = { identity, hash: contentHash(identity) };
      this.assemblies.set(assemblyId, assembly);
    }
    return this.assembled(assembly.identity, encoding, assembly.hash);
  }

  /** A fragment, inflated (it is stored gzip-compressed) and cached. */
  private async fragmentBytes(snapshot: Snapshot, span: Span): Promise<Buffer> {
    const fragmentId = `fragment ${snapshot.buildId} ${span[0]}`;
    let bytes = this.cache.get(fragmentId);
    if (!bytes) {
      bytes = await gunzipAsync(await snapshot.read(span));
      this.cache.set(fragmentId, bytes);
    }
    return bytes;
  }

  cacheStats(): { hits: number; misses: number; bytes: number } {
    return { hits: this.hits, misses: this.misses, bytes: this.cache.calculatedSize };
  }
}
