/**
 * Bodies out of a snapshot, kept hot in an LRU bounded by bytes. The LRU is keyed by content
 * hash and encoding, so bodies unchanged by a rebuild stay hot across a switch; only bytes that
 * passed their checksum (snapshot.ts) ever enter it. When the variant a client prefers fails its
 * checksum, another encoding the client accepts is sent instead, made from a variant that passes.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, brotliDecompress, constants, gunzip, gzip, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { Eventually } from '../lib/eventually.ts';
import { assembleMeasurements, type MeasurementIndex } from '../shared/measurements.ts';
import {
  contentHash,
  spanOf,
  storedPart,
  type CheckedSpan,
  type Encoding,
  type IndexEntry,
  type SectionedPart,
} from '../shared/manifest.ts';
import { CorruptPart, type Body, type Snapshot } from './snapshot.ts';
import { VariantNames } from './variant-names.ts';

/** One text of a stored part of the history (src/shared/manifest.ts, SectionedPart), and the part's name for logs. */
export interface StoredSection {
  part: SectionedPart;
  section: string;
  what: string;
}

const gunzipAsync = promisify(gunzip);
const brotliDecompressAsync = promisify(brotliDecompress);

const gzipAsync = promisify(gzip);
const brotliCompressAsync = promisify(brotliCompress);

/**
 * Bodies assembled at request time up to this size are compressed at once; larger ones on
 * libuv's threads, so that no first request for one holds the event loop: a page of ten builds'
 * changes of the sample is 2.5 MB, which took 27-36 ms to brotli and 35-44 ms to gzip here.
 */
const COMPRESS_AT_ONCE_BYTES = 64 * 1024;

const brotliOptions = (identity: Buffer) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
});

/** Compress a body assembled at request time (done once, then cached). */
function compressNow(identity: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(identity, { level: 6 });
  if (encoding === 'br') return brotliCompressSync(identity, brotliOptions(identity));
  return identity;
}

function compressLater(identity: Buffer, encoding: 'gzip' | 'br'): Promise<Buffer> {
  return encoding === 'gzip'
    ? gzipAsync(identity, { level: 6 })
    : brotliCompressAsync(identity, brotliOptions(identity));
}

/**
 * The one promise of `key` while its work is under way: callers that ask at once share that
 * work and its buffer. Without it, the requests of one turn that all missed the same measurements
 * answer each inflated its fragments and assembled it anew: 16 to 64 copies of a provider's
 * records at once, which raised the peak resident memory of the bench's mix from 96 to 117 MB.
 */
function shared<T>(underWay: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let pending = underWay.get(key);
  if (!pending) {
    pending = make().finally(() => underWay.delete(key));
    underWay.set(key, pending);
  }
  return pending;
}

export class BodyReader {
  private readonly cache: LRUCache<string, Buffer>;
  /** Reads of bodies under way, by variant (content hash and encoding): one read however many requests wait for it. */
  private readonly reading = new Map<string, Promise<Buffer>>();
  /** The same for measurements answers being assembled, and for fragments being inflated. */
  private readonly assembling = new Map<string, Promise<{ identity: Buffer; hash: string }>>();
  private readonly inflating = new Map<string, Promise<Buffer>>();
  /** Bodies assembled at request time, with their content hash. */
  private readonly assemblies: LRUCache<string, { identity: Buffer; hash: string }>;
  /**
   * The content hash of every answer assembled lately, kept longer than its identity bytes: an
   * answer whose bytes left `assemblies` is still sent from its compressed variant in the cache.
   * A model's history in one prompt type at 31 daily builds of the sample is 68 KB, 21 MB for all
   * 320 models, while the bench's whole cache is 16 MiB.
   */
  private readonly assemblyHashes = new LRUCache<string, string>({ max: 100_000 });
  private readonly names = new VariantNames();
  private hits = 0;
  private misses = 0;

  constructor(cacheBytes: number) {
    this.cache = new LRUCache<string, Buffer>({
      maxSize: Math.max(1, cacheBytes),
      sizeCalculation: (b) => Math.max(1, b.length),
    });
    // A quarter of the budget again: assembled answers are few (one per provider, prompt type and day).
    this.assemblies = new LRUCache({
      maxSize: Math.max(1, cacheBytes / 4),
      sizeCalculation: (a) => Math.max(1, a.identity.length),
    });
  }

