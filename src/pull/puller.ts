/**
 * Following an origin (`--snapshot-from`): the server asks for the origin's release.json every
 * poll (a conditional GET: an unchanged release is a 304), checks its signature and that it is
 * newer and fresh (judge.ts), pulls the build it names into the snapshot folder (assemble.ts)
 * and switches `current` to it exactly as a build does; the snapshot store then checks the
 * build whole and serves it (src/snapshot/store.ts).
 *
 * Nothing here stops the server answering: an origin that is down, a release refused, a pull that
 * fails (a full disk, a chunk that fails its checksum) are each a /readyz warning and one log line
 * when they begin and one when they end, while the build held keeps serving. A server with no
 * build at all waits for its first pull before it starts (initial()).
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { Conditions } from '../lib/conditions.ts';
import { errorCode } from '../lib/error-code.ts';
import { Sleeper } from '../lib/sleeper.ts';
import { MANIFEST_FORMAT } from '../shared/manifest.ts';
import {
  openRelease,
  RELEASE_FILE,
  ReleaseRefused,
  releaseSize,
  type Release,
  type TrustedKey,
} from '../shared/release.ts';
import { KEEP_PREVIOUS, pruneSnapshotsAsync, switchCurrent } from '../shared/snapshot-folder.ts';
import { writeFileAtomicAsync } from '../shared/state-files.ts';
import { assemble, discardPulls, PullStopped, TamperedChunk, type Assembled } from './assemble.ts';
import { HeldChunks, heldReleases, holdingFrom, servedFolder } from './held-chunks.ts';
import { expiredReason, judgeRelease } from './judge.ts';
import { Origin } from './origin.ts';

/** release.json is a few hundred KB for the sample; past this it is not a release. */
const RELEASE_MAX_BYTES = 16 * 1024 * 1024;
/** The first pull of a server with nothing to serve is tried again after this, doubling up to the poll interval. */
const FIRST_RETRY_MS = 1000;

export interface PullerOptions {
  root: string;
  /** The published folder's URL. */
  url: string;
  keys: readonly TrustedKey[];
  ca: Buffer | null;
  pollSeconds: number;
  log: (line: string) => void;
  /**
   * The folder of the build the server answers from: kept when pulls come faster than the server
   * checks and switches, so a build is never pruned from under it.
   */
  serving: () => string | null;
  /** Whether the server has had no request for a moment (a pull gives way to requests otherwise). */
  quiet: () => boolean;
  /** /readyz's warnings: what is wrong with the origin or its releases. */
  warnings: Conditions;
  now: () => number;
}

/** What /readyz and /metrics say of the origin. */
export interface PullStatus {
  origin: string;
  /** The release of the served build, when it came from the origin. */
  version: number | null;
  expires: string | null;
  lastPoll: string | null;
  lastPull: string | null;
  pulls: number;
  failedPulls: number;
  /** Bytes of pulled builds since start: fetched from the origin (as stored there), copied from builds held here. */
  fetchedBytes: number;
  heldBytes: number;
}

const WARN = {
  origin: 'snapshot-origin',
  release: 'snapshot-release',
  pull: 'snapshot-pull',
  expired: 'snapshot-expired',
};

export class SnapshotPuller {
  private readonly origin: Origin;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** The waits (a first pull's, a chunk's retries): each ends at once when the puller stops. */
  private readonly sleeper = new Sleeper();
  private validator: { etag: string | null; lastModified: string | null } = { etag: null, lastModified: null };
  private polling: Promise<void> | null = null;
  private readonly stats = {
    lastPoll: null as string | null,
    lastPull: null as string | null,
    pulls: 0,
    failedPulls: 0,
    fetchedBytes: 0,
    heldBytes: 0,
  };
  private current: Release | null = null;

  constructor(private readonly options: PullerOptions) {
    this.origin = new Origin({ base: options.url, ca: options.ca, idleMs: 10_000, totalMs: 60_000 });
  }

