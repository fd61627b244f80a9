/**
 * One release made into a build folder beside the others: every file written chunk by chunk,
 * each chunk taken from what the server holds (held-chunks.ts) or fetched from the origin,
 * checked against its checksum before it is written, a few at a time (memory stays a few chunks,
 * whatever the build's size). Then each file is read back whole against its own checksum, the
 * release is kept beside the files (the next pull's source of held chunks), and the folder is
 * renamed into place. Switching `current` to it is the caller's.
 *
 * The folder is `.pull-<build id>` until it is whole: a pull cut off (the origin gone, the
 * process stopped) leaves it, and the next pull of the same release reads back what it holds
 * instead of fetching it again.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { chunkPath, RELEASE_FILE, type Release, type ReleaseChunk, type ReleaseFile } from '../shared/release.ts';
import { sha256 } from '../shared/sha256.ts';
import { fsyncDirAsync } from '../shared/state-files.ts';
import { ORIGIN_CONNECTIONS, type Origin } from './origin.ts';
import { readChunk, type HeldChunks } from './held-chunks.ts';
import { Pacer } from './pacer.ts';

const gunzipAsync = promisify(gunzip);

/** Files of a pulled build are the server's to read; its group may look, no one else. */
const FILE_MODE = 0o640;
const DIR_MODE = 0o750;

/** Tries of one chunk before the pull fails: the waits between them add up to about half a minute. */
export const CHUNK_TRIES = 7;
const FIRST_WAIT_MS = 500;
/**
 * The files are read back through one buffer of this size. A read stream's fresh buffer a read
 * handed the whole build to the collector, as the snapshot verifier's once did
 * (src/snapshot/verifier.ts): the bundled server's peak resident memory over its first pull of the
 * sample was 106 to 113 MB, and is 96 to 100 MB with one buffer (scripts/bench/pull.ts's first
 * pull, and the same by hand: seven runs before, six after).
 */
const READ_BACK_BYTES = 256 * 1024;

export interface AssembleOptions {
  root: string;
  origin: Origin;
  held: HeldChunks;
  /** Wait this long (the retries' backoff); resolves early, with true, when the pull is called off. */
  sleep: (ms: number) => Promise<boolean>;
  stopped: () => boolean;
  /** Whether the server has had no request for a moment: the pull then goes at full speed (pacer.ts). */
  quiet: () => boolean;
}

export interface Assembled {
  folder: string;
  /** Bytes fetched from the origin (as stored there), and bytes of chunks taken from what was held. */
  fetchedBytes: number;
  fetchedChunks: number;
  heldBytes: number;
  resumedBytes: number;
  /** Fetches that failed and were tried again (the origin down a while, a connection cut). */
  retries: number;
}

/** A chunk's bytes failed their checksum, as fetched: the origin serves something else than it signed. */
export class TamperedChunk extends Error {}

/** The pull was called off (the server is stopping). */
export class PullStopped extends Error {}

const PULL_PREFIX = '.pull-';

export function pullFolderName(release: Release): string {
  return `${PULL_PREFIX}${release.build_id}`;
}

/** The folder a pulled build goes to: its build id, or with the release's version when that name is taken. */
function finalName(root: string, release: Release): string {
  return existsSync(join(root, release.build_id)) ? `${release.build_id}-r${release.version}` : release.build_id;
}

interface Task {
  handle: FileHandle;
  path: string;
  /** The file was there from a pull cut off: its chunks may be in place already. */
  resumed: boolean;
  offset: number;
  chunk: ReleaseChunk;
}

