/**
 * How a connection begins (src/redis/client.ts): where it goes, and what it sends before anyone
 * else may. Pure but for the Sentinel questions, which src/redis/sentinel-watch.ts asks.
 */
import type { RedisAddress } from './address.ts';
import type { Reply } from './resp.ts';
import { SentinelWatch, type PrimarySource } from './sentinel-watch.ts';

/**
 * Where each connection attempt goes when the caller gives no source of its own: the address's
 * host and port, or the primary its sentinels name, asked at each attempt (the keys command;
 * a server gives a watch that also listens, src/state-store.ts).
 */
export function primarySource(address: RedisAddress, timeoutMs: number): PrimarySource {
  if (address.sentinel) return new SentinelWatch({ target: address.sentinel, tls: address.tls, timeoutMs });
  const endpoint = { host: address.host, port: address.port };
  return { find: () => Promise.resolve(endpoint), follow: () => {}, close: () => {} };
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

/**
 * Null when the handshake's last reply lets the connection be used; else why not (a named Redis
 * that is no primary).
 */
export function handshakeRefusal(address: RedisAddress, lastReply: Reply | undefined, endpoint: string): string | null {
  if (!address.sentinel || (Array.isArray(lastReply) && lastReply[0] === 'master')) return null;
  return (
    `${endpoint}, named by the sentinels, is not the primary (ROLE ` +
    `${Array.isArray(lastReply) ? lastReply[0] : lastReply}); asking them again`
  );
}
