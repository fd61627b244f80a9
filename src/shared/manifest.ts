import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sha256 } from './sha256.ts';

/**
 * The snapshot manifest: the one file the server reads to know what it can answer. Written by
 * the build next to the pack of bodies; read by the server at start and on every switch.
 */

/** The symbolic link, inside the snapshot folder, that names the build being served. */
export const CURRENT_LINK = 'current';
export const MANIFEST_FILE = 'manifest.json';
export const PACK_FILE = 'bodies.pack';
/**
 * 2: a body's identity variant is not stored (it is the gzip variant, decompressed), and fragments are gzip-compressed.
 * 3: every stored part (variant, fragment, route index file) carries the checksum of its bytes.
 */
export const MANIFEST_FORMAT = 3;

/** Encodings a body is served in. */
export const ENCODINGS = ['identity', 'gzip', 'br'] as const;
export type Encoding = (typeof ENCODINGS)[number];
/** Encodings stored in the pack, in the order of their byte ranges in an index entry. */
export const STORED_ENCODINGS = ['gzip', 'br'] as const;
export type StoredEncoding = (typeof STORED_ENCODINGS)[number];

/** Byte range `[offset, length]` of one variant in the pack. */
export type Span = [number, number];

/** A byte range of the pack and the checksum (checksumOf) its bytes must have. */
export type CheckedSpan = [number, number, string];

/** What a build changed against the one before it, counted: the maintainer's summary (build/history/summary.ts). */
export interface BuildChangeCounts {
  previous_build_id: string | null;
  added: number;
  removed: number;
  /** Models with a changed field in any list shape. */
  changed: number;
  /** Changed fields of the Pro list (default prompt type) by their first name (`pricing`, `performance`...). */
  fields_by_kind: Record<string, number>;
}

/** The format of the history of builds (build/history/): its parts, and the state stored in them. */
export const HISTORY_FORMAT = 2;

/**
 * A stored part that holds several texts: brotli-compressed in the pack as one (the texts are
 * alike, and compress far better together), and where each text is in the decompressed bytes.
 */
export interface SectionedPart {
  span: CheckedSpan;
  /** By name: offset and length in the decompressed bytes. */
  sections: Record<string, [number, number]>;
}

/**
 * The history of builds a build carries (build/history/), as `GET /api/v2/changes` and a model's
 * history are joined from it. A `since` names one of `builds` or `before`, the build before the
 * oldest (null where the history starts).
 */
export interface HistoryParts {
  /** HISTORY_FORMAT: a history of another format is read as none. */
  format: number;
  /** The history's own state, which the next build continues (build/history/stored.ts), brotli-compressed. */
  state: CheckedSpan;
  builds: string[];
  before: string | null;
  /** Builds per page of `GET /api/v2/changes`. */
  page_size: number;
  /** Per build of `builds`: one item of the changes answer's `data` for each list shape (`free`, `pro PROMPT_TYPE`). */
  changes: SectionedPart[];
  /** By the model's last slug: the `data` of its history answer for each prompt type. */
  models: Record<string, SectionedPart>;
}

export interface Manifest {
  format: number;
  build_id: string;
  /** When the build ran (not part of any body). */
  built_at: string;
  /** End of every statistics window and series; fixed by the data, not the clock. */
  as_of: string;
  /** Digest of the inputs (data files, build code, options); an equal digest means nothing to rebuild. */
  input_digest: string;
  intelligence_index_version: number;
  page_size: number;
  /** Route ids this snapshot answers. */
  routes: string[];
  /** Route ids with an index file (`index/<route id>.json`) of precomputed bodies. */
  indexes: string[];
  /** Route id -> the checksum of its index file's bytes. */
  index_sums: Record<string, string>;
  entry_count: number;
  body_count: number;
  /** Empty-page key (page=*) -> the body around the page number. */
  empty_pages: Record<string, { before: string; after: string }>;
  /** Snapshot key of a request-time route -> its serialised records and their index, each gzip-compressed. */
  fragments: Record<string, { data: CheckedSpan; index: CheckedSpan }>;
  /** The CritPt problem set a grading batch must cover exactly. */
  critpt_problems: string[];
  /** The history of builds this one carries; absent in builds made before there was one. */
  history?: HistoryParts;
  /** What this build changed against the build before it, counted (build/history/summary.ts); absent with `history`. */
  changes?: BuildChangeCounts;
  /**
   * Written last by manifestText: the checksum of the manifest's text before it (its empty-page
   * templates are served bytes too).
   */
  manifest_sum?: string;
}

/** The build's history, or null when it carries none of the format this code reads. */
export function historyOf(manifest: Manifest): HistoryParts | null {
  const history = manifest.history;
  return history?.format === HISTORY_FORMAT ? history : null;
}

/** Bytes of the pack the history's parts take. */
export function historyPartsBytes(parts: HistoryParts): number {
  const spans = [
    parts.state,
    ...parts.changes.map((part) => part.span),
    ...Object.values(parts.models).map((p) => p.span),
  ];
  return spans.reduce((sum, [, length]) => sum + length, 0);
}

const SEAL = /,"manifest_sum":"([A-Za-z0-9_-]{22})"\}$/;

/** A manifest's text as the build writes it: its JSON with, last, the checksum of the text before. */
export function manifestText(manifest: Manifest): string {
  const body = JSON.stringify({ ...manifest, manifest_sum: undefined });
  return `${body.slice(0, -1)},"manifest_sum":"${checksumOf(body)}"}`;
}

/**
 * A manifest from its text, checked: throws naming `path` when it is not this server's format,
 * or when its text is not the text its checksum was made of.
 */
