/**
 * New connections' first reads (src/http/first-read.ts): one pipelining a flood of requests waits
 * its turn, a new connection asking one request is answered before it, what is held is parsed
 * in the end (or closed unparsed past the waiting budget), and connections that send nothing or
 * close their side early reach node:http as they would have.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pipelineFlood } from '../../scripts/attackers.ts';
import { get } from '../helpers/http.ts';
import { startTestServer } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

/** A connection that reads everything: its answers so far, and whether the server has closed it. */
function reader(port: number): { socket: Socket; answers: () => number; closed: () => boolean; bytes: () => number } {
  let text = '';
  let closed = false;
  const socket = connect(port, '127.0.0.1');
  const guard = setTimeout(() => socket.destroy(), HANG_GUARD_MS);
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  socket.once('close', () => {
    clearTimeout(guard);
    closed = true;
  });
  return { socket, answers: () => text.split('HTTP/1.1 200 ').length - 1, closed: () => closed, bytes: () => text.length };
}

const firstReads = suite('first reads');

firstReads('should answer /healthz on a new connection before the pipelining connections that came before it are parsed', async () => {
  // One held read parsed a turn, and none while connections arrive however long they take: the
  // probe, queued behind the 300 in the kernel, is read the turn after the last of them.
  const t = await startTestServer({ httpLimits: { firstReadBudget: 50, maxWaiting: 50_000, firstReadWaitMs: HANG_GUARD_MS } });
  const port = Number(new URL(t.url).port);
  const flood = await pipelineFlood({ port, path: '/healthz', sockets: 300, requests: 50 });
  try {
    const reply = await get(t.url, '/healthz');
    const { held } = t.running.firstReads.stats();
    assert.is(reply.status, 200);
    assert.ok(held > 0, 'answered while pipelining connections that came first were still held');
    // Every held read is parsed in its turn.
    await until(() => t.running.firstReads.stats().parsedLater === 300, () => `all 300 parsed in their turn (${JSON.stringify(t.running.firstReads.stats())})`);
    assert.is(t.running.firstReads.stats().closed, 0);
  } finally {
    flood.close();
    await t.close();
  }
});

firstReads('should close a pipelining first read past the waiting budget unparsed, and answer every request of those held', async () => {
  const t = await startTestServer({ httpLimits: { maxWaiting: 100 }, server: { metrics: true } });
  const port = Number(new URL(t.url).port);
  const clients = Array.from({ length: 5 }, () => reader(port));
  try {
    // All accepted first, then all written in one turn: the server reads the five in one turn too.
    await until(() => t.running.connections.stats().open === 5, 'the server accepted the five');
    for (const client of clients) client.socket.write(HEALTHZ.repeat(50));
    // Two of 50 request heads fit the budget of 100; the others are closed before a byte is parsed.
    await until(() => clients.every((c) => c.closed() || c.answers() === 50), () => `answers: ${clients.map((c) => (c.closed() ? 'closed' : c.answers())).join(', ')}`);
    assert.is(clients.filter((c) => c.answers() === 50).length, 2);
    assert.is(clients.filter((c) => c.closed() && c.bytes() === 0).length, 3);
    const metrics = (await get(t.url, '/metrics')).text;
    assert.match(metrics, /^bda_first_reads_total\{outcome="closed"\} 3$/m);
    assert.match(metrics, /^bda_first_reads_total\{outcome="parsed_later"\} 2$/m);
    assert.match(metrics, /^bda_first_reads_held 0$/m);
  } finally {
    for (const client of clients) client.socket.destroy();
    await t.close();
  }
});

firstReads('should read on after a held first read: a later request on the same connection is answered', async () => {
  const t = await startTestServer();
  const port = Number(new URL(t.url).port);
  const client = reader(port);
  try {
    client.socket.write(HEALTHZ.repeat(10));
    await until(() => client.answers() === 10, () => `${client.answers()} of 10 pipelined answers`);
    client.socket.write(HEALTHZ);
    await until(() => client.answers() === 11, 'the request after them answered');
    assert.is(t.running.firstReads.stats().parsedLater, 1);
  } finally {
    client.socket.destroy();
    await t.close();
  }
});

firstReads('should answer a pipelining client that closes its side after its requests, then close', async () => {
  const t = await startTestServer();
  const port = Number(new URL(t.url).port);
  const client = reader(port);
  try {
    client.socket.end(HEALTHZ.repeat(10));
    await until(() => client.closed(), 'the server closed the connection');
    assert.is(client.answers(), 10);
  } finally {
    await t.close();
  }
});

firstReads('should give node:http a connection that sends nothing for a while, and close one that closes its side having sent nothing', async () => {
  const t = await startTestServer({ httpLimits: { firstReadWaitMs: 50 } });
  const port = Number(new URL(t.url).port);
  const late = reader(port);
  const empty = reader(port);
  try {
    await sleep(300);
    late.socket.write(HEALTHZ);
    await until(() => late.answers() === 1, 'a request sent after the wait answered');
    empty.socket.end();
    await until(() => empty.closed(), 'the server closed a connection that ended having sent nothing');
  } finally {
    late.socket.destroy();
    await t.close();
  }
});

firstReads.run();
