/**
 * Start and stop the server: open the state store (keys, quota), load the snapshot, listen.
 * Used by the command line (`src/main.ts`, bundled as dist/server.mjs) and by the tests,
 * which start the real server on port 0.
 */
import { existsSync, rmSync } from 'node:fs';
import { AccessLog } from './http/access-log.ts';
import { Metrics } from './http/metrics.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { ServerOptions } from './config.ts';
import { IdleWork } from './lib/idle-work.ts';
import { Conditions } from './lib/conditions.ts';
import { CritptGrader } from './critpt/grader.ts';
import { BodyBudget } from './http/body-budget.ts';
import type { FileQuota } from './quota/file-quota.ts';
import type { QuotaCounter } from './state/quota-counter.ts';
import { Lingering } from './http/linger.ts';
import { CAP_TIMES, ConnectionCaps, type CapTimes } from './http/connection-caps.ts';
import { readDescriptorLimit } from './http/descriptor-limit.ts';
import { capsFor } from './http/shed-order.ts';
import { FirstReads } from './http/first-read.ts';
import { HTTP_LIMITS } from './http/limits.ts';
import { createHttpServer, listenAt, type RequestHandler } from './http/server.ts';
import { App } from './app.ts';
import { openSnapshots, type ServedSnapshots } from './snapshots-served.ts';
import type { SnapshotStore } from './snapshot/store.ts';
import { openStateStore, type StateStore } from './state-store.ts';
import { startAdmin, type AdminListening } from './admin/start.ts';

export interface StartHooks {
  clock?: Clock;
  /** Where access log lines go (default stdout). */
  accessLog?: (text: string) => void;
  /** Operational messages (snapshot switches). */
  log?: (line: string) => void;
  /** Errors: failed switches, failed writes, 500s. */
  logError?: (line: string) => void;
  /** Timeouts and per-connection bounds of the HTTP server (default HTTP_LIMITS; tests shorten them). */
  httpLimits?: Partial<typeof HTTP_LIMITS>;
  /** The descriptor limit, as if read at start (default: read from /proc/self/limits). */
  descriptorLimit?: number;
  /** The connection caps' grace and refusal wait (default CAP_TIMES; tests lengthen the grace). */
  capTimes?: Partial<CapTimes>;
  /** How often the Redis probe runs (default once a second; tests shorten it). */
  redisProbeMs?: number;
  /** How often the keys' last-used times are written (default twice a minute; tests shorten it). */
  lastUsedFlushMs?: number;
  /**
   * The quota counter the app and the grader use, made from the state folder's quota (default:
   * that quota itself; not used with Redis).
   */
  counter?: (fileQuota: FileQuota) => QuotaCounter;
}

export interface RunningServer {
  url: string;
  port: number;
  app: App;
  snapshots: SnapshotStore;
  /** What keeps the server from answering correctly now (what /readyz reports). */
  conditions: Conditions;
  /** What an operator should fix though the server answers correctly (/readyz's `warnings`). */
  warnings: Conditions;
  /** Bytes of CritPt request bodies in memory (src/http/body-budget.ts). */
  uploads: BodyBudget;
  /** Connections closing in stages after an answer that went before their body (src/http/linger.ts). */
  lingering: Lingering;
  /** Connections of every listener under the descriptor limit (src/http/connection-caps.ts). */
  connections: ConnectionCaps;
  /** New connections' first reads, looked at before node:http parses them (src/http/first-read.ts). */
  firstReads: FirstReads;
  /** The state folder's quota (FileQuota); null with Redis. */
  quota: FileQuota | null;
  /** The admin listener (--admin-port); null when off. */
  admin: AdminListening | null;
  /** Stop accepting, let in-flight requests finish, close idle and lingering sockets, flush state. */
  close(): Promise<void>;
}

/** Every reason the server is not ready: the conditions that hold, and what the state store reports. */
function notReady(conditions: Conditions, store: StateStore): string[] {
  // The store first: its check may begin or end a condition (the key file's), which must count now.
  const storeProblem = store.problem();
  const reasons = conditions.reasons();
  return storeProblem ? [...reasons, storeProblem] : reasons;
}

