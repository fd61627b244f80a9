/**
 * Serving snapshots. The SnapshotStore holds the active build (snapshot.ts) and follows
 * `current` when a build switches it: the new build is checked whole first (verifier.ts) and
 * switched in only if every part passes, so a corrupt build is never served; requests already
 * under way keep the snapshot they started with, so no response mixes two. The build served at
 * start is checked the same way in the background while it serves. What is wrong with the
 * active build (a part that fails its checksum, a file gone) is a condition: /readyz says so
 * until a build that reads is current again.
 */
import { watch, type FSWatcher } from 'node:fs';
import { access, readlink, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Conditions } from '../lib/conditions.ts';
import { errorCode } from '../lib/error-code.ts';
import { CURRENT_LINK, MANIFEST_FILE, PACK_FILE } from '../shared/manifest.ts';
import { BodyReader } from './reader.ts';
import { Snapshot } from './snapshot.ts';
import { BuildVerifier, type VerificationStatus } from './verifier.ts';

const POLL_MS = 1000;
/** Parts of one build logged one by one; past that, the condition's count says how many. */
const PARTS_LOGGED = 20;
const TROUBLE = 'snapshot';

export interface SnapshotStoreOptions {
  /** The folder holding `current` and the builds. */
  root: string;
  cacheBytes: number;
  /** Told when a switch happens or fails. */
  log: (line: string) => void;
  logError: (line: string) => void;
  /** Where the active build's trouble is reported (readiness). */
  conditions: Conditions;
  /** Whether the server has had no request for a moment: checking goes faster then. */
  quiet: () => boolean;
}

export class SnapshotStore {
  private active!: Snapshot;
  private activeCheck!: BuildVerifier;
  readonly reader: BodyReader;
  private watcher: FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** A build being checked before it is switched to. */
  private pending: Snapshot | null = null;
  private followUp: Promise<void> | null = null;
  private lastFailure: string | null = null;
  /** Builds found corrupt, by folder and pack identity: not checked again until they change. */
  private readonly rejected = new Set<string>();
  private corruptParts = 0;

  constructor(private readonly options: SnapshotStoreOptions) {
    this.reader = new BodyReader(options.cacheBytes);
  }

  /** Load `current` and start checking it; throws with a clear message when there is no snapshot to serve. */
  async start(): Promise<void> {
    const target = await this.currentTarget();
    if (!target)
      throw new Error(
        `no snapshot at ${join(this.options.root, CURRENT_LINK)}; build one with: npm run build -- --out ` +
          `${this.options.root}`,
      );
    this.use(await this.open(target), null);
  }

  /** Follow `current`: an fs watch for quick switches, a slow poll in case the watch misses one. */
  follow(): void {
    try {
      this.watcher = watch(this.options.root, () => void this.check());
      this.watcher.on('error', (error) =>
        this.options.logError(`snapshot watch stopped: ${error.message}; polling only`),
      );
    } catch (error) {
      this.options.logError(`cannot watch ${this.options.root}: ${(error as Error).message}; polling only`);
    }
    this.poller = setInterval(() => void this.check(), POLL_MS);
    this.poller.unref();
  }

  /** Stop following `current`; the active snapshot, and one being checked, are retired (closed once idle). */
  stop(): void {
    this.watcher?.close();
    if (this.poller) clearInterval(this.poller);
    this.pending?.retire();
    this.active.retire();
  }

  /** The snapshot a new request should use. The caller acquires it and releases it when done. */
  get current(): Snapshot {
    return this.active;
  }

  /** How far the check of the active build has got (for /readyz). */
  verification(): VerificationStatus {
    return this.activeCheck.status();
  }

  /**
   * Parts found failing their checksum since start, in any build, and how much of the active build
   * is checked (for /metrics).
   */
  integrity(): { corruptParts: number; checkedRatio: number } {
    const { state, bytesChecked, bytes } = this.activeCheck.status();
    return {
      corruptParts: this.corruptParts,
      checkedRatio: state === 'verified' ? 1 : bytes > 0 ? bytesChecked / bytes : 0,
    };
  }

