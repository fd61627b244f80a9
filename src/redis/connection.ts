/**
 * The one way this server opens a connection to a Redis: plain TCP, or TLS (`rediss://`). Every
 * connection the client makes goes through openSocket, so whatever else connects (a sentinel,
 * the primary it names) is verified the same way.
 *
 * TLS is verified or not used: the certificate must chain to the given CA (or, without one, the
 * system's roots) and name the host (its IP SANs when the host is an IP address). There is no
 * switch to accept an unverified certificate and no retry in plain TCP: a failed verification
 * is a failed connection, reported like any other, naming TLS and what failed.
 */
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterIo } from '../lib/after-io.ts';
import { RespProtocolError, type RespParser } from './resp.ts';

/** TLS settings, the files' contents read once when the options were resolved. */
export interface RedisTls {
  /** PEM CA certificates that may sign Redis's certificate; null: the system's roots. */
  ca: Buffer | null;
  /** A client certificate and its key, for a Redis that asks for one (`tls-auth-clients yes`); both or neither. */
  cert: Buffer | null;
  key: Buffer | null;
}

export interface SocketEvents {
  /** Connected, and with TLS the handshake done and the certificate verified: commands may go. */
  ready: () => void;
  /**
   * The socket failed or closed, before or after ready; why. Called once or more: the caller
   * ignores all but the first.
   */
  down: (reason: string) => void;
}

/** Errors of the TLS layer after the handshake (an alert from a server that refused our certificate under TLS 1.3). */
const TLS_ERROR = /^ERR_(SSL|TLS)_/;

const UNTRUSTED = "its certificate is not signed by a CA this server trusts: --store-ca, else the system's roots";
/** What the operator does about the commonest failures, by Node's error code. */
const HINTS: Record<string, string> = {
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED,
  DEPTH_ZERO_SELF_SIGNED_CERT: UNTRUSTED,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT: UNTRUSTED,
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate does not name the host given in --store',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'Redis asks for a client certificate: --store-cert and --store-key',
  ERR_SSL_WRONG_VERSION_NUMBER: "that port may not speak TLS: point --store at Redis's tls-port",
  // A plain Redis takes the TLS hello for a command still arriving and never answers.
  HANDSHAKE_TIMEOUT: "that port may not speak TLS: point --store at Redis's tls-port",
};

type Phase = 'connecting' | 'handshake' | 'ready' | 'answered';

/**
 * Under TLS 1.3 a Redis that wants a client certificate refuses it after the handshake, by an
 * alert the client reads with its first reply; a client that has written meanwhile may instead
 * see the connection reset or closed before the alert, by the luck of timing. Either way it
 * ended before a first answer came, which is what this says, with the likely cause.
 */
function endedUnanswered(what: string, tls: RedisTls): string {
  const likelyCause =
    tls.cert === null
      ? ' (if Redis asks for a client certificate (tls-auth-clients): --store-cert and --store-key)'
      : '';
  return `TLS connection ${what} by Redis before its first answer${likelyCause}`;
}

/** Why the socket failed: TLS failures say so, with OpenSSL's reason (not its whole error stack) and a hint. */
function describe(error: NodeJS.ErrnoException & { reason?: string }, phase: Phase, tls: RedisTls | null): string {
  const code = error.code ?? '';
  if (tls !== null && phase === 'ready' && (code === 'ECONNRESET' || code === 'EPIPE'))
    return endedUnanswered('reset', tls);
  if (tls === null || (phase !== 'handshake' && !TLS_ERROR.test(code))) return error.message;
  const what = code.startsWith('ERR_SSL_') && error.reason ? error.reason : error.message.trim();
  const hint = HINTS[code];
  return `TLS ${phase === 'handshake' ? 'handshake ' : ''}failed: ${what}${hint ? ` (${hint})` : ''}`;
}

/**
 * Open a connection to `target`; `events.ready` once it takes commands, `events.down` when it
 * fails. A connection (and TLS handshake) that takes longer than `timeoutMs` fails.
 */
export function openSocket(
  target: { host: string; port: number },
  tls: RedisTls | null,
  timeoutMs: number,
  events: SocketEvents,
): Socket {
  const { host, port } = target;
  const socket =
    tls === null
      ? connectTcp({ host, port })
      : connectTls({
          host,
          port,
          // SNI carries a host name only; an IP address is checked against the IP SANs without it.
          servername: isIP(host) ? undefined : host,
          ca: tls.ca ?? undefined,
          cert: tls.cert ?? undefined,
          key: tls.key ?? undefined,
          rejectUnauthorized: true,
        });
  let phase: Phase = 'connecting';
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 10_000);
  // A connect that hangs (a dropped SYN, a peer that never finishes the handshake) counts as a failed attempt.
  socket.setTimeout(timeoutMs, () =>
    afterIo(() => {
      if (phase === 'connecting') socket.destroy(new Error(`connect timed out after ${timeoutMs} ms`));
      else if (phase === 'handshake')
        socket.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'HANDSHAKE_TIMEOUT' }));
    }),
  );
  socket.on('error', (error) => events.down(describe(error, phase, tls)));
  socket.on('close', () =>
    events.down(tls !== null && phase === 'ready' ? endedUnanswered('closed', tls) : 'connection closed'),
  );
  socket.once('data', () => (phase = 'answered'));
  socket.once('connect', () => {
    if (tls !== null) {
      phase = 'handshake';
      return;
    }
    phase = 'ready';
    socket.setTimeout(0);
    events.ready();
  });
  if (tls !== null) {
    socket.once('secureConnect', () => {
      phase = 'ready';
      socket.setTimeout(0);
      events.ready();
    });
  }
  return socket;
}

/**
 * Feed what `socket` reads to `parser`; bytes that break the protocol end the connection (it cannot
 * be trusted further).
 */
export function readReplies(socket: Socket, parser: RespParser): void {
  socket.on('data', (chunk: Buffer) => {
    try {
      parser.push(chunk);
    } catch (error) {
      if (!(error instanceof RespProtocolError)) throw error;
      socket.destroy(error);
    }
  });
}
