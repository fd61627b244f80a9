/**
 * How a connection begins (src/redis/client.ts): where it goes, and what it sends before anyone
 * else may. Pure but for the Sentinel question, which src/redis/sentinel.ts asks.
 */
import type { Endpoint, RedisAddress } from './address.ts';
import type { Reply } from './resp.ts';
import { SentinelResolver } from './sentinel.ts';

/** Where each connection attempt goes: the address's host and port, or its sentinels' current primary. */
export function endpointFinder(address: RedisAddress, timeoutMs: number): () => Promise<Endpoint> {
  if (!address.sentinel) return () => Promise.resolve({ host: address.host, port: address.port });
  const sentinels = new SentinelResolver(address.sentinel, address.tls, timeoutMs);
  return () => sentinels.primary();
}

/**
 * Log in, choose the database, then PING; ROLE instead for a primary the sentinels named, whose
 * answer may be stale (a failover under way, a primary since demoted).
 */
export function handshakeCommands({ db, username, password, sentinel }: RedisAddress): (string | number)[][] {
  const steps: (string | number)[][] = [];
  if (password !== null) steps.push(username === null ? ['AUTH', password] : ['AUTH', username, password]);
  if (db !== 0) steps.push(['SELECT', db]);
  steps.push(sentinel ? ['ROLE'] : ['PING']);
  return steps;
}

/** Null when the handshake's last reply lets the connection be used; else why not (a named Redis that is no primary). */
export function handshakeRefusal(address: RedisAddress, lastReply: Reply | undefined, endpoint: string): string | null {
  if (!address.sentinel || (Array.isArray(lastReply) && lastReply[0] === 'master')) return null;
  return `${endpoint}, named by the sentinels, is not the primary (ROLE ${Array.isArray(lastReply) ? lastReply[0] : lastReply}); asking them again`;
}
