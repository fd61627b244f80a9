/**
 * Compression for the build on worker threads. zlib's asynchronous calls cost the calling
 * thread about a quarter of a millisecond each (a stream set up and torn down per body), which
 * for 20,000 bodies was five seconds of the build's main thread; a worker compresses with the
 * synchronous calls instead, so the main thread only hands bodies over and takes results back
 * (BENCHMARKS.md, "The build": 21.9 -> 10.2 s). Bodies get gzip and brotli; measurement
 * fragments gzip only, the history's parts brotli only.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

export interface CompressionLevels {
  gzip: number;
  brotli: number;
}

// Plain JavaScript, so the worker needs no TypeScript loader: gzip (and brotli) of one body.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { brotliCompressSync, constants, gzipSync } = require('node:zlib');
const { gzip, brotli } = workerData;
parentPort.on('message', ({ id, bytes, only }) => {
  const gz = only === 'br' ? null : owned(gzipSync(bytes, { level: gzip }));
  if (only === 'gzip') return parentPort.postMessage({ id, gz, br: null }, [gz.buffer]);
  const br = owned(brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: brotli,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }));
  parentPort.postMessage({ id, gz, br }, gz ? [gz.buffer, br.buffer] : [br.buffer]);
});
// A result is mostly a view of zlib's 16 KB output chunk. Posted as it is, the whole chunk is
// cloned, and the main thread gets a new 16 KB array per variant: memory outside its heap that
// V8 counts towards starting a full collection. For ten times the sample that was 6 GB, and a
// full collection every second or two, each marking a heap ten times as big. A copy of exactly
// the result's bytes is moved instead: a seventh of the memory, and nothing cloned.
function owned(view) {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength) return view;
  const copy = Buffer.allocUnsafeSlow(view.length);
  view.copy(copy);
  return copy;
}
`;

/** What a worker sends back: gzip and brotli, unless only one was asked for. */
interface Compressed {
  gz: Buffer | null;
  br: Buffer | null;
}

interface Job {
  resolve: (compressed: Compressed) => void;
  reject: (error: Error) => void;
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Workers that gzip and brotli bodies; results come back in any order, each to its own promise. */
export class CompressPool {
  private readonly workers: Worker[];
  private readonly jobs = new Map<number, Job>();
  private next = 0;
  private failure: Error | null = null;

  constructor(levels: CompressionLevels, size = Math.max(1, availableParallelism())) {
    this.workers = Array.from({ length: size }, () => {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: levels });
      worker.on('message', ({ id, gz, br }: { id: number; gz: Uint8Array | null; br: Uint8Array | null }) => {
        const job = this.jobs.get(id)!;
        this.jobs.delete(id);
        if (this.jobs.size === 0) this.hold(false);
        job.resolve({ gz: gz && asBuffer(gz), br: br && asBuffer(br) });
      });
      worker.on('error', (error) => this.fail(error));
      worker.unref();
      return worker;
    });
  }

  /**
   * The gzip and brotli variants of a body. A buffer that owns its memory is moved to the worker,
   * not copied (the caller must not use it afterwards); one that shares a pool is copied.
   */
  async compress(bytes: Buffer): Promise<[Buffer, Buffer]> {
    const { gz, br } = await this.submit(bytes, null);
    return [gz!, br!];
  }

  /** One compression of some bytes (a fragment, a part of the history), handed over as `compress` hands a body. */
  async only(bytes: Buffer, encoding: 'gzip' | 'br'): Promise<Buffer> {
    const { gz, br } = await this.submit(bytes, encoding);
    return (encoding === 'gzip' ? gz : br)!;
  }

  private submit(bytes: Buffer, only: 'gzip' | 'br' | null): Promise<Compressed> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    if (this.jobs.size === 0) this.hold(true);
    const owned =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      this.workers[id % this.workers.length].postMessage({ id, bytes: owned, only }, [owned.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  /**
   * Keep the process alive while jobs are out, and only then: a build that fails part-way and
   * never closes the pool must still be able to exit.
   */
  private hold(busy: boolean): void {
    for (const worker of this.workers) busy ? worker.ref() : worker.unref();
  }

  private fail(error: Error): void {
    this.failure = error;
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
    this.hold(false);
  }
}