export function parseManifest(text: string, path: string): Manifest {
  const manifest = JSON.parse(text) as Manifest;
  if (manifest.format !== MANIFEST_FORMAT)
    throw new Error(
      `${path} has manifest format ${manifest.format}; this server reads format ${MANIFEST_FORMAT} (rebuild it)`,
    );
  const seal = SEAL.exec(text);
  if (!seal || checksumOf(`${text.slice(0, seal.index)}}`) !== seal[1]) throw new Error(`${path} fails its checksum`);
  return manifest;
}

/** The manifest of the build in `dir`, checked (build, tools). */
export function readManifest(dir: string): Manifest {
  const path = join(dir, MANIFEST_FILE);
  return parseManifest(readFileSync(path, 'utf8'), path);
}

/** The strong ETag of one variant: the identity body's hash, marked by encoding. */
export function etagOf(hash: string, encoding: Encoding): string {
  return encoding === 'identity' ? `"${hash}"` : `"${hash}-${encoding === 'gzip' ? 'gz' : 'br'}"`;
}

/** Content hash naming a body: SHA-256, base64url, 22 characters (132 bits). */
export function contentHash(bytes: Buffer | string): string {
  return sha256(bytes, 'base64url').slice(0, 22);
}

/**
 * The checksum of stored bytes, written by the build and checked before the bytes are used.
 * The content hash's function: SHA-256 runs at about 1.3 GB/s here, so checking a body read
 * from the pack costs microseconds, and a flipped bit cannot go unnoticed.
 */
export const checksumOf = contentHash;

export const INDEX_DIR = 'index';

/**
 * One precomputed body as a route's index holds it: its content hash, the length of its
 * identity variant, offset and length of the gzip and br variants in the pack, then the
 * checksums of those two variants. The identity bytes are not stored (they were two thirds of
 * the pack): they are the gzip variant decompressed, which takes about a millisecond per 100 KB
 * and is then cached.
 */
export type IndexEntry = [string, number, number, number, number, number, string, string];

/** A route's index: entry name -> its body. One file per route, so a server loads only what it serves. */
export type RouteIndex = Record<string, IndexEntry>;

export function indexFile(routeId: string): string {
  return `${INDEX_DIR}/${routeId}.json`;
}

/** The byte range of one stored variant of an index entry, and its checksum. */
export function spanOf(entry: IndexEntry, encoding: StoredEncoding): CheckedSpan {
  const n = STORED_ENCODINGS.indexOf(encoding);
  return [entry[2 + n * 2] as number, entry[3 + n * 2] as number, entry[6 + n] as string];
}

/** An index entry from a body's hash, identity length and its two stored variants. */
export function indexEntry(
  hash: string,
  identityLength: number,
  [gzOffset, gzLength, gzSum]: CheckedSpan,
  [brOffset, brLength, brSum]: CheckedSpan,
): IndexEntry {
  return [hash, identityLength, gzOffset, gzLength, brOffset, brLength, gzSum, brSum];
}

/** Where the bytes a client asks for come from: identity is not stored, it is the gzip variant inflated. */
export function storedSpanOf(entry: IndexEntry, encoding: Encoding): CheckedSpan {
  return spanOf(entry, encoding === 'identity' ? 'gzip' : encoding);
}

/**
 * The names of a build's stored parts, as logs, `/readyz` and the server's list of corrupt parts
 * give them: one spelling wherever a part is checked, so the same part found twice counts once.
 */
export const storedPart = {
  variant: (encoding: StoredEncoding, hash: string) => `${encoding} variant of body ${hash}`,
  fragment: (kind: 'records' | 'index', name: string) => `${kind} fragment of ${name}`,
  history: () => 'the history of changes',
  changes: (buildId: string) => `changes of build ${buildId}`,
  modelHistory: (slug: string) => `history of model ${slug}`,
  indexFile: (routeId: string) => `index file ${indexFile(routeId)}`,
};

/** A body's bytes in one encoding, read out of a whole pack in memory and checked (tools and tests). */
export function variantOf(pack: Buffer, entry: IndexEntry, encoding: Encoding): Buffer {
  const [offset, length, sum] = storedSpanOf(entry, encoding);
  const stored = pack.subarray(offset, offset + length);
  if (checksumOf(stored) !== sum)
    throw new Error(`the ${storedPart.variant(encoding === 'br' ? 'br' : 'gzip', entry[0])} fails its checksum`);
  return encoding === 'identity' ? gunzipSync(stored) : stored;
}

/** A route index file's bytes, parsed, if they pass their checksum in the manifest; null otherwise. */
export function checkedRouteIndex(bytes: Buffer, manifest: Manifest, routeId: string): RouteIndex | null {
  return checksumOf(bytes) === manifest.index_sums[routeId] ? (JSON.parse(bytes.toString('utf8')) as RouteIndex) : null;
}

/** A route's index file, parsed, if its bytes pass their checksum; null otherwise. Throws what reading it throws. */
export function readRouteIndex(dir: string, manifest: Manifest, routeId: string): RouteIndex | null {
  return checkedRouteIndex(readFileSync(join(dir, indexFile(routeId))), manifest, routeId);
}

/**
 * Every entry of a snapshot, all routes together (for tools and tests); throws when an index file
 * fails its checksum.
 */
export function readAllEntries(dir: string, manifest: Manifest): Map<string, IndexEntry> {
  const all = new Map<string, IndexEntry>();
  for (const routeId of manifest.indexes) {
    const index = readRouteIndex(dir, manifest, routeId);
    if (!index) throw new Error(`${join(dir, indexFile(routeId))} fails its checksum`);
    for (const [key, entry] of Object.entries(index)) all.set(key, entry);
  }
  return all;
}
