/**
 * The server's check of a whole build (the walk of src/shared/verify-build.ts), run in the
 * background at low priority: asynchronous reads, a small chunk at a time, and a pause between
 * chunks that is short when the server is quiet and longer while requests arrive. A request
 * never waits for it: every part a request reads is checked on its own as it is read.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from '../lib/error-code.ts';
import { newProgress, verification, type VerificationProgress } from '../shared/verify-build.ts';
import type { Snapshot } from './snapshot.ts';

/**
 * Bytes checked between two pauses. Hashing 256 KiB takes about 0.2 ms here (SHA-256 at about
 * 1.3 GB/s), so no request waits behind the check for longer than that.
 */
const CHUNK_BYTES = 256 * 1024;
/** The pause between chunks while requests arrive: at most about 25 MB/s, a few percent of one core. */
const BUSY_PAUSE_MS = 10;

export type VerificationState = 'verifying' | 'verified' | 'corrupt' | 'unreadable' | 'stopped';

/** Where a build's check stands, as /readyz shows it. */
export interface VerificationStatus extends VerificationProgress {
  state: VerificationState;
}

export class BuildVerifier {
  readonly progress: VerificationProgress;
  private state: VerificationState = 'verifying';
  readonly done: Promise<VerificationState>;
  /**
   * The pack is read into this one buffer, chunk after chunk: the walk only hashes a chunk before
   * it asks for the next. A fresh buffer a chunk handed the sample's whole 82 MB pack to the
   * collector, which lets memory outside the heap grow by some 64 MB before it collects: the
   * bundled server's peak resident memory in its first seconds was 112 to 114 MB, and is 89 MB
   * with one buffer (VmHWM 2.5 s after start, the sample, two runs each).
   */
  private readonly chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);

  /** Starts at once; `quiet` says whether the server has had no request for a moment. */
  constructor(
    private readonly snapshot: Snapshot,
    private readonly quiet: () => boolean,
  ) {
    this.progress = newProgress(snapshot.manifest);
    this.done = this.run();
  }

  status(): VerificationStatus {
    return { state: this.state, ...this.progress };
  }

  private async run(): Promise<VerificationState> {
    const { snapshot } = this;
    // Held like a request, so a retired snapshot's pack stays open until the walk has stopped.
    snapshot.acquire();
    try {
      const walk = verification(
        snapshot.manifest,
        this.progress,
        {
          index: (routeId, index) => snapshot.adoptIndex(routeId, index),
          corrupt: (part) => void snapshot.corrupt(part),
        },
        CHUNK_BYTES,
      );
      for (let step = walk.next(); !step.done;) {
        await this.pause();
        if (snapshot.isRetired) return (this.state = 'stopped');
        const need = step.value;
        let bytes: Buffer;
        try {
          bytes = 'file' in need ? await readFile(join(snapshot.dir, need.file)) : await this.readPack(need.span);
        } catch (error) {
          snapshot.unreadable(`${'file' in need ? join(snapshot.dir, need.file) : 'pack'}: ${errorCode(error)}`);
          return (this.state = 'unreadable');
        }
        step = walk.next(bytes);
      }
      return (this.state = snapshot.trouble.unreadable
        ? 'unreadable'
        : snapshot.trouble.corrupt.length > 0
          ? 'corrupt'
          : 'verified');
    } finally {
      snapshot.release();
    }
  }

  private async readPack([offset, length]: [number, number]): Promise<Buffer> {
    // A part larger than a chunk is read alone, into a buffer of its own.
    const buffer = length <= this.chunk.length ? this.chunk : Buffer.allocUnsafe(length);
    const { bytesRead } = await this.snapshot.pack.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => (this.quiet() ? setImmediate(resolve) : setTimeout(resolve, BUSY_PAUSE_MS)));
  }
}