  /**
   * A precomputed body in the first of `encodings` (the client's acceptable encodings, best
   * first) whose bytes pass their checksum: at once from the LRU, else read from the pack.
   * Rejects with CorruptPart when none does.
   */
  body(snapshot: Snapshot, entry: IndexEntry, encodings: readonly Encoding[]): Eventually<Body> {
    const first = this.variant(snapshot, entry, encodings[0]);
    if (!(first instanceof Promise) || encodings.length === 1) return first;
    return first.catch((error: unknown) => this.fallBack(snapshot, entry, encodings.slice(1), error));
  }

  /** The next acceptable encoding that passes, or the first failure again when none does. */
  private async fallBack(
    snapshot: Snapshot,
    entry: IndexEntry,
    encodings: readonly Encoding[],
    failure: unknown,
  ): Promise<Body> {
    if (!(failure instanceof CorruptPart)) throw failure;
    for (const encoding of encodings) {
      try {
        return await this.variant(snapshot, entry, encoding);
      } catch (error) {
        if (!(error instanceof CorruptPart)) throw error;
      }
    }
    throw failure;
  }

  private variant(snapshot: Snapshot, entry: IndexEntry, encoding: Encoding): Eventually<Body> {
    const { key: variant, etag } = this.names.of(entry[0], encoding);
    const cached = this.cache.get(variant);
    if (cached) {
      this.hits++;
      return { bytes: cached, encoding, etag };
    }
    this.misses++;
    // Requests that miss the same body at once share one read (and one buffer): a thousand
    // clients asking for it together cost one copy, not a thousand.
    const reading = shared(this.reading, variant, () =>
      this.stored(snapshot, entry, encoding).then((bytes) => {
        this.cache.set(variant, bytes);
        return bytes;
      }),
    );
    return reading.then((bytes) => ({ bytes, encoding, etag }));
  }

  /**
   * A variant's bytes from the pack, checked. Identity is not stored: it is the gzip variant
   * inflated, or the br one when gzip fails.
   */
  private async stored(snapshot: Snapshot, entry: IndexEntry, encoding: Encoding): Promise<Buffer> {
    const read = (stored: 'gzip' | 'br') => snapshot.read(spanOf(entry, stored), storedPart.variant(stored, entry[0]));
    if (encoding !== 'identity') return read(encoding);
    try {
      return await gunzipAsync(await read('gzip'));
    } catch (error) {
      if (!(error instanceof CorruptPart)) throw error;
      return brotliDecompressAsync(await read('br'));
    }
  }

  /**
   * A body assembled at request time: hashed (unless the hash is known), compressed once (a large
   * one off the event loop, however many requests ask for it at once), cached.
   */
  assembled(identity: Buffer, encoding: Encoding, hash = contentHash(identity)): Eventually<Body> {
    const cached = this.cachedVariant(hash, encoding);
    if (cached) return cached;
    const { key: variant, etag } = this.names.of(hash, encoding);
    if (encoding === 'identity' || identity.length <= COMPRESS_AT_ONCE_BYTES) {
      const bytes = compressNow(identity, encoding);
      this.cache.set(variant, bytes);
      return { bytes, encoding, etag };
    }
    const compressing = shared(this.reading, variant, () =>
      compressLater(identity, encoding).then((bytes) => {
        this.cache.set(variant, bytes);
        return bytes;
      }),
    );
    return compressing.then((bytes) => ({ bytes, encoding, etag }));
  }

  /**
   * A measurements answer since `startDay`, assembled from the snapshot's fragments. The
   * assembled body and its hash are cached by snapshot, entry name and day (hashing hundreds of
   * kilobytes per request would cost more than sending them); compressed variants by content.
   */
  measurements(snapshot: Snapshot, name: string, startDay: string, encoding: Encoding): Eventually<Body> {
    return this.assembledOnce(`${snapshot.buildId} ${name} ${startDay}`, encoding, () =>
      this.assemble(snapshot, name, startDay),
    );
  }