/** Pull `release` (whose signed envelope is `signed`, kept beside the files) into a new build folder under the root. */
export async function assemble(release: Release, signed: string, options: AssembleOptions): Promise<Assembled> {
  const { root } = options;
  const work = join(root, pullFolderName(release));
  await mkdir(work, { recursive: true, mode: DIR_MODE });
  const tally: Assembled = { folder: '', fetchedBytes: 0, fetchedChunks: 0, heldBytes: 0, resumedBytes: 0, retries: 0 };
  const handles: FileHandle[] = [];
  try {
    const tasks: Task[] = [];
    for (const file of release.files) {
      const path = join(work, file.path);
      await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
      const resumed = existsSync(path);
      const handle = await open(path, resumed ? 'r+' : 'w+', FILE_MODE);
      handles.push(handle);
      await handle.truncate(file.size);
      let offset = 0;
      for (const chunk of file.chunks) {
        tasks.push({ handle, path, resumed, offset, chunk });
        offset += chunk[1];
      }
    }
    let next = 0;
    let failed = false;
    const pacer = new Pacer(options.quiet, options.sleep);
    const worker = async () => {
      try {
        while (!failed && next < tasks.length) {
          const task = tasks[next++];
          await pacer.run(() => place(task, options, tally));
        }
      } catch (error) {
        // The others stop at their next chunk: the files stay open until every one has.
        failed = true;
        throw error;
      }
    };
    const ended = await Promise.allSettled(Array.from({ length: ORIGIN_CONNECTIONS }, worker));
    const failure = ended.find((end): end is PromiseRejectedResult => end.status === 'rejected');
    if (failure) throw failure.reason;
    for (const handle of handles) await handle.sync();
  } finally {
    for (const handle of handles) await handle.close().catch(() => {});
  }
  const readBack = Buffer.allocUnsafeSlow(READ_BACK_BYTES);
  const pacer = new Pacer(options.quiet, options.sleep);
  for (const file of release.files) await checkWhole(join(work, file.path), file, readBack, pacer);
  await writeFile(join(work, RELEASE_FILE), signed, { mode: FILE_MODE });
  await fsyncDirAsync(work);
  tally.folder = finalName(root, release);
  await rename(work, join(root, tally.folder));
  await fsyncDirAsync(root);
  return tally;
}

/** One chunk into its place: already there (a pull resumed), held, or fetched. */
async function place(task: Task, options: AssembleOptions, tally: Assembled): Promise<void> {
  if (options.stopped()) throw new PullStopped('the server is stopping');
  const [sum, length] = task.chunk;
  if (task.resumed && (await readChunk(task.path, task.offset, length, sum))) {
    tally.resumedBytes += length;
    return;
  }
  const held = await options.held.read(sum, length);
  const bytes = held ?? (await fetchChunk(task.chunk, options, tally));
  if (held) tally.heldBytes += length;
  let written = 0;
  while (written < length)
    written += (await task.handle.write(bytes, written, length - written, task.offset + written)).bytesWritten;
}

/** A chunk from the origin, checked; tried again after a wait when the origin fails, not when it lies. */
async function fetchChunk(chunk: ReleaseChunk, options: AssembleOptions, tally: Assembled): Promise<Buffer> {
  const [sum, length, gzipped] = chunk;
  const path = chunkPath(chunk);
  // A gzip stream of `length` bytes is never much larger than they are.
  const maxBytes = gzipped ? length + 1024 + (length >> 3) : length;
  for (let attempt = 1; ; attempt++) {
    let stored: Buffer;
    try {
      stored = (await options.origin.get(path, maxBytes)).body;
    } catch (error) {
      if (attempt >= CHUNK_TRIES) throw error;
      tally.retries += 1;
      if (await options.sleep(FIRST_WAIT_MS * 2 ** (attempt - 1))) throw new PullStopped('the server is stopping');
      continue;
    }
    tally.fetchedBytes += stored.length;
    tally.fetchedChunks += 1;
    let bytes: Buffer;
    try {
      bytes = gzipped ? await gunzipAsync(stored, { maxOutputLength: length }) : stored;
    } catch (error) {
      throw new TamperedChunk(`${options.origin.urlOf(path)} does not decompress: ${(error as Error).message}`);
    }
    if (bytes.length !== length || sha256(bytes, 'hex') !== sum)
      throw new TamperedChunk(`${options.origin.urlOf(path)} fails its checksum (the release names ${sum})`);
    return bytes;
  }
}

/** Read a written file back whole, through `buffer`: its bytes must be those the release signed. */
async function checkWhole(path: string, file: ReleaseFile, buffer: Buffer, pacer: Pacer): Promise<void> {
  const hash = createHash('sha256');
  const handle = await open(path, 'r');
  try {
    for (let offset = 0; ;) {
      const bytesRead = await pacer.run(async () => {
        const { bytesRead: read } = await handle.read(buffer, 0, buffer.length, offset);
        hash.update(buffer.subarray(0, read));
        return read;
      });
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
  } finally {
    await handle.close();
  }
  if (hash.digest('hex') !== file.sha256) throw new Error(`${path} read back fails its checksum`);
}

/**
 * Remove a release's pull folder (after a failure that leaves nothing worth resuming), or, without
 * one, every pull folder (after a pull succeeds: one cut off for a release since passed over is
 * never resumed).
 */
export async function discardPulls(root: string, release?: Release): Promise<void> {
  const names = release ? [pullFolderName(release)] : (await readdir(root)).filter((n) => n.startsWith(PULL_PREFIX));
  for (const name of names) await rm(join(root, name), { recursive: true, force: true });
}
