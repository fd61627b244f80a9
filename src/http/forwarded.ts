/**
 * Who a request came from, behind reverse proxies the operator trusts (--trust-proxy). Without
 * the flag `X-Forwarded-For` and `X-Forwarded-Proto` are never read: anyone can send them, and
 * the client is the socket's peer. With it, the chain is read from the right, the end nearest this
 * server: the peer, then each X-Forwarded-For hop, and the client is the first address that is not
 * a trusted proxy (a trusted proxy vouches for the hop left of it, and nothing further), or the
 * left-most when all are. A hop that is no address (`unknown`, a name, junk) vouches for nothing:
 * the walk stops there, at the last address a trusted proxy vouched for.
 *
 * What a client cannot do with a forged header: a hop it writes is only ever read when every hop
 * right of it is a trusted proxy, which is the one case where the left-most hop is the client's
 * own (a proxy appends what it received from).
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { ipWords, type AddressSet, type IpWords } from '../lib/address-set.ts';

/**
 * Elements of X-Forwarded-For looked at, right to left. A chain longer than this is no deployment
 * (the walk stops at its last vouched address): it bounds what a header of 16 KiB of trusted
 * addresses, or of commas, can cost a request.
 */
export const MOST_HOPS = 32;

/** An address the walk took, and its words for the trust check. */
interface Hop {
  address: string;
  words: IpWords;
}

const PORT = /^\d{1,5}$/;

/**
 * One X-Forwarded-For element as an address: `ADDRESS`, `IPV4:PORT`, `[IPV6]` or `[IPV6]:PORT` (some
 * proxies add the port); null for anything else.
 */
export function hopOf(element: string): Hop | null {
  let address = element;
  if (element.charCodeAt(0) === 91 /* [ */) {
    const close = element.indexOf(']');
    const rest = close === -1 ? '' : element.slice(close + 1);
    if (close === -1 || (rest !== '' && !(rest.charCodeAt(0) === 58 && PORT.test(rest.slice(1))))) return null;
    address = element.slice(1, close);
    if (!address.includes(':')) return null;
  } else {
    const colon = element.indexOf(':');
    if (colon !== -1 && element.indexOf(':', colon + 1) === -1) {
      // One colon: an IPv4 address and its port (an IPv6 address has two at least).
      if (!PORT.test(element.slice(colon + 1))) return null;
      address = element.slice(0, colon);
      if (address.includes(':')) return null;
    }
  }
  const words = ipWords(address);
  return words === null ? null : { address, words };
}

/** A header's value as one list: several fields of the name are one list, in order (RFC 9110, 5.3). */
function listOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The client's address: `peer` unless it is trusted, then the right-most X-Forwarded-For hop that is
 * not (see the module's comment). Pure: the header as node gives it.
 */
export function forwardedClient(
  peer: string,
  forwardedFor: string | string[] | undefined,
  trusted: AddressSet,
): string {
  const chain = listOf(forwardedFor);
  if (chain === undefined || !trusted.has(peer)) return peer;
  let client = peer;
  let end = chain.length;
  for (let elements = 0; end > 0 && elements < MOST_HOPS; elements++) {
    const comma = chain.lastIndexOf(',', end - 1);
    const element = chain.slice(comma + 1, end).trim();
    end = comma;
    // Empty elements are no hop (RFC 9110, 5.6.1: a recipient accepts and ignores them).
    if (element === '') continue;
    const hop = hopOf(element);
    if (hop === null) return client;
    client = hop.address;
    if (!trusted.holds(hop.words)) return client;
  }
  return client;
}

/**
 * Whether a trusted proxy says the client spoke HTTPS to it: the last X-Forwarded-Proto value (the one
 * the proxy nearest this server set or passed on) is `https`.
 */
export function forwardedHttps(forwardedProto: string | string[] | undefined): boolean {
  const list = listOf(forwardedProto);
  if (list === undefined) return false;
  return (
    list
      .slice(list.lastIndexOf(',') + 1)
      .trim()
      .toLowerCase() === 'https'
  );
}

/** How a listener reads who a request came from, and how. */
export interface Proxies {
  /** The client's address, for logs and the audit trail. */
  readonly clientOf: (req: IncomingMessage) => string;
  /** Whether the client's own connection was TLS: this socket's, or a trusted proxy's. */
  readonly overHttps: (req: IncomingMessage) => boolean;
}

function peerOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

function tlsSocket(req: IncomingMessage): boolean {
  return (req.socket as TLSSocket).encrypted === true;
}

/**
 * The readings for --trust-proxy's set, made once at start. Without it, the socket's peer as it
 * is: no header is read, and the public path pays nothing more than it always did.
 */
export function proxiesOf(trusted: AddressSet | null): Proxies {
  if (trusted === null) return { clientOf: peerOf, overHttps: tlsSocket };
  return {
    clientOf: (req) => forwardedClient(peerOf(req), req.headers['x-forwarded-for'], trusted),
    overHttps: (req) =>
      tlsSocket(req) || (trusted.has(peerOf(req)) && forwardedHttps(req.headers['x-forwarded-proto'])),
  };
}
