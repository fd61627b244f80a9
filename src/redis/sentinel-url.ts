/**
 * `redis-sentinel://` and `rediss-sentinel://` URLs: the sentinels to ask, the name they monitor
 * the primary under, the data Redis's credentials and database, and the sentinels' own
 * credentials when they ask for them. Pure: parsing only.
 */
import { endpointLabel, SYSTEM_TLS, type Endpoint, type RedisAddress, type SentinelAuth } from './address.ts';
import type { RedisTls } from './connection.ts';

/** Sentinel's own port, when a URL gives none. */
const SENTINEL_PORT = 26379;

/** The query parameters a Sentinel URL takes: the sentinels' own credentials. */
const SENTINEL_USERNAME = 'sentinel_username';
const SENTINEL_PASSWORD = 'sentinel_password';

const FORM =
  'redis-sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB]' +
  '[?sentinel_username=USER&sentinel_password=PASSWORD]';

/** `HOST:PORT` or `[IPV6]:PORT` (port optional: 26379). */
function parseNode(text: string): Endpoint {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text);
  if (!match) throw new Error(`a sentinel is HOST:PORT, got ${JSON.stringify(text)}`);
  const port = match[3] === undefined ? SENTINEL_PORT : Number(match[3]);
  if (port < 1 || port > 65535) throw new Error(`a port is 1 to 65535, got ${port}`);
  return { host: match[1] ?? match[2], port };
}

/** `[USER]:PASSWORD` of the userinfo, decoded; a part left empty is null. */
function credentials(userinfo: string): { username: string | null; password: string | null } {
  const colon = userinfo.indexOf(':');
  if (colon < 0) throw new Error('credentials are [USER]:PASSWORD@ (the password after a colon)');
  const part = (text: string) => (text ? decodeURIComponent(text) : null);
  return { username: part(userinfo.slice(0, colon)), password: part(userinfo.slice(colon + 1)) };
}

/**
 * The sentinels' credentials from the query (`sentinel_password`, with `sentinel_username` for
 * an ACL user), or null when they take none. Anything else in the query is refused: a misspelt
 * parameter would otherwise leave the sentinels asked without the password meant for them.
 */
function sentinelAuth(query: string | undefined): SentinelAuth | null {
  if (query === undefined) return null;
  const params = new URLSearchParams(query);
  for (const name of params.keys()) {
    if (name !== SENTINEL_USERNAME && name !== SENTINEL_PASSWORD)
      throw new Error(
        `a Sentinel URL takes only ${SENTINEL_USERNAME} and ${SENTINEL_PASSWORD} in its query, ` +
          `got ${JSON.stringify(name)}`,
      );
  }
  const password = params.get(SENTINEL_PASSWORD);
  const username = params.get(SENTINEL_USERNAME);
  if (!password)
    throw new Error(
      `${SENTINEL_PASSWORD} is needed (with ${SENTINEL_USERNAME} for an ACL user) ` +
        `when the query gives the sentinels' credentials`,
    );
  return { username: username || null, password };
}

/**
 * `redis-sentinel://...` (FORM above), or `rediss-sentinel://...` for TLS to the sentinels and
 * the primary; throws Error saying what is wrong. Parsed by hand: a WHATWG URL takes no list
 * of hosts. The credentials before `@` are the data Redis's; the sentinels' are in the query.
 */
export function parseSentinelUrl(text: string, tls: RedisTls = SYSTEM_TLS): RedisAddress {
  const match = /^redis(s?)-sentinel:\/\/(?:([^@/?]*)@)?([^/@?]*)(?:\/([^/?]*))?(?:\/([^/?]*))?(?:\?(.*))?$/.exec(text);
  if (!match) throw new Error(`a Sentinel URL is ${FORM}, got ${JSON.stringify(text.replace(/:[^@/]*@/, ':...@'))}`);
  const [, secure, userinfo, hosts, name, dbText, query] = match;
  if (!hosts) throw new Error('a Sentinel URL needs at least one sentinel HOST:PORT');
  const sentinels = hosts.split(',').map(parseNode);
  if (!name) throw new Error('a Sentinel URL names the monitored primary: redis-sentinel://HOST:PORT/MASTER_NAME');
  const masterName = decodeURIComponent(name);
  if (dbText && !/^\d{1,4}$/.test(dbText))
    throw new Error(`the database is a number (.../MASTER_NAME/DB), got ${JSON.stringify(dbText)}`);
  const db = Number(dbText || '0');
  const { username, password } = userinfo === undefined ? { username: null, password: null } : credentials(userinfo);
  const listed = sentinels.map(endpointLabel).join(',');
  const label = `${masterName} via sentinel${sentinels.length === 1 ? '' : 's'} ${listed}/${db}`;
  // host and port are the first sentinel's only so the address is whole; the client asks for the primary.
  return {
    host: sentinels[0].host,
    port: sentinels[0].port,
    db,
    username,
    password,
    tls: secure ? tls : null,
    label,
    sentinel: { masterName, sentinels, auth: sentinelAuth(query) },
  };
}
