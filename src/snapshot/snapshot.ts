/**
 * One build, as the server reads it: its manifest in memory, its route indexes loaded on first
 * use (or by its verification, verifier.ts), and its pack of bodies open for positional reads.
 * Every byte it hands out has passed the checksum the build wrote for it; a part that fails, or
 * a file that cannot be read, is remembered (its `trouble`), never served.
 * Requests acquire it for their whole answer and release it when done, so a snapshot switched
 * out under them is closed only once the last one has finished (no response mixes two builds).
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from '../lib/error-code.ts';
import { Unavailable } from '../lib/unavailable.ts';
import {
  checksumOf,
  MANIFEST_FILE,
  PACK_FILE,
  indexFile,
  parseManifest,
  readRouteIndex,
  storedPart,
  type CheckedSpan,
  type Encoding,
  type IndexEntry,
  type Manifest,
  type RouteIndex,
} from '../shared/manifest.ts';
import { corruptionSummary } from '../shared/verify-build.ts';

/** A body ready to send: its bytes, the encoding they are in, and that variant's ETag. */
export interface Body {
  bytes: Buffer;
  encoding: Encoding;
  etag: string;
}

/** Stored bytes failed their checksum: not sent. The message is the client's; the part goes to the log. */
export class CorruptPart extends Unavailable {
  readonly retryAfterSeconds = 60;
  constructor(readonly part: string) {
    super('The stored answer failed its integrity check and was not sent; the operator has been told');
    this.name = 'CorruptPart';
  }
}

/** A file of the build cannot be read (removed, unreadable). */
export class BuildUnreadable extends Unavailable {
  readonly retryAfterSeconds = 30;
  constructor(readonly reason: string) {
    super('The data files of this server cannot be read right now; retry later');
    this.name = 'BuildUnreadable';
  }
}

/** What is wrong with a build: the parts that fail their checksum, and why it cannot be read, if so. */
export interface Trouble {
  corrupt: string[];
  unreadable: string | null;
}

export class Snapshot {
  /** Requests under way on this snapshot; its pack is closed when it is retired and idle. */
  private inflight = 0;
  private retired = false;
  private readonly servedRoutes: Set<string>;
  private readonly indexes = new Map<string, RouteIndex>();
  /** Offsets of pack parts that failed their checksum: not read again. */
  private readonly corruptOffsets = new Set<number>();
  readonly trouble: Trouble = { corrupt: [], unreadable: null };
  /**
   * Told once per new trouble: a part that fails its checksum, or (null) that the build cannot be
   * read. The store makes it a condition, a log line and a metric.
   */
  onTrouble: (corruptPart: string | null) => void = () => {};

  private constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    readonly pack: FileHandle,
  ) {
    this.servedRoutes = new Set(manifest.routes);
  }

  static async open(dir: string): Promise<Snapshot> {
    const path = join(dir, MANIFEST_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`cannot read snapshot manifest ${path}: ${(error as Error).message}`);
    }
    const manifest = parseManifest(text, path);
    const pack = await open(join(dir, PACK_FILE), 'r');
    return new Snapshot(dir, manifest, pack);
  }

  get buildId(): string {
    return this.manifest.build_id;
  }

  get isRetired(): boolean {
    return this.retired;
  }

  serves(routeId: string): boolean {
    return this.servedRoutes.has(routeId);
  }

  /**
   * The body an entry name names, if the snapshot has it. A route's index is read on its first
   * use (and all are loaded by the verification in the background), so start-up does not grow
   * with the snapshot.
   */
  entry(routeId: string, name: string): IndexEntry | undefined {
    // One read: an entry is an array, which nothing an index inherits is (`constructor`,
    // `__proto__`), so no own-property check is needed (bench/analysis.md, "A shorter path").
    const entry = this.indexFor(routeId)?.[name];
    return Array.isArray(entry) ? entry : undefined;
  }

  private indexFor(routeId: string): RouteIndex | null {
    const loaded = this.indexes.get(routeId);
    if (loaded) return loaded;
    if (!this.manifest.indexes.includes(routeId)) return null;
    let index: RouteIndex | null;
    try {
      index = readRouteIndex(this.dir, this.manifest, routeId);
    } catch (error) {
      throw this.unreadable(`cannot read ${join(this.dir, indexFile(routeId))}: ${errorCode(error)}`);
    }
    if (!index) throw this.corrupt(storedPart.indexFile(routeId));
    this.indexes.set(routeId, index);
    return index;
  }

  /** An index file the verification read and checked. */
  adoptIndex(routeId: string, index: RouteIndex): void {
    if (!this.indexes.has(routeId)) this.indexes.set(routeId, index);
  }

  /** The measurement fragments an entry name names (the head index and the records), if any. */
  fragment(name: string): { data: CheckedSpan; index: CheckedSpan } | undefined {
    return Object.hasOwn(this.manifest.fragments, name) ? this.manifest.fragments[name] : undefined;
  }

  /** The template of any page past the last of a list, by the entry name of its pages (`page=*`). */
  emptyPage(name: string): { before: string; after: string } | undefined {
    return Object.hasOwn(this.manifest.empty_pages, name) ? this.manifest.empty_pages[name] : undefined;
  }

  /**
   * A part of the pack, checked against its checksum; rejects with CorruptPart or BuildUnreadable.
   * `part` names it for the log.
   */
  async read([offset, length, sum]: CheckedSpan, part: string): Promise<Buffer> {
    if (this.corruptOffsets.has(offset)) throw new CorruptPart(part);
    const buffer = Buffer.allocUnsafe(length);
    let bytesRead;
    try {
      ({ bytesRead } = await this.pack.read(buffer, 0, length, offset));
    } catch (error) {
      throw this.unreadable(`cannot read ${join(this.dir, PACK_FILE)}: ${errorCode(error)}`);
    }
    if (bytesRead !== length || checksumOf(buffer) !== sum) {
      this.corruptOffsets.add(offset);
      throw this.corrupt(part);
    }
    return buffer;
  }

  /** Record a part that fails its checksum (found by a read or by the verification). */
  corrupt(part: string): CorruptPart {
    if (!this.trouble.corrupt.includes(part)) {
      this.trouble.corrupt.push(part);
      this.onTrouble(part);
    }
    return new CorruptPart(part);
  }

  /** Record that a file of the build cannot be read. */
  unreadable(reason: string): BuildUnreadable {
    if (this.trouble.unreadable === null) {
      this.trouble.unreadable = reason;
      this.onTrouble(null);
    }
    return new BuildUnreadable(reason);
  }

  /** What /readyz and the log say of this build's trouble, or null when it has none. */
  troubleSummary(): string | null {
    if (this.trouble.unreadable) return `build ${this.buildId} cannot be read: ${this.trouble.unreadable}`;
    return this.trouble.corrupt.length > 0 ? corruptionSummary(this.buildId, this.trouble.corrupt) : null;
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
