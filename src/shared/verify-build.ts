/**
 * Checking a whole build against the checksums its manifest and indexes carry: every route
 * index file, then every stored variant and fragment of the pack. One walk, written once as a
 * generator that says which bytes it needs next and is handed them, so the build (synchronous
 * reads, all at once: verifyBuildSync) and the server (asynchronous reads, paced so traffic
 * comes first: src/snapshot/verifier.ts) check a build the same way.
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRangeSync } from './read-range.ts';
import {
  checkedRouteIndex,
  checksumOf,
  indexFile,
  historyOf,
  PACK_FILE,
  STORED_ENCODINGS,
  spanOf,
  storedPart,
  type CheckedSpan,
  type Manifest,
  type RouteIndex,
  type Span,
} from './manifest.ts';

/** What the walk needs read next: a file of the build (by its path inside the build), or a range of its pack. */
export type Need = { file: string } | { span: Span };

/** How far a walk has got: index files first, then the pack's bytes (known once the indexes are read). */
export interface VerificationProgress {
  indexesChecked: number;
  indexes: number;
  bytesChecked: number;
  bytes: number;
}

export interface VerificationSink {
  /** An index file whose bytes checked out, parsed. */
  index?: (routeId: string, index: RouteIndex) => void;
  /** A stored part whose bytes fail their checksum, described for a log line. */
  corrupt: (part: string) => void;
}

/** Reads of the pack up to this size check several small parts at once (most bodies are a few KB). */
export const CHUNK_BYTES = 1 << 20;

interface Part {
  offset: number;
  length: number;
  sum: string;
  what: string;
}

export function newProgress(manifest: Manifest): VerificationProgress {
  return { indexesChecked: 0, indexes: manifest.indexes.length, bytesChecked: 0, bytes: 0 };
}

/**
 * Walk a build: yield what must be read, receive its bytes, check them. A part that fails is
 * told to the sink and the walk goes on, so one run finds every corrupt part. A read that fails
 * (a missing file) is the driver's to report: the walk ends there.
 */
export function* verification(
  manifest: Manifest,
  progress: VerificationProgress,
  sink: VerificationSink,
  chunkBytes = CHUNK_BYTES,
): Generator<Need, void, Buffer> {
  // By offset: bodies shared by several entries are stored, and checked, once.
  const parts = new Map<number, Part>();
  const add = ([offset, length, sum]: CheckedSpan, what: string) => {
    if (!parts.has(offset)) parts.set(offset, { offset, length, sum, what });
  };
  for (const routeId of manifest.indexes) {
    const index = checkedRouteIndex(yield { file: indexFile(routeId) }, manifest, routeId);
    progress.indexesChecked++;
    if (!index) {
      sink.corrupt(storedPart.indexFile(routeId));
      continue;
    }
    sink.index?.(routeId, index);
    for (const entry of Object.values(index))
      for (const encoding of STORED_ENCODINGS) add(spanOf(entry, encoding), storedPart.variant(encoding, entry[0]));
  }
  for (const [name, { data, index }] of Object.entries(manifest.fragments)) {
    add(data, storedPart.fragment('records', name));
    add(index, storedPart.fragment('index', name));
  }
  const history = historyOf(manifest);
  if (history) {
    add(history.state, storedPart.history());
    history.changes.forEach(({ span }, i) => add(span, storedPart.changes(history.builds[i]!)));
    for (const [slug, { span }] of Object.entries(history.models)) add(span, storedPart.modelHistory(slug));
  }
  const ordered = [...parts.values()].sort((a, b) => a.offset - b.offset);
  progress.bytes = ordered.reduce((sum, part) => sum + part.length, 0);
  for (let i = 0; i < ordered.length;) {
    // Neighbouring parts up to a chunk's size are read together; a larger part alone.
    let end = i + 1;
    while (end < ordered.length && ordered[end].offset + ordered[end].length - ordered[i].offset <= chunkBytes) end++;
    const start = ordered[i].offset;
    const chunk = yield { span: [start, ordered[end - 1].offset + ordered[end - 1].length - start] };
    for (const part of ordered.slice(i, end)) {
      const bytes = chunk.subarray(part.offset - start, part.offset - start + part.length);
      if (bytes.length !== part.length || checksumOf(bytes) !== part.sum) sink.corrupt(part.what);
      progress.bytesChecked += part.length;
    }
    i = end;
  }
}

/** Check a whole build now, reading synchronously (the build, tools); returns the parts that fail. */
export function verifyBuildSync(dir: string, manifest: Manifest, sink: Partial<VerificationSink> = {}): string[] {
  const corrupt: string[] = [];
  const fd = openSync(join(dir, PACK_FILE), 'r');
  try {
    const walk = verification(manifest, newProgress(manifest), { ...sink, corrupt: (part) => corrupt.push(part) });
    for (let step = walk.next(); !step.done;) {
      const need = step.value;
      step = walk.next('file' in need ? readFileSync(join(dir, need.file)) : readRangeSync(fd, ...need.span));
    }
  } finally {
    closeSync(fd);
  }
  return corrupt;
}

/** A sentence for a log line or an error: how many parts fail, and the first. */
export function corruptionSummary(buildId: string, corrupt: readonly string[]): string {
  return (
    `build ${buildId} is corrupt: ${corrupt.length} stored part${corrupt.length === 1 ? '' : 's'} ` +
    `fail${corrupt.length === 1 ? 's' : ''} ${corrupt.length === 1 ? 'its' : 'their'} checksum ` +
    `(${corrupt[0]}${corrupt.length > 1 ? ', ...' : ''})`
  );
}
