/**
 * Closing in stages (src/http/linger.ts): a connection whose answer went out before its request's
 * body arrived is half-closed, keeps reading and dropping what the client still sends, and is
 * closed once the client closes its side, goes quiet, or has lingered its longest; it reads no
 * more than its byte bound; a request behind the refused body is not answered; a stop ends
 * every lingering connection.
 */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';
import { get } from '../helpers/http.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const PATH = '/api/v2/critpt/evaluate';
const KEYS = { ann: { tier: 'commercial', org: 'x', user: 'ann', critpt: true } } as const;

/**
 * A client that keeps its side open after the server closes its own (allowHalfOpen), as a client
 * still sending its body does; what it received, and whether the server has sent its FIN.
 */
class Uploader {
  readonly socket: Socket;
  received = '';
  serverEnded = false;
  error: Error | null = null;

  constructor(port: number, head: string) {
    this.socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    this.socket.setEncoding('latin1');
    this.socket.on('data', (text: string) => (this.received += text));
    this.socket.on('end', () => (this.serverEnded = true));
    this.socket.on('error', (error) => (this.error = error));
    this.socket.write(head);
  }

  /** Wait for the answer and the server's FIN; a reset instead fails at once, naming it. */
  async answer(): Promise<void> {
    await until(() => this.serverEnded || this.error !== null, "the answer and the server's FIN");
    assert.is(this.error, null, 'the answer came without a reset');
  }

