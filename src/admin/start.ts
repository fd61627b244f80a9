/**
 * The admin listener's start and stop, beside the public one (src/start.ts): its store of keys,
 * tokens and audit trail is the keys command's own (serverFileAdmin, the keys command's without
 * holding the event loop, or redisAdmin), on the same state folder or Redis the server counts in.
 */
import type { QuotaLimits } from '../quota/scopes.ts';
import type { RedisAddress, ReplicaConfirmation } from '../redis/client.ts';
import type { Clock } from '../lib/clock.ts';
import type { LastUsed } from '../keys/last-used.ts';
import type { KeyRecord } from '../state/key-record.ts';
import type { UsageBook } from '../quota/usage-book.ts';
import { redisAdmin, serverFileAdmin } from '../key-admin/stores.ts';
import { providersOf } from '../key-admin/served-providers.ts';
import type { QuotaCounter } from '../state/quota-counter.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { ConnectionCaps } from '../http/connection-caps.ts';
import { listenAt } from '../http/server.ts';
import { createAdminListener } from './listener.ts';
import { MOST_SESSIONS } from './sessions.ts';
import type { AddressSet } from '../lib/address-set.ts';

export interface AdminListening {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The server options the admin listener reads (src/config.ts's ServerOptions has them). */
export interface AdminOptions {
  adminPort: number | null;
  adminHost: string;
  store: 'file' | RedisAddress;
  stateDir: string;
  storeReplicas: ReplicaConfirmation;
  limits: QuotaLimits;
  adminSessionIdleMs: number;
  adminSessionLifetimeMs: number;
  trustProxy: AddressSet | null;
  usageRetentionDays: number;
}

export interface AdminDeps {
  clock: Clock;
  quota: QuotaCounter;
  snapshots: SnapshotStore;
  log: (line: string) => void;
  logError: (line: string) => void;
  /**
   * The process's connection caps: the admin listener's connections count with the public ones (one
   * descriptor limit).
   */
  connections?: ConnectionCaps;
  /** The server's notes of when each key was last used: its admin listener reads them in memory. */
  lastUsed: LastUsed;
  /** Every key as the server holds them (the state folder's); its admin listener's table is made from it. */
  directory: (() => ReadonlyMap<string, KeyRecord>) | null;
  /** The state folder's usage history as the server keeps it (null on Redis): read with its counts in memory. */
  usage?: UsageBook | null;
}

/** Start the admin listener when --admin-port is given; null otherwise. */
export async function startAdmin(
  options: AdminOptions,
  { clock, quota, snapshots, log, logError, connections, lastUsed, directory, usage = null }: AdminDeps,
): Promise<AdminListening | null> {
  if (options.adminPort === null) return null;
  const keys =
    options.store === 'file'
      ? serverFileAdmin(options.stateDir, { lastUsed, directory, usage })
      : await redisAdmin(options.store, clock, options.storeReplicas, { held: true });
  const server = createAdminListener({
    context: {
      keys,
      quota,
      limits: options.limits,
      served: () => providersOf(snapshots.current.manifest),
      clock,
      logError,
      usageRetentionDays: options.usageRetentionDays,
    },
    logError,
    sessions: { idleMs: options.adminSessionIdleMs, lifetimeMs: options.adminSessionLifetimeMs, most: MOST_SESSIONS },
    trustProxy: options.trustProxy,
  });
  // Counted, and shed for like any other; one past every cap is closed (this listener answers no refusal).
  connections?.gate(server, false);
  let url: string;
  let port: number;
  try {
    ({ url, port } = await listenAt(server, options.adminPort, options.adminHost));
  } catch (error) {
    keys.close();
    throw error;
  }
  log(`admin listener on ${url}/admin/ (admin tokens only)`);
  try {
    if ((await keys.tokens.list()).every((t) => t.revoked_at !== null))
      logError(
        `warning: no admin token can use the admin listener yet; make one with the keys command: admin-token create ` +
          `--name NAME ${options.store === 'file' ? `--state ${options.stateDir}` : '--store ...'}`,
      );
  } catch (error) {
    logError(`warning: cannot read the admin tokens: ${(error as Error).message}`);
  }
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          keys.close();
          resolve();
        });
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      }),
  };
}
