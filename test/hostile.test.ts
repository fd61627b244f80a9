/** Clients that never read: what they can make the server hold is bounded, and others are served meanwhile. */
import { connect, type Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get } from './helpers/http.ts';
import { startTestServer } from './helpers/server.ts';

const readers = suite('clients that never read');

/** Open a connection, pipeline `count` requests in one write, and never read a byte. */
function pipelineAndStall(port: number, path: string, count: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(count));
      resolve(socket);
    });
    socket.on('error', () => {});
  });
}

readers('should close a connection whose answers go unread, and keep answering everyone else', async () => {
  const t = await startTestServer({ keys: { free: { tier: 'free', org: 'o' } }, httpLimits: { sendStallMs: 1000 } });
  try {
    const port = Number(new URL(t.url).port);
    const full = (await get(t.url, '/api/v2/openapi.json')).body.length * 50;
    const stalled = await Promise.all(Array.from({ length: 20 }, () => pipelineAndStall(port, '/api/v2/openapi.json', 50)));
    // Others get their answers meanwhile.
    for (let i = 0; i < 5; i++) assert.is((await get(t.url, '/api/v2/language/models/free', t.keys.free)).status, 200);
    await new Promise((r) => setTimeout(r, 3000)); // past the stall limit and a sweep
    // Now read: a connection the server closed ends early, short of the fifty answers asked for.
    const received = await Promise.all(
      stalled.map(
        (socket) =>
          new Promise<number>((resolve) => {
            let bytes = 0;
            socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
            socket.once('close', () => resolve(bytes));
            setTimeout(() => resolve(Number.POSITIVE_INFINITY), 5000);
            socket.resume();
          }),
      ),
    );
    for (const bytes of received) assert.ok(bytes < full, `closed after ${bytes} of ${full} bytes`);
  } finally {
    await t.close();
  }
});

readers.run();