  /** Statuses of the answers received, in order. */
  statuses(): number[] {
    return [...this.received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
  }

  /** The JSON body of the one answer received. */
  json(): Record<string, unknown> {
    return JSON.parse(this.received.slice(this.received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  }

  /** Write `bytes` and resolve once the kernel has taken all of them (so the server has read most). */
  send(bytes: Buffer | string): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(bytes, (error) => (error ? reject(error) : resolve())));
  }
}

/** A POST head to the grading route, declaring `length` body bytes. */
function postHead(key: string, length: number): string {
  return `POST ${PATH} HTTP/1.1\r\nHost: linger\r\nContent-Type: application/json\r\nx-api-key: ${key}\r\nContent-Length: ${length}\r\n\r\n`;
}

/** Bodies up to 64 KiB: a longer one is refused (413) from its headers alone. */
async function start(httpLimits: { lingerMs?: number; lingerQuietMs?: number; lingerBytes?: number }, stopGraceSeconds = 10): Promise<TestServer> {
  return startTestServer({ keys: KEYS, server: { critptMaxBodyBytes: 64 * KIB, stopGraceSeconds }, httpLimits });
}

const linger = suite('closing in stages');

/** Far beyond the hang guard: where a test is about one bound, the others never decide it. */
const NEVER = 10 * HANG_GUARD_MS;

let t: TestServer;
linger.before(async () => {
  t = await start({ lingerMs: NEVER, lingerQuietMs: NEVER, lingerBytes: 64 * MIB });
});
linger.after(async () => {
  await t.close();
});

const lingering = () => t.running.lingering.count();

linger('should half-close after refusing a body, read all the client still sends, and close when the client does', async () => {
  // 32 MiB: far more than the kernel's buffers on both sides hold, so the client's writes only
  // complete if the server reads them. Before, the server closed outright and they were reset.
  const body = Buffer.alloc(32 * MIB, 'x');
  const client = new Uploader(t.running.port, postHead(t.keys.ann, body.length));
  await client.answer();
  assert.equal(client.statuses(), [413]);
  assert.equal(client.json().details, { limit: 64 * KIB });
  assert.is(lingering(), 1, 'the connection lingers');
  await client.send(body);
  assert.is(client.error, null);
  client.socket.end();
  await once(client.socket, 'close');
  assert.is(client.error, null, 'closed without a reset');
  await until(() => lingering() === 0, 'no connection left lingering');
});

linger('should not answer a request that comes behind the refused body', async () => {
  const length = 64 * KIB + 1;
  const client = new Uploader(t.running.port, postHead(t.keys.ann, length));
  await client.answer();
  await client.send(Buffer.concat([Buffer.alloc(length, 'x'), Buffer.from('GET /healthz HTTP/1.1\r\nHost: linger\r\n\r\n')]));
  await until(() => lingering() === 0, 'the connection closed');
  client.socket.destroy();
  assert.equal(client.statuses(), [413], 'one answer, the refusal');
});

linger('should close at once after a closing answer to a request that had all arrived', async () => {
  const client = new Uploader(t.running.port, 'GET /healthz HTTP/1.1\r\nHost: linger\r\nConnection: close\r\n\r\n');
  await client.answer();
  assert.equal(client.statuses(), [200]);
  assert.is(lingering(), 0, 'nothing left to read: node closes as it did');
  client.socket.destroy();
});

linger.run();

const bounds = suite('closing in stages: the bounds');

bounds('should close a lingering connection once the client has sent nothing for the quiet time', async () => {
  const s = await start({ lingerMs: NEVER, lingerQuietMs: 100 });
  const client = new Uploader(s.running.port, postHead(s.keys.ann, 1 * MIB));
  try {
    await client.answer();
    assert.equal(client.statuses(), [413]);
    await client.send(Buffer.alloc(16 * KIB, 'x'));
    // The client neither sends nor closes: the server closes.
    await until(() => s.running.lingering.count() === 0, 'the quiet connection closed');
  } finally {
    client.socket.destroy();
    await s.close();
  }
});

bounds('should read no more than its byte bound, then close once nothing more is read', async () => {
  const s = await start({ lingerMs: NEVER, lingerQuietMs: 100, lingerBytes: 64 * KIB });
  const body = Buffer.alloc(32 * MIB, 'x');
  const client = new Uploader(s.running.port, postHead(s.keys.ann, body.length));
  try {
    await client.answer();
    // 32 MiB is far more than the bound and both kernels' buffers: the write cannot complete.
    let written = false;
    client.socket.write(body, (error) => (written = !error));
    await until(() => s.running.lingering.count() === 0, 'the connection closed after its byte bound');
    assert.not.ok(written, 'the server stopped reading the body');
  } finally {
    client.socket.destroy();
    await s.close();
  }
});

bounds('should close a connection that never stops sending once it has lingered its longest', async () => {
  const s = await start({ lingerMs: 300, lingerQuietMs: NEVER });
  const client = new Uploader(s.running.port, postHead(s.keys.ann, 100 * MIB));
  try {
    await client.answer();
    assert.is(s.running.lingering.count(), 1);
    // A few bytes every 10 ms, for as long as the connection lasts.
    const trickle = setInterval(() => client.socket.write('x'.repeat(64)), 10);
    await until(() => s.running.lingering.count() === 0, 'the connection closed at its longest linger').finally(() => clearInterval(trickle));
  } finally {
    client.socket.destroy();
    await s.close();
  }
});

bounds('should end every lingering connection when the server stops', async () => {
  // Lingering and the stop's grace both far beyond the hang guard: only the stop itself ends it.
  const s = await start({ lingerMs: NEVER, lingerQuietMs: NEVER }, NEVER / 1000);
  const client = new Uploader(s.running.port, postHead(s.keys.ann, 100 * MIB));
  try {
    await client.answer();
    assert.is(s.running.lingering.count(), 1);
    let stopped = false;
    const stop = s.close().then(() => (stopped = true));
    await until(() => stopped, 'the server stopped with a connection lingering');
    await stop;
    assert.is(s.running.lingering.count(), 0);
  } finally {
    client.socket.destroy();
  }
});

bounds.run();

const early = suite('closing in stages: every answer that goes before its body');

early('should close in stages after any answer to a request whose body is still trickling in, never keeping it alive for the body', async () => {
  const keys = { ...KEYS, bob: { tier: 'pro', org: 'x', user: 'bob' }, fran: { tier: 'free', org: 'x', user: 'fran' } } as const;
  // Lingering at most 300 ms, never quiet: the trickle keeps every connection busy until the longest bound closes it.
  const s = await startTestServer({ keys, server: { critptMaxBodyBytes: 64 * KIB, limits: { free: 1, pro: 500, commercialDefault: 10_000, critpt: 10 } }, httpLimits: { lingerMs: 300, lingerQuietMs: NEVER } });
  const head = (method: string, path: string, key?: string, type = 'application/json') =>
    `${method} ${path} HTTP/1.1\r\nHost: linger\r\nContent-Type: ${type}\r\n${key ? `x-api-key: ${key}\r\n` : ''}Content-Length: ${100 * MIB}\r\n\r\n`;
  try {
    assert.is((await get(s.url, '/api/v2/language/models/free', s.keys.fran)).status, 200, 'the Free key spends its one request');
    const cases: [string, number][] = [
      [head('POST', PATH), 401],
      [head('POST', PATH, 'bdk_not_a_key'), 401],
      [head('POST', PATH, s.keys.bob), 403],
      [head('POST', '/api/v2/no/such/route', s.keys.ann), 404],
      [head('POST', '/api/v2/language/models', s.keys.ann), 405],
      [head('POST', PATH, s.keys.ann, 'text/plain'), 415],
      [head('GET', '/api/v2/language/models/free', s.keys.fran), 429],
      [head('GET', '/healthz'), 200],
    ];
    for (const [request, status] of cases) {
      const client = new Uploader(s.running.port, request);
      const trickle = setInterval(() => client.socket.writable && client.socket.write('x'), 20);
      try {
        await client.answer();
        assert.equal(client.statuses(), [status], request.split('\r\n')[0]);
        assert.match(client.received, /\r\nConnection: close\r\n/i, 'the answer says the connection closes');
        await until(() => s.running.lingering.count() === 0, `${status}: closed by the longest linger while the client still sends`);
      } finally {
        clearInterval(trickle);
        client.socket.destroy();
      }
    }
  } finally {
    await s.close();
  }
});

early('should close in stages what node:http leaves to the server (a request it cannot parse, one too slow), never holding it after the FIN', async () => {
  // Lingering at most 2 s, or 1 s quiet; a head must arrive within half a second.
  const s = await startTestServer({ keys: KEYS, httpLimits: { lingerMs: 2000, lingerQuietMs: 1000, headersTimeout: 500, requestTimeout: 1000 } });
  // Each answer node:http leaves to the server, counted as it goes through the staged close: not
  // read off the set of lingering connections, which its bounds may empty before the client reads.
  const { lingering } = s.running;
  let staged = 0;
  const endWith = lingering.endWith.bind(lingering);
  lingering.endWith = (socket, answer) => {
    staged++;
    endWith(socket, answer);
  };
  try {
    let expected = 0;
    for (const [what, first, trickles, status] of [
      ['a head trickled too slowly, the client trickling on', 'GET /healthz HTTP/1.1\r\nHost: linger\r\nX-Slow: ', true, 408],
      ['a head trickled too slowly, the client then silent', 'GET /healthz HTTP/1.1\r\nHost: linger\r\nX-Slow: ', false, 408],
      ['an unparseable request, the client sending on', 'NOT HTTP AT ALL\r\n\r\n', true, 400],
    ] as const) {
      const client = new Uploader(s.running.port, first);
      const trickle = setInterval(() => client.socket.writable && (trickles || !client.received) && client.socket.write('x'), 20);
      try {
        await client.answer();
        assert.equal(client.statuses(), [status], what);
        // Before, the answer's FIN was all: the connection stayed open as long as the client kept it.
        assert.is(staged, ++expected, `${what}: closing in stages`);
        await until(() => s.running.lingering.count() === 0, `${what}: closed by the staged close's bounds`);
      } finally {
        clearInterval(trickle);
        client.socket.destroy();
      }
    }
  } finally {
    await s.close();
  }
});

early.run();
