/**
 * What a pulling server holds: the served build's release and the highest version taken (holdingFrom),
 * and the chunks it holds already: those of the builds it pulled before (each keeps the release
 * it came from, whose chunk list says where each chunk lies in which file), and of a pull of the
 * same release cut off part way. A chunk is taken from here only when the bytes read back have
 * its checksum: a file changed or rotted since costs a fetch, never a wrong byte.
 */
import { open, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CURRENT_LINK } from '../shared/manifest.ts';
import { RELEASE_FILE, unsignedRelease, type Release } from '../shared/release.ts';
import type { Holding } from './judge.ts';
import { sha256 } from '../shared/sha256.ts';

interface Place {
  file: string;
  offset: number;
  length: number;
}

export class HeldChunks {
  private readonly places = new Map<string, Place>();

  /** Every chunk a release's files hold, read from `dir` (a build folder, or a pull under way). */
  add(release: Release, dir: string): void {
    for (const file of release.files) {
      let offset = 0;
      for (const [sum, length] of file.chunks) {
        if (!this.places.has(sum)) this.places.set(sum, { file: join(dir, file.path), offset, length });
        offset += length;
      }
    }
  }

  /** The chunk's bytes when held and still sound, else null. */
  async read(sum: string, length: number): Promise<Buffer | null> {
    const place = this.places.get(sum);
    if (!place || place.length !== length) return null;
    return readChunk(place.file, place.offset, length, sum);
  }
}

/** `length` bytes of a file at `offset` when they have the checksum `sum`, else null (a short or missing file too). */
export async function readChunk(path: string, offset: number, length: number, sum: string): Promise<Buffer | null> {
  try {
    const handle = await open(path, 'r');
    try {
      const bytes = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(bytes, 0, length, offset);
      return bytesRead === length && sha256(bytes, 'hex') === sum ? bytes : null;
    } finally {
      await handle.close();
    }
  } catch {
    // Gone or unreadable: the chunk is fetched instead.
    return null;
  }
}

/**
 * What a server holds, from the releases its kept builds came from (heldReleases) and the folder
 * `current` names: the served build's release (null: built here), and the highest version taken.
 */
export function holdingFrom(releases: ReadonlyMap<string, Release>, served: string | null): Holding {
  return {
    current: (served !== null && releases.get(served)) || null,
    highest: Math.max(0, ...[...releases.values()].map((r) => r.version)),
  };
}

/** The folder `current` names, or null when there is none. */
export async function servedFolder(root: string): Promise<string | null> {
  try {
    return await readlink(join(root, CURRENT_LINK));
  } catch {
    return null;
  }
}

/** The releases of the builds kept in a snapshot folder that came from an origin, by folder. */
export async function heldReleases(root: string): Promise<Map<string, Release>> {
  const held = new Map<string, Release>();
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    try {
      held.set(entry.name, unsignedRelease(await readFile(join(root, entry.name, RELEASE_FILE), 'utf8')));
    } catch {
      // A build made here (no release.json) or one whose release cannot be read: it offers no chunks.
    }
  }
  return held;
}
