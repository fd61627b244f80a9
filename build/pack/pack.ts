/**
 * Write response bodies into one pack file: each distinct body once (by content hash), as its
 * gzip and brotli variants (the identity bytes are the gzip variant decompressed; the index
 * keeps their length). Compression runs on worker threads (compress-pool.ts), a bounded
 * number at a time, and results are written in the order bodies were added, so the same
 * input gives the same pack. A body the previous snapshot already holds is copied from it
 * rather than compressed again, which makes an unchanged rebuild cheap; only bytes that pass
 * their checksum are copied (a corrupt previous pack must not pass its corruption on).
 * Every part written carries the checksum of its bytes.
 */
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  checksumOf,
  contentHash,
  PACK_FILE,
  readRouteIndex,
  spanOf,
  type CheckedSpan,
  type IndexEntry,
  type Manifest,
} from '../../src/shared/manifest.ts';
import { CompressPool, type CompressionLevels } from './compress-pool.ts';

export type { CompressionLevels };

/** Chosen by measurement on the sample snapshot (data/README.md, "Building a snapshot"). */
export const DEFAULT_LEVELS: CompressionLevels = { gzip: 6, brotli: 6 };

/** Bodies handed to the compressors and not yet written. */
const IN_FLIGHT = 64;

/** Where a body's compressed variants can be copied from instead of compressing again. */
export interface PreviousPack {
  path: string;
  /** The previous snapshot's entries; a body is found by its hash (the entry's first item). */
  entries: Map<string, IndexEntry>;
}

/**
 * What a build can copy from the build before it: the entries of every index file that passes
 * its checksum (a corrupt or missing one only means more to compress).
 */
export function previousPack(dir: string, manifest: Manifest): PreviousPack {
  const entries = new Map<string, IndexEntry>();
  for (const routeId of manifest.indexes) {
    let index;
    try {
      index = readRouteIndex(dir, manifest, routeId);
    } catch {
      index = null;
    }
    for (const [key, entry] of Object.entries(index ?? {})) entries.set(key, entry);
  }
  return { path: join(dir, PACK_FILE), entries };
}

export interface RawHandle {
  span: CheckedSpan | null;
}

export interface PackStats {
  bodies: number;
  /** Bytes of fragments before compression (serialised measurement records and their indexes). */
  rawBytes: number;
  reused: number;
  /** Bodies of the previous pack that failed their checksum, compressed anew instead. */
  corruptPrevious: number;
  identityBytes: number;
  packBytes: number;
}

export class PackWriter {
  /** By content hash: identity length, gzip span, br span. */
  readonly bodies: Record<string, [number, CheckedSpan, CheckedSpan]> = {};
  readonly stats: PackStats = { bodies: 0, rawBytes: 0, reused: 0, corruptPrevious: 0, identityBytes: 0, packBytes: 0 };
  private readonly fd: number;
  private readonly previousFd: number | null;
  private readonly pending: (
    | { hash: string; length: number; variants: Promise<[Buffer, Buffer]> }
    | { fragmentLength: number; stored: Promise<Buffer>; handle: RawHandle }
  )[] = [];
  private readonly known = new Set<string>();
  /** Previous bodies by hash: gzip and br spans. */
  private readonly reusable = new Map<string, [CheckedSpan, CheckedSpan]>();
  private readonly compressor: CompressPool;
  private offset = 0;

  constructor(
    readonly path: string,
    levels: CompressionLevels,
    previous: PreviousPack | null,
  ) {
    this.fd = openSync(path, 'wx', 0o644);
    this.compressor = new CompressPool(levels);
    this.previousFd = previous ? openSync(previous.path, 'r') : null;
    for (const entry of previous?.entries.values() ?? [])
      this.reusable.set(entry[0], [spanOf(entry, 'gzip'), spanOf(entry, 'br')]);
  }

  /**
   * Add a body; returns its content hash. Waits when too many compressions are under way. The
   * bytes may be handed to a compressor thread: the caller must not use them afterwards.
   */
  async add(identity: Buffer): Promise<string> {
    const hash = contentHash(identity);
    if (this.known.has(hash)) return hash;
    this.known.add(hash);
    this.pending.push({ hash, length: identity.length, variants: this.variantsOf(hash, identity) });
    while (this.pending.length >= IN_FLIGHT) await this.writeOldest();
    return hash;
  }

  /**
   * Add a fragment the server slices (serialised measurement records, their index; the history's
   * parts): stored gzip- or brotli-compressed, not deduplicated, decompressed whole by the server
   * on first use. The handle's span is set once written, at the latest by finish().
   */
  async addFragment(bytes: Buffer, stored: 'gzip' | 'br' = 'gzip'): Promise<RawHandle> {
    // Length first: the bytes may move to a compressor thread.
    return this.queue(bytes.length, this.compressor.only(bytes, stored));
  }

  /** Add bytes already compressed (a part of the previous build's history, carried on), stored as they are. */
  async addCompressed(bytes: Buffer): Promise<RawHandle> {
    return this.queue(0, Promise.resolve(bytes));
  }

  private async queue(fragmentLength: number, stored: Promise<Buffer>): Promise<RawHandle> {
    const handle: RawHandle = { span: null };
    this.pending.push({ fragmentLength, stored, handle });
    while (this.pending.length >= IN_FLIGHT) await this.writeOldest();
    return handle;
  }

  private variantsOf(hash: string, identity: Buffer): Promise<[Buffer, Buffer]> {
    const spans = this.reusable.get(hash);
    if (spans && this.previousFd !== null) {
      const gz = this.readPrevious(spans[0]);
      const br = this.readPrevious(spans[1]);
      if (gz && br) {
        this.stats.reused++;
        return Promise.resolve([gz, br]);
      }
      this.stats.corruptPrevious++;
    }
    return this.compressor.compress(identity);
  }

  /** A variant of the previous pack, or null when its bytes are not the ones its checksum says (or are missing). */
  private readPrevious([offset, length, sum]: CheckedSpan): Buffer | null {
    const buffer = Buffer.allocUnsafe(length);
    const read = readSync(this.previousFd!, buffer, 0, length, offset);
    return read === length && checksumOf(buffer) === sum ? buffer : null;
  }

  private append(bytes: Buffer): CheckedSpan {
    const span: CheckedSpan = [this.offset, bytes.length, checksumOf(bytes)];
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    this.offset += bytes.length;
    return span;
  }

  private async writeOldest(): Promise<void> {
    const next = this.pending.shift()!;
    if ('fragmentLength' in next) {
      next.handle.span = this.append(await next.stored);
      this.stats.rawBytes += next.fragmentLength;
      return;
    }
    const { hash, length, variants } = next;
    const [gz, br] = await variants;
    this.bodies[hash] = [length, this.append(gz), this.append(br)];
    this.stats.bodies++;
    this.stats.identityBytes += length;
  }

  /** Write what is pending, fsync, close. */
  async finish(): Promise<void> {
    while (this.pending.length > 0) await this.writeOldest();
    await this.compressor.close();
    fsyncSync(this.fd);
    closeSync(this.fd);
    if (this.previousFd !== null) closeSync(this.previousFd);
    this.stats.packBytes = this.offset;
  }
}