  /**
   * Before the server starts: when the snapshot folder has no build to serve, pull the origin's
   * until one is in place, trying again (each failure logged once) until it is.
   */
  async initial(): Promise<void> {
    if (await servedFolder(this.options.root)) return;
    this.options.log(
      `no snapshot in ${this.options.root} yet: pulling the first from ${this.origin.urlOf(RELEASE_FILE)}`,
    );
    for (let wait = FIRST_RETRY_MS; !this.stopping && !(await servedFolder(this.options.root));) {
      await this.poll();
      if (await servedFolder(this.options.root)) break;
      if (await this.sleeper.sleep(wait)) break;
      wait = Math.min(wait * 2, this.options.pollSeconds * 1000);
    }
  }

  /** Poll from now on, every --snapshot-poll seconds. */
  start(): void {
    const next = () => {
      if (this.stopping) return;
      // A tenth either way, so that servers started together do not ask the origin in step.
      const ms = this.options.pollSeconds * 1000 * (0.9 + Math.random() * 0.2);
      this.timer = setTimeout(() => void this.poll().finally(next), ms);
      this.timer.unref();
    };
    next();
  }

  /** Stop polling; a pull under way is called off (what it wrote is resumed by the next start). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.sleeper.wakeAll();
    this.origin.close();
    await this.polling?.catch(() => {});
  }

  status(): PullStatus {
    return {
      origin: this.origin.urlOf(RELEASE_FILE),
      version: this.current?.version ?? null,
      expires: this.current?.expires ?? null,
      ...this.stats,
    };
  }

  /** One look at the origin, and a pull when it offers a newer build; never throws. */
  poll(): Promise<void> {
    return (this.polling ??= this.pollOnce()
      .catch((error: unknown) =>
        // What no check foresaw (the renewed release not written: a full disk, a folder made read-only):
        // said like a failed pull, and tried again at the next poll.
        this.options.warnings.report(WARN.pull, `taking the origin's release failed: ${(error as Error).message}`),
      )
      .finally(() => (this.polling = null)));
  }

  private async pollOnce(): Promise<void> {
    const { warnings, now } = this.options;
    // Read once a poll: what is held decides the release's fate, and offers its chunks to a pull.
    const releases = await heldReleases(this.options.root);
    const holding = holdingFrom(releases, await servedFolder(this.options.root));
    this.current = holding.current;
    let text: string | null;
    try {
      text = await this.fetchRelease();
      warnings.report(WARN.origin, null);
    } catch (error) {
      if (!this.stopping)
        warnings.report(
          WARN.origin,
          `snapshot origin cannot be reached: ${(error as Error).message}; serving the build held`,
        );
      return this.checkFresh();
    } finally {
      this.stats.lastPoll = new Date(now()).toISOString();
    }
    if (text === null) return this.checkFresh();
    try {
      const { release } = openRelease(text, this.options.keys);
      const verdict = judgeRelease(release, holding, now(), MANIFEST_FORMAT);
      warnings.report(WARN.release, null);
      if (verdict === 'renew') await this.renew(release, text);
      else if (verdict === 'pull') await this.pull(release, text, releases);
    } catch (error) {
      if (!(error instanceof ReleaseRefused)) throw error;
      // Asked again next time: the origin's validators are forgotten so a fixed release is not a 304.
      this.validator = { etag: null, lastModified: null };
      warnings.report(WARN.release, `refusing the release at ${this.origin.urlOf(RELEASE_FILE)}: ${error.message}`);
    }
    this.checkFresh();
  }

  /** The origin's release.json, or null when it is unchanged since the last one read (304). */
  private async fetchRelease(): Promise<string | null> {
    const conditional: Record<string, string> = {};
    if (this.validator.etag) conditional['if-none-match'] = this.validator.etag;
    if (this.validator.lastModified) conditional['if-modified-since'] = this.validator.lastModified;
    const fetched = await this.origin.get(RELEASE_FILE, RELEASE_MAX_BYTES, conditional);
    if (fetched.status === 304) return null;
    this.validator = { etag: fetched.etag, lastModified: fetched.lastModified };
    return fetched.body.toString('utf8');
  }

