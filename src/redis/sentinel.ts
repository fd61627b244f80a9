/**
 * Redis Sentinel: which Redis is the primary of a monitored set, asked of the sentinels at each
 * connection (src/redis/client.ts calls `primary()` before every attempt, the first and each
 * reconnection). A failover thus needs nothing of the servers: the connection to the old primary
 * ends (it died, or answers READONLY once demoted, or its ROLE is no longer master), and the
 * next attempt asks the sentinels again.
 *
 * Each question is a connection of its own, closed after the answer and given a deadline, so a
 * sentinel that hangs costs one deadline, and the next one is asked. The credentials of the URL
 * are the data Redis's: nothing is sent to a sentinel but the question, so sentinels without a
 * password (the usual setup, on a private network) need nothing more.
 */
import { endpointLabel, SYSTEM_TLS, type Endpoint, type RedisAddress, type SentinelTarget } from './address.ts';
import { openSocket, type RedisTls } from './connection.ts';
import { encodeCommand, RespError, RespParser, RespProtocolError, type Reply } from './resp.ts';

/** Sentinel's own port, when a URL gives none. */
const SENTINEL_PORT = 26379;

/** `HOST:PORT` or `[IPV6]:PORT` (port optional: 26379). */
function parseNode(text: string): Endpoint {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text);
  if (!match) throw new Error(`a sentinel is HOST:PORT, got ${JSON.stringify(text)}`);
  const port = match[3] === undefined ? SENTINEL_PORT : Number(match[3]);
  if (port < 1 || port > 65535) throw new Error(`a port is 1 to 65535, got ${port}`);
  return { host: match[1] ?? match[2], port };
}

/**
 * `redis-sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB]`, or
 * `rediss-sentinel://...` for TLS to the sentinels and the primary; throws Error saying what is
 * wrong. Parsed by hand: a WHATWG URL takes no list of hosts.
 */
export function parseSentinelUrl(text: string, tls: RedisTls = SYSTEM_TLS): RedisAddress {
  const match = /^redis(s?)-sentinel:\/\/(?:([^@/]*)@)?([^/@]*)(?:\/([^/]*))?(?:\/([^/]*))?$/.exec(text);
  if (!match) throw new Error(`a Sentinel URL is redis-sentinel://HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB], got ${JSON.stringify(text)}`);
  const [, secure, userinfo, hosts, name, dbText] = match;
  if (!hosts) throw new Error('a Sentinel URL needs at least one sentinel HOST:PORT');
  const sentinels = hosts.split(',').map(parseNode);
  if (!name) throw new Error('a Sentinel URL names the monitored primary: redis-sentinel://HOST:PORT/MASTER_NAME');
  const masterName = decodeURIComponent(name);
  if (dbText && !/^\d{1,4}$/.test(dbText)) throw new Error(`the database is a number (.../MASTER_NAME/DB), got ${JSON.stringify(dbText)}`);
  const db = Number(dbText || '0');
  let username: string | null = null;
  let password: string | null = null;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    if (colon < 0) throw new Error('credentials are [USER]:PASSWORD@ (the password after a colon)');
    username = userinfo.slice(0, colon) ? decodeURIComponent(userinfo.slice(0, colon)) : null;
    password = userinfo.slice(colon + 1) ? decodeURIComponent(userinfo.slice(colon + 1)) : null;
  }
  const label = `${masterName} via sentinel${sentinels.length === 1 ? '' : 's'} ${sentinels.map(endpointLabel).join(',')}/${db}`;
  // host and port are the first sentinel's only so the address is whole; the client asks for the primary.
  return { host: sentinels[0].host, port: sentinels[0].port, db, username, password, tls: secure ? tls : null, label, sentinel: { masterName, sentinels } };
}

/** One command on a connection of its own (TLS when `tls`), closed once answered; rejects after `timeoutMs`. */
export function askOnce(node: Endpoint, tls: RedisTls | null, args: readonly (string | number)[], timeoutMs: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // After an answer these settle nothing: a promise settles once.
    const socket = openSocket(node, tls, timeoutMs, {
      ready: () => socket.write(encodeCommand(args)),
      down: (reason) => {
        clearTimeout(timer);
        reject(new Error(reason === 'connection closed' ? 'connection closed before an answer' : reason));
      },
    });
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const parser = new RespParser((reply) => {
      clearTimeout(timer);
      resolve(reply);
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        parser.push(chunk);
      } catch (error) {
        if (!(error instanceof RespProtocolError)) throw error;
        socket.destroy(error);
      }
    });
  });
}

/**
 * Finds the current primary by asking the sentinels in turn. The client asks only when it needs
 * a connection, the first time or because the last one failed, so each time it starts with the
 * sentinel after the one that answered last: a stale sentinel naming a dead primary is not asked
 * first for ever.
 */
export class SentinelResolver {
  private next = 0;

  constructor(
    private readonly target: SentinelTarget,
    private readonly tls: RedisTls | null,
    private readonly timeoutMs: number,
  ) {}

  /** The primary's address, from the first sentinel that names one; rejects naming each sentinel's failure. */
  async primary(): Promise<Endpoint> {
    const { masterName, sentinels } = this.target;
    const failures: string[] = [];
    const start = this.next;
    for (let i = 0; i < sentinels.length; i++) {
      const index = (start + i) % sentinels.length;
      const node = sentinels[index];
      let reply: Reply;
      try {
        reply = await askOnce(node, this.tls, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName], this.timeoutMs);
      } catch (error) {
        failures.push(`${endpointLabel(node)}: ${(error as Error).message}`);
        continue;
      }
      if (Array.isArray(reply) && reply.length === 2 && typeof reply[0] === 'string' && Number(reply[1]) > 0) {
        this.next = (index + 1) % sentinels.length;
        return { host: reply[0], port: Number(reply[1]) };
      }
      failures.push(`${endpointLabel(node)}: ${reply instanceof RespError ? reply.message : `monitors no primary named ${masterName}`}`);
    }
    throw new Error(`no sentinel names a primary for ${masterName} (${failures.join('; ')})`);
  }
}