  private async open(dir: string): Promise<Snapshot> {
    const snapshot = await Snapshot.open(dir);
    snapshot.onTrouble = (part) => this.troubleIn(snapshot, part);
    return snapshot;
  }

  /** Serve `next` from now on; `check` is its finished check, or null to check it while it serves. */
  private use(next: Snapshot, check: BuildVerifier | null): void {
    const previous = this.active as Snapshot | undefined;
    this.active = next;
    this.activeCheck = check ?? new BuildVerifier(next, this.options.quiet);
    previous?.retire();
    this.reportTrouble();
  }

  /**
   * A build met new trouble: log a corrupt part (the first few of a build), count it, and update
   * readiness if the build is the active one.
   */
  private troubleIn(snapshot: Snapshot, corruptPart: string | null): void {
    if (corruptPart !== null) {
      this.corruptParts++;
      if (snapshot.trouble.corrupt.length <= PARTS_LOGGED)
        this.options.logError(`build ${snapshot.buildId}: ${corruptPart} fails its checksum; not served`);
    }
    if (snapshot === this.active) this.reportTrouble();
  }

  /** The active build's trouble as a condition: begun when it has some, ended when a build without is active. */
  private reportTrouble(): void {
    const summary = this.active.troubleSummary();
    if (summary) this.options.conditions.begin(TROUBLE, summary);
    else this.options.conditions.end(TROUBLE);
  }

  private async currentTarget(): Promise<string | null> {
    try {
      return resolve(this.options.root, await readlink(join(this.options.root, CURRENT_LINK)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /**
   * Switch to the build `current` points at, if it changed and checks out. One check at a time;
   * asked while one runs (which may have read the link before it changed), one more follows it.
   */
  check(): Promise<void> {
    if (this.checking) return (this.followUp ??= this.checking.then(() => ((this.followUp = null), this.check())));
    this.checking = this.switchIfChanged().finally(() => (this.checking = null));
    return this.checking;
  }

  private async switchIfChanged(): Promise<void> {
    let target: string | null;
    try {
      target = await this.currentTarget();
    } catch (error) {
      this.options.logError(`cannot read ${CURRENT_LINK} link: ${(error as Error).message}`);
      return;
    }
    if (!target || target === this.active.dir) return this.checkActiveFiles();
    try {
      const pack = await stat(join(target, PACK_FILE));
      const identity = `${target} ${pack.ino} ${pack.size} ${pack.mtimeMs}`;
      if (this.rejected.has(identity)) return;
      const next = (this.pending = await this.open(target));
      const check = new BuildVerifier(next, this.options.quiet);
      const state = await check.done;
      this.pending = null;
      if (state !== 'verified') {
        next.retire();
        if (state === 'stopped') return;
        // A corrupt build stays corrupt: it is not read again until it changes. A read that
        // failed may be passing (descriptors exhausted): that one is tried at the next check.
        if (state === 'corrupt') this.rejected.add(identity);
        throw new Error(
          `${next.troubleSummary()}${state === 'corrupt' ? '; rebuild it (npm run build -- --force)' : ''}`,
        );
      }
      this.use(next, check);
      this.lastFailure = null;
      this.options.log(`switched to snapshot ${next.buildId}`);
    } catch (error) {
      // Tried again at every check (a failed read may be passing: descriptors exhausted), but
      // said once per distinct failure, so a broken build does not flood the log.
      const failure = `keeping snapshot ${this.active.buildId}: ${(error as Error).message}`;
      if (failure !== this.lastFailure) this.options.logError(failure);
      this.lastFailure = failure;
    }
  }

  /**
   * The active build's folder must stay readable: a server that serves from what it loaded
   * could not restart, and would fail on the first index it has not loaded yet.
   */
  private async checkActiveFiles(): Promise<void> {
    const snapshot = this.active;
    if (snapshot.trouble.unreadable) return;
    for (const file of [MANIFEST_FILE, PACK_FILE]) {
      try {
        await access(join(snapshot.dir, file));
      } catch (error) {
        snapshot.unreadable(`cannot read ${join(snapshot.dir, file)}: ${errorCode(error)}`);
        return;
      }
    }
  }
}