  /** The served build's release is expired: a warning until a fresh one is taken. */
  private checkFresh(): void {
    this.options.warnings.report(WARN.expired, expiredReason(this.current, this.options.now()));
  }

  /** The served build signed again: its new release is kept beside it, nothing is fetched. */
  private async renew(release: Release, signed: string): Promise<void> {
    const folder = await servedFolder(this.options.root);
    if (!folder) return;
    await writeFileAtomicAsync(join(this.options.root, folder, RELEASE_FILE), signed);
    this.current = release;
    this.options.warnings.report(WARN.pull, null);
    this.options.log(`release ${release.version} renews build ${release.build_id} until ${release.expires}`);
  }

  private async pull(release: Release, signed: string, releases: ReadonlyMap<string, Release>): Promise<void> {
    const { root, warnings } = this.options;
    const held = new HeldChunks();
    for (const [folder, kept] of releases) held.add(kept, join(root, folder));
    const started = performance.now();
    let done: Assembled;
    try {
      done = await assemble(release, signed, {
        root,
        origin: this.origin,
        held,
        sleep: (ms) => this.sleeper.sleep(ms),
        stopped: () => this.stopping,
        quiet: this.options.quiet,
      });
      switchCurrent(root, done.folder);
    } catch (error) {
      if (error instanceof PullStopped) return;
      this.stats.failedPulls += 1;
      const full = errorCode(error) === 'ENOSPC';
      // What cannot be resumed is removed: a full disk needs the room, and a lying origin's bytes are worth nothing.
      if (full || error instanceof TamperedChunk) await discardPulls(root, release).catch(() => {});
      const reason = full
        ? `no space left in ${root} (the release is ${(releaseSize(release).bytes / 1e6).toFixed(1)} MB)`
        : (error as Error).message;
      warnings.report(
        WARN.pull,
        `pulling release ${release.version} (build ${release.build_id}) failed: ${reason}; serving the build held`,
      );
      // Asked again at the next poll, not answered by a 304.
      this.validator = { etag: null, lastModified: null };
      return;
    }
    this.current = release;
    warnings.report(WARN.pull, null);
    this.pulled(release, done, performance.now() - started);
    // Pull folders passed over, and builds past the ones kept: what is left of them goes.
    await discardPulls(root);
    const serving = this.options.serving();
    const removed = await pruneSnapshotsAsync(root, done.folder, KEEP_PREVIOUS, serving ? [serving] : []);
    if (removed.length)
      this.options.log(
        `pruned ${removed.length} old snapshot${removed.length === 1 ? '' : 's'}: ${removed.join(', ')}`,
      );
  }

  /** A pull done: counted, and said in one line. */
  private pulled(release: Release, done: Assembled, ms: number): void {
    this.stats.pulls += 1;
    this.stats.fetchedBytes += done.fetchedBytes;
    this.stats.heldBytes += done.heldBytes;
    this.stats.lastPull = new Date(this.options.now()).toISOString();
    const { bytes, chunks } = releaseSize(release);
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    this.options.log(
      `pulled release ${release.version} (build ${release.build_id}, ${chunks} chunks, ${mb(bytes)}) from ` +
        `${this.origin.base.href} in ${(ms / 1000).toFixed(1)} s: fetched ` +
        `${done.fetchedChunks} chunks (${mb(done.fetchedBytes)}), ${mb(done.heldBytes)} held here` +
        (done.resumedBytes ? `, ${mb(done.resumedBytes)} from the pull cut off before` : '') +
        (done.retries ? `, ${done.retries} failed fetches tried again` : '') +
        `; current is ${done.folder}`,
    );
  }
}