  /**
   * An answer joined from stored texts (the changes of the builds it lists, a model's history):
   * `before`, the texts with commas between them, `after`. Cached as a measurements answer is, by
   * `assemblyId` (the build and the request that chose the texts).
   */
  joined(
    snapshot: Snapshot,
    assemblyId: string,
    texts: readonly StoredSection[],
    [before, after]: [string, string],
    encoding: Encoding,
  ): Eventually<Body> {
    return this.assembledOnce(`${snapshot.buildId} ${assemblyId}`, encoding, async () => {
      const read = await Promise.all(texts.map((text) => this.sectionBytes(snapshot, text)));
      const pieces: Buffer[] = [Buffer.from(before)];
      read.forEach((text, i) => pieces.push(...(i ? [Buffer.from(','), text] : [text])));
      const identity = Buffer.concat([...pieces, Buffer.from(after)]);
      return { identity, hash: contentHash(identity) };
    });
  }

  /** An assembled answer's variant, when the cache holds it. */
  private cachedVariant(hash: string, encoding: Encoding): Body | undefined {
    const { key, etag } = this.names.of(hash, encoding);
    const bytes = this.cache.get(key);
    return bytes && { bytes, encoding, etag };
  }

  /** An assembled answer from the cache, else made once however many requests ask at once, then cached. */
  private assembledOnce(
    assemblyId: string,
    encoding: Encoding,
    make: () => Promise<{ identity: Buffer; hash: string }>,
  ): Eventually<Body> {
    const assembly = this.assemblies.get(assemblyId);
    if (assembly) return this.assembled(assembly.identity, encoding, assembly.hash);
    const hash = this.assemblyHashes.get(assemblyId);
    const cached = hash && this.cachedVariant(hash, encoding);
    if (cached) return cached;
    const assembling = shared(this.assembling, assemblyId, () =>
      make().then((made) => {
        this.assemblies.set(assemblyId, made);
        this.assemblyHashes.set(assemblyId, made.hash);
        return made;
      }),
    );
    return assembling.then((made) => this.assembled(made.identity, encoding, made.hash));
  }

  private async assemble(
    snapshot: Snapshot,
    name: string,
    startDay: string,
  ): Promise<{ identity: Buffer; hash: string }> {
    const spans = snapshot.fragment(name)!;
    const [index, data] = await Promise.all([
      this.fragmentBytes(snapshot, spans.index, storedPart.fragment('index', name)),
      this.fragmentBytes(snapshot, spans.data, storedPart.fragment('records', name)),
    ]);
    const identity = assembleMeasurements(JSON.parse(index.toString('utf8')) as MeasurementIndex, data, startDay);
    return { identity, hash: contentHash(identity) };
  }

  /** A fragment, checked, inflated (it is stored gzip-compressed) and cached. */
  private fragmentBytes(snapshot: Snapshot, span: CheckedSpan, part: string): Promise<Buffer> {
    const fragmentId = `fragment ${snapshot.buildId} ${span[0]}`;
    const cached = this.cache.get(fragmentId);
    if (cached) return Promise.resolve(cached);
    return shared(this.inflating, fragmentId, async () => {
      const bytes = await gunzipAsync(await snapshot.read(span, part));
      this.cache.set(fragmentId, bytes);
      return bytes;
    });
  }

  /**
   * One text of a part of the history, checked, the part decompressed (it is stored
   * brotli-compressed) on libuv's threads. Not cached: the answers joined from it are, and the
   * part of a build's changes in every list holds ten times what one answer reads.
   */
  private async sectionBytes(snapshot: Snapshot, { part, section, what }: StoredSection): Promise<Buffer> {
    const whole = await shared(this.inflating, `part ${snapshot.buildId} ${part.span[0]}`, async () =>
      brotliDecompressAsync(await snapshot.read(part.span, what)),
    );
    const [offset, length] = part.sections[section]!;
    return whole.subarray(offset, offset + length);
  }

  cacheStats(): { hits: number; misses: number; bytes: number } {
    return { hits: this.hits, misses: this.misses, bytes: this.cache.calculatedSize };
  }
}