export async function startServer(options: ServerOptions, hooks: StartHooks = {}): Promise<RunningServer> {
  const clock = hooks.clock ?? systemClock;
  const log = hooks.log ?? ((line: string) => console.log(line));
  const logError = hooks.logError ?? ((line: string) => console.error(line));

  // Begun conditions are errors (an operator must act), ended ones news.
  const conditions = new Conditions({ begins: logError, ends: log });
  // Warnings too: the server stays ready, but an operator should act.
  const warnings = new Conditions({ begins: logError, ends: log }, 'warning');
  // A start that fails leaves no state folder it made behind (an empty one misleads the next look).
  const madeStateFolder = options.store === 'file' && !existsSync(options.stateDir);
  const removeMadeStateFolder = () => {
    if (madeStateFolder) rmSync(options.stateDir, { recursive: true, force: true });
  };
  let store: StateStore;
  try {
    store = await openStateStore(options, {
      clock,
      log,
      logError,
      conditions,
      warnings,
      redisProbeMs: hooks.redisProbeMs,
    });
  } catch (error) {
    removeMadeStateFolder();
    throw error;
  }
  const idle = new IdleWork();
  let served: ServedSnapshots;
  try {
    served = await openSnapshots(options, { clock, log, logError, conditions, warnings, quiet: () => idle.quiet() });
  } catch (error) {
    store.close();
    removeMadeStateFolder();
    throw error;
  }
  const { snapshots, puller } = served;

  const httpLimits = { ...HTTP_LIMITS, sendStallMs: options.sendTimeoutSeconds * 1000, ...hooks.httpLimits };
  const firstReads = new FirstReads(httpLimits);
  const descriptors =
    hooks.descriptorLimit === undefined ? readDescriptorLimit() : { limit: hooks.descriptorLimit, source: 'given' };
  const caps = capsFor(descriptors.limit, {
    total: options.maxConnections,
    perClient: options.maxConnectionsPerClient,
  });
  const connections = new ConnectionCaps(caps, descriptors.limit, { ...CAP_TIMES, ...hooks.capTimes });
  log(
    `connections: at most ${caps.total} open (${caps.perClient} from one client address, loopback exempt), ` +
      `${caps.refusing} more answered 503; descriptor limit ${descriptors.limit} (${descriptors.source})`,
  );
  if (caps.total + caps.refusing >= descriptors.limit)
    logError(
      `warning: --max-connections ${caps.total} leaves no descriptors for files and the store below the limit of ` +
        `${descriptors.limit}: new connections past it are reset, not answered (raise ulimit -n)`,
    );
  if (options.trustProxy !== null)
    log(`behind a proxy: X-Forwarded-For and X-Forwarded-Proto believed from ${options.trustProxy.written.join(', ')}`);
  const metrics = options.metrics
    ? new Metrics({
        connections: () => connections.stats(),
        firstReads: () => firstReads.stats(),
        snapshot: () => ({
          buildId: snapshots.current.buildId,
          builtAt: Date.parse(snapshots.current.manifest.built_at),
        }),
        integrity: () => snapshots.integrity(),
        cache: () => snapshots.reader.cacheStats(),
        now: () => clock.now(),
        ...(puller && { pulls: () => puller.status() }),
      })
    : undefined;
  const accessLog = options.quiet
    ? undefined
    : new AccessLog(hooks.accessLog ?? process.stdout, {
        dropped: (lines) => metrics?.accessLogDropped.inc({}, lines),
        notice: logError,
      });
  const counter = (store.fileQuota && hooks.counter?.(store.fileQuota)) || store.quota;
  const uploads = new BodyBudget({
    totalBytes: options.critptUploadBudgetBytes,
    perScopeBytes: options.critptUserUploadBytes,
  });
  const upload = {
    maxBytes: options.critptMaxBodyBytes,
    minBytesPerSecond: options.critptMinUploadBytesPerSecond,
    graceMs: options.critptUploadGraceSeconds * 1000,
  };
  const grader = new CritptGrader(
    {
      upstream: options.critptUpstream,
      timeoutSeconds: options.critptTimeoutSeconds,
      upload,
      concurrency: options.critptConcurrency,
      limit: options.limits.critpt,
    },
    counter,
    clock,
    uploads,
    (outcome) => metrics?.gradings.inc({ outcome }),
  );
  const app = new App({
    options,
    clock,
    keys: store.keys,
    lastUsed: store.lastUsed,
    quota: counter,
    grader,
    snapshots,
    logError,
    metrics,
    accessLog,
    readiness: () => notReady(conditions, store),
    warnings: () => warnings.reasons(),
    connections: () => connections.stats(),
    uploads,
    ...(puller && { origin: () => puller.status() }),
  });
  const lingering = new Lingering(httpLimits);
  // Each request tells the idle work it came, in the one request listener (a second made node copy
  // its listeners for every request).
  const handle: RequestHandler = (req, res, closed) => {
    idle.busy();
    app.handle(req, res, closed);
  };
  const server = createHttpServer(handle, httpLimits, lingering, connections, firstReads);
  let listening: { port: number; url: string };
  let admin: AdminListening | null;
  try {
    // A burst as large as the caps let in waits in the kernel's queue: past node's 511, a
    // thousand connections at once had hundreds of SYNs dropped and sent again a second later.
    listening = await listenAt(server, options.port, options.host, Math.max(511, caps.total + caps.refusing));
    admin = await startAdmin(options, {
      clock,
      quota: counter,
      snapshots,
      log,
      logError,
      connections,
      lastUsed: store.lastUsed,
      directory: store.directory,
      usage: store.fileQuota?.usage ?? null,
    });
  } catch (error) {
    // The watch, the poll and the journal's fsync timer would keep a process that cannot serve alive.
    if (server.listening) server.close();
    await puller?.stop();
    snapshots.stop();
    idle.stop();
    store.close();
    removeMadeStateFolder();
    throw error;
  }
  idle.add(app.warmSteps());
  store.lastUsed.start(hooks.lastUsedFlushMs);

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      snapshots.stop();
      const pullerStopped = puller?.stop();
      idle.stop();
      const adminClosed = admin?.close();
      const force = setTimeout(() => server.closeAllConnections(), options.stopGraceSeconds * 1000);
      server.close(async () => {
        clearTimeout(force);
        accessLog?.flush();
        await adminClosed;
        await pullerStopped;
        await store.lastUsed.flush();
        store.close();
        resolve();
      });
      server.closeIdleConnections();
      lingering.endAll();
      firstReads.endAll();
    }));

  return {
    url: listening.url,
    port: listening.port,
    app,
    snapshots,
    conditions,
    warnings,
    uploads,
    lingering,
    connections,
    firstReads,
    quota: store.fileQuota,
    admin,
    close,
  };
}
