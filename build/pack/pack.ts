/**
 * Write response bodies into one pack file: each distinct body once (by content hash), as its
 * gzip and brotli variants (the identity bytes are the gzip variant decompressed; the index
 * keeps their length). Compression runs on worker threads (compress-pool.ts), a bounded
 * number at a time, and results are written in the order bodies were added, so the same
 * input gives the same pack. A body the previous snapshot already holds is copied from it
 * rather than compressed again, which makes an unchanged rebuild cheap.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { contentHash, spanOf, type IndexEntry, type Span } from '../../src/shared/manifest.ts';
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

export interface RawHandle {
  span: Span | null;
}

export interface PackStats {
  bodies: number;
  /** Bytes of fragments before compression (serialised measurement records and their indexes). */
  rawBytes: number;
  reused: number;
  identityBytes: number;
  packBytes: number;
}

export class PackWriter {
  /** By content hash: identity length, gzip span, br span. */
  readonly bodies: Record<string, [number, Span, Span]> = {};
  readonly stats: PackStats = { bodies: 0, rawBytes: 0, reused: 0, identityBytes: 0, packBytes: 0 };
  private readonly fd: number;
  private readonly previousFd: number | null;
  private readonly pending: ({ hash: string; length: number; variants: Promise<[Buffer, Buffer]> } | { fragmentLength: number; stored: Promise<Buffer>; handle: RawHandle })[] = [];
  private readonly known = new Set<string>();
  /** Previous bodies by hash: gzip and br spans. */
  private readonly reusable = new Map<string, [Span, Span]>();
  private readonly digest = createHash('sha256');
  private readonly compressor: CompressPool;
  private offset = 0;

  constructor(
    readonly path: string,
    levels: CompressionLevels,
    private readonly previous: PreviousPack | null,
  ) {
    this.fd = openSync(path, 'wx', 0o644);
    this.compressor = new CompressPool(levels);
    this.previousFd = previous ? openSync(previous.path, 'r') : null;
    for (const entry of previous?.entries.values() ?? []) this.reusable.set(entry[0], [spanOf(entry, 'gzip'), spanOf(entry, 'br')]);
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
   * Add a fragment the server slices (serialised measurement records, their index): stored
   * gzip-compressed, not deduplicated, inflated whole by the server on first use. The handle's
   * span is set once written, at the latest by finish().
   */
  async addFragment(bytes: Buffer): Promise<RawHandle> {
    const handle: RawHandle = { span: null };
    // Length first: the bytes may move to a compressor thread.
    this.pending.push({ fragmentLength: bytes.length, stored: this.compressor.gzip(bytes), handle });
    while (this.pending.length >= IN_FLIGHT) await this.writeOldest();
    return handle;
  }

  private variantsOf(hash: string, identity: Buffer): Promise<[Buffer, Buffer]> {
    const spans = this.reusable.get(hash);
    if (spans && this.previousFd !== null) {
      this.stats.reused++;
      return Promise.resolve([this.readPrevious(spans[0]), this.readPrevious(spans[1])]);
    }
    return this.compressor.compress(identity);
  }

  private readPrevious([offset, length]: Span): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    const read = readSync(this.previousFd!, buffer, 0, length, offset);
    if (read !== length) throw new Error(`previous pack ${this.previous!.path} is shorter than its manifest says`);
    return buffer;
  }

  private append(bytes: Buffer): Span {
    const span: Span = [this.offset, bytes.length];
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    this.digest.update(bytes);
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

  /** Write what is pending, fsync, close; returns the SHA-256 of everything written. */
  async finish(): Promise<string> {
    while (this.pending.length > 0) await this.writeOldest();
    await this.compressor.close();
    fsyncSync(this.fd);
    closeSync(this.fd);
    if (this.previousFd !== null) closeSync(this.previousFd);
    this.stats.packBytes = this.offset;
    return this.digest.digest('hex');
  }
}
