/**
 * One build, as the server reads it: its manifest in memory, its route indexes loaded on first
 * use, and its pack of bodies open for positional reads. Requests acquire it for their whole
 * answer and release it when done, so a snapshot switched out under them is closed only once the
 * last one has finished (no response mixes two builds).
 */
import { readFileSync } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Step } from '../lib/idle-work.ts';
import { MANIFEST_FILE, MANIFEST_FORMAT, PACK_FILE, indexFile, type IndexEntry, type Manifest, type RouteIndex, type Span } from '../shared/manifest.ts';

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
   * The body an entry name names, if the snapshot has it. A route's index is read on its first
   * use (and all are warmed in the background), so start-up does not grow with the snapshot.
   */
  entry(routeId: string, name: string): IndexEntry | undefined {
    const index = this.indexFor(routeId);
    return index && Object.hasOwn(index, name) ? index[name] : undefined;
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

  /** The measurement fragments an entry name names (the head index and the records), if any. */
  fragment(name: string): { data: Span; index: Span } | undefined {
    return Object.hasOwn(this.manifest.fragments, name) ? this.manifest.fragments[name] : undefined;
  }

  /** The template of any page past the last of a list, by the entry name of its pages (`page=*`). */
  emptyPage(name: string): { before: string; after: string } | undefined {
    return Object.hasOwn(this.manifest.empty_pages, name) ? this.manifest.empty_pages[name] : undefined;
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
