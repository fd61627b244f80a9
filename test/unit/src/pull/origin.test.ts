import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Origin, OriginError, type OriginOptions } from '../../../../src/pull/origin.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * `test` run against an Origin of a real server on 127.0.0.1 that answers with `handler`; both are
 * closed after, whatever happened (the server's connections too, a stalled one included).
 */
async function withOrigin(
  handler: Handler,
  test: (origin: Origin) => Promise<void>,
  options: Partial<OriginOptions> = {},
): Promise<void> {
  const server: Server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = new Origin({
    base: `http://127.0.0.1:${port}/pub`,
    ca: null,
    idleMs: 5_000,
    totalMs: 10_000,
    ...options,
  });
  try {
    await test(origin);
  } finally {
    origin.close();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
}

/** What `promise` rejects with; it must be an OriginError. */
async function originError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, OriginError);
    return (error as Error).message;
  }
  return assert.unreachable('the fetch succeeded') as never;
}

const BODY = Buffer.from('{"payload_type":"x"}');
const ETAG = '"v7"';
const MODIFIED = 'Fri, 27 Nov 2026 10:00:00 GMT';

/** release.json, as a static origin serves it: 304 to a request that names its etag. */
const staticFile: Handler = (req, res) => {
  if (req.url !== '/pub/release.json') {
    res.writeHead(404).end('not found');
    return;
  }
  if (req.headers['if-none-match'] === ETAG) {
    res.writeHead(304, { etag: ETAG }).end();
    return;
  }
  res.writeHead(200, { etag: ETAG, 'last-modified': MODIFIED, 'content-length': BODY.length }).end(BODY);
};

const origin = suite('Origin');

origin('should give a 200 body with its etag and last-modified, under the base with a slash added', async () => {
  await withOrigin(staticFile, async (o) => {
    assert.is(o.urlOf('release.json'), `${o.base.href}release.json`);
    assert.match(o.base.href, /\/pub\/$/);
    const fetched = await o.get('release.json', 1024);
    assert.equal(fetched, { status: 200, etag: ETAG, lastModified: MODIFIED, body: BODY });
    const again = await o.get('release.json', BODY.length);
    assert.equal(again.body, BODY, 'a body of exactly maxBytes is taken (on a kept-alive connection)');
  });
});

origin('should give a 304 with an empty body when asked with If-None-Match', async () => {
  await withOrigin(staticFile, async (o) => {
    const fetched = await o.get('release.json', 1024, { 'if-none-match': ETAG });
    assert.is(fetched.status, 304);
    assert.is(fetched.etag, ETAG);
    assert.is(fetched.lastModified, null);
    assert.is(fetched.body.length, 0);
  });
});

origin('should refuse a status other than 200 and 304, naming it and the URL', async () => {
  await withOrigin(staticFile, async (o) => {
    const message = await originError(o.get('chunks/aa/missing', 1024));
    assert.match(message, `${o.base.href}chunks/aa/missing: HTTP 404`);
    // The connection is not left half-read: the next fetch works.
    assert.is((await o.get('release.json', 1024)).status, 200);
  });
  await withOrigin(
    (_req, res) => res.writeHead(500).end('oops'),
    async (o) => assert.match(await originError(o.get('release.json', 1024)), 'HTTP 500'),
  );
});

origin('should refuse an answer that declares more bytes than expected', async () => {
  await withOrigin(staticFile, async (o) => {
    const message = await originError(o.get('release.json', BODY.length - 1));
    assert.match(message, `${BODY.length} bytes, more than the ${BODY.length - 1} expected`);
  });
});

origin('should refuse a chunked answer that grows past the bytes expected', async () => {
  let served = 0;
  const growing: Handler = (_req, res) => {
    res.writeHead(200);
    const more = () => {
      while (served < 1_000_000 && res.write(Buffer.alloc(16 * 1024, 1))) served += 16 * 1024;
      if (served < 1_000_000) res.once('drain', more);
      else res.end();
    };
    more();
  };
  await withOrigin(growing, async (o) => {
    const message = await originError(o.get('bodies.pack', 100_000));
    assert.match(message, 'more than the 100000 bytes expected');
  });
});

origin('should refuse an answer that stalls after its headers, after the idle time', async () => {
  const stalls: Handler = (_req, res) => {
    res.writeHead(200, { 'content-length': 100 });
    res.flushHeaders();
  };
  await withOrigin(
    stalls,
    async (o) => assert.match(await originError(o.get('release.json', 1024)), 'nothing for 200 ms'),
    { idleMs: 200 },
  );
});

origin('should refuse a server that never answers at all, after the idle time', async () => {
  await withOrigin(
    () => {},
    async (o) => assert.match(await originError(o.get('release.json', 1024)), 'nothing for 200 ms'),
    { idleMs: 200 },
  );
});

origin('should refuse an answer that trickles past the total time, though never idle for long', async () => {
  const trickles: Handler = (_req, res) => {
    res.writeHead(200, { 'content-length': 1000 });
    const timer = setInterval(() => res.write('x'), 50);
    res.on('close', () => clearInterval(timer));
  };
  await withOrigin(
    trickles,
    async (o) => assert.match(await originError(o.get('release.json', 1024)), 'no whole answer within 300 ms'),
    { idleMs: 5_000, totalMs: 300 },
  );
});

origin('should refuse an answer that ends before the length it declared', async () => {
  const cutOff: Handler = (_req, res) => {
    res.writeHead(200, { 'content-length': 100 });
    res.write(Buffer.alloc(10, 1), () => setTimeout(() => res.socket?.destroy(), 20));
  };
  await withOrigin(cutOff, async (o) => {
    const message = await originError(o.get('release.json', 1024));
    assert.not.match(message, 'no whole answer', 'refused when the connection closed, not at the total time');
  });
});

origin('should refuse a header value the request cannot send, and leave no deadline behind to fire', async () => {
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  try {
    await withOrigin(
      staticFile,
      async (o) => {
        const refused = await o.get('release.json', 1024, { 'if-none-match': 'a\nb' }).then(
          () => null,
          (error: Error) => error.message,
        );
        assert.match(refused ?? 'the fetch succeeded', 'Invalid character in header content');
        // Past the total time, when a deadline left behind would fire.
        await new Promise((resolve) => setTimeout(resolve, 200));
      },
      { totalMs: 50 },
    );
  } finally {
    process.off('uncaughtException', record);
  }
  assert.equal(uncaught.map(String), []);
});

origin('should take only http and https origins', () => {
  assert.throws(() => new Origin({ base: 'ftp://example.org/pub', ca: null, idleMs: 1, totalMs: 1 }), /http or https/);
  const https = new Origin({ base: 'https://example.org/pub/', ca: null, idleMs: 1, totalMs: 1 });
  assert.is(https.urlOf('chunks/aa/x.gz'), 'https://example.org/pub/chunks/aa/x.gz');
  https.close();
});

origin.run();
