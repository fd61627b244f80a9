/**
 * Where the shared store is: one Redis (`redis://`, `rediss://` with TLS), or the primary that
 * Redis Sentinel names (`redis-sentinel://`, `rediss-sentinel://`), with the credentials and
 * database the client logs in with. Pure: parsing and labels only.
 */
import type { RedisTls } from './connection.ts';

export interface Endpoint {
  host: string;
  port: number;
}

/** What a sentinel that asks for a password (`requirepass`, or an ACL user) is logged in with. */
export interface SentinelAuth {
  username: string | null;
  password: string;
}

export interface SentinelTarget {
  /** The name the sentinels monitor the primary under (`sentinel monitor NAME ...`). */
  masterName: string;
  sentinels: readonly Endpoint[];
  /** The sentinels' own credentials, or null when they take none. */
  auth: SentinelAuth | null;
}

export interface RedisAddress {
  /** The Redis (for a Sentinel address: the first sentinel, unused; the client asks for the primary). */
  host: string;
  port: number;
  db: number;
  username: string | null;
  password: string | null;
  /** TLS and its files, or null for plain TCP; with Sentinel, to the sentinels and to the primary alike. */
  tls: RedisTls | null;
  /** `host:port/db` (Sentinel: `NAME via sentinels host:port,.../db`), never the password: for messages and logs. */
  label: string;
  /**
   * Set for a Sentinel URL: the primary is the one a majority of these sentinels names
   * (src/redis/sentinel-watch.ts).
   */
  sentinel?: SentinelTarget;
}

/** TLS without files of its own: the system's roots, no client certificate (the files come from the options). */
export const SYSTEM_TLS: RedisTls = { ca: null, cert: null, key: null };

export function endpointLabel({ host, port }: Endpoint): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`, or `rediss://...` for TLS (verified against the
 * system's roots unless `tls` gives a CA; see src/redis/connection.ts); throws Error saying what is wrong.
 */
export function parseRedisUrl(text: string, tls: RedisTls = SYSTEM_TLS): RedisAddress {
  if (!URL.canParse(text)) throw new Error(`not a URL: ${JSON.stringify(text)}`);
  const url = new URL(text);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new Error(`a Redis URL starts with redis:// (or rediss:// for TLS), got ${JSON.stringify(url.protocol)}`);
  if (url.search || url.hash) throw new Error('a Redis URL takes no query or fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error('a Redis URL needs a host');
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (!/^\d{0,4}$/.test(path))
    throw new Error(`the database is a number (redis://HOST:PORT/DB), got ${JSON.stringify(path)}`);
  const db = Number(path || '0');
  const password = url.password ? decodeURIComponent(url.password) : null;
  const username = url.username ? decodeURIComponent(url.username) : null;
  return {
    host,
    port,
    db,
    username,
    password,
    tls: url.protocol === 'rediss:' ? tls : null,
    label: `${endpointLabel({ host, port })}/${db}`,
  };
}

/** The store as a URL-like line for the keys command's messages, never the password. */
export function storeLabel(address: RedisAddress): string {
  const scheme = `redis${address.tls ? 's' : ''}${address.sentinel ? '-sentinel' : ''}`;
  return address.sentinel ? `${scheme} ${address.label}` : `${scheme}://${address.label}`;
}
