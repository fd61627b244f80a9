/** Clients that never read: what they can make the server hold is bounded, and others are served meanwhile. */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipelineFlood, residentBytes, watchResident } from '../../scripts/attackers.ts';
import { get } from '../helpers/http.ts';
import { spawnServer, stopProcess } from '../helpers/process.ts';
import { buildFixture, startTestServer } from '../helpers/server.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';
import { bundleCopy } from '../helpers/staged-bundle.ts';

const readers = suite('clients that never read');

/**
 * The server's end of every connection accepted in this process, by the client's port: the
 * first two tests run the server in-process, so they can wait for it to give a connection up
 * instead of sleeping for as long as that usually takes.
 */
const serverEnds = new Map<number, Socket>();
subscribe('net.server.socket', (message) => {
  const { socket } = message as { socket: Socket };
  if (socket.remotePort) serverEnds.set(socket.remotePort, socket);
});

/** Resolve once the server has closed its end of each of these connections. */
function serverGaveUp(clients: readonly Socket[], what: string): Promise<void> {
  const ports = clients.map((client) => client.localPort!);
  return until(() => ports.every((port) => serverEnds.get(port)?.destroyed === true), what, HANG_GUARD_MS, 50);
}

/** Resume a paused connection and count the bytes it receives until it closes (Infinity if it stays open past a hang guard). */
function readUntilClosed(socket: Socket, waitMs = HANG_GUARD_MS): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const guard = setTimeout(() => resolve(Number.POSITIVE_INFINITY), waitMs);
    socket.once('close', () => {
      clearTimeout(guard);
      resolve(bytes);
    });
    socket.resume();
  });
}

readers('should close a connection whose answers go unread, and keep answering everyone else', async () => {
  const t = await startTestServer({ keys: { free: { tier: 'free', org: 'o' } }, httpLimits: { sendStallMs: 1000 } });
  try {
    const port = Number(new URL(t.url).port);
    const full = (await get(t.url, '/api/v2/openapi.json')).body.length * 50;
    const { sockets: stalled } = await pipelineFlood({ port, path: '/api/v2/openapi.json', sockets: 20, requests: 50 });
    // Others get their answers meanwhile.
    for (let i = 0; i < 5; i++) assert.is((await get(t.url, '/api/v2/language/models/free', t.keys.free)).status, 200);
    await serverGaveUp(stalled, 'the server closes the 20 stalled connections (stall limit 1 s)');
    // Now read: a connection the server closed ends early, short of the fifty answers asked for.
    const received = await Promise.all(stalled.map((socket) => readUntilClosed(socket)));
    for (const bytes of received) assert.ok(bytes < full, `closed after ${bytes} of ${full} bytes`);
  } finally {
    await t.close();
  }
});

readers('should keep the server-wide budget of waiting requests exact after connections holding waiting requests close', async () => {
  const budget = 40;
  const t = await startTestServer({ keys: { free: { tier: 'free', org: 'o' } }, httpLimits: { sendStallMs: 1000, maxInFlightPerConnection: 4, maxWaiting: budget } });
  try {
    const port = Number(new URL(t.url).port);
    const path = '/api/v2/openapi.json';
    const one = (await get(t.url, path)).body.length;
    // Three times: 4 answers under way and the whole budget waiting, unread, until the server
    // gives the connection up. Each close must give back exactly what it held.
    for (let round = 0; round < 3; round++) {
      const flood = await pipelineFlood({ port, path, sockets: 1, requests: 4 + budget });
      await serverGaveUp(flood.sockets, `round ${round + 1}: the server closes the stalled connection (stall limit 1 s)`);
      flood.close();
    }
    // Now one more than the budget: the connection is closed as it pipelines, short of its
    // answers, even though it starts reading at once.
    const over = await pipelineFlood({ port, path, sockets: 1, requests: 4 + budget + 1 });
    const bytes = await readUntilClosed(over.sockets[0]);
    over.close();
    assert.ok(bytes < one * (4 + budget + 1), `closed after ${bytes} of ${one * (4 + budget + 1)} bytes`);
  } finally {
    await t.close();
  }
});

const MB = 1024 * 1024;

/** /healthz asked every `everyMs`, at least once, while `during` runs: how many answers (each a 200), and the slowest. */
async function healthzWhile(url: string, during: Promise<unknown>, everyMs = 200): Promise<{ answers: number; slowest: number }> {
  let slowest = 0;
  let answers = 0;
  let done = false;
  void during.finally(() => (done = true));
  do {
    const started = performance.now();
    let guard: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error(`/healthz got no answer in ${HANG_GUARD_MS / 1000} s while they pipelined (a hang guard)`)), HANG_GUARD_MS)));
    const reply = await Promise.race([get(url, '/healthz'), hung]).finally(() => clearTimeout(guard));
    assert.is(reply.status, 200);
    slowest = Math.max(slowest, performance.now() - started);
    answers++;
    await new Promise((r) => setTimeout(r, everyMs));
  } while (!done);
  return { answers, slowest };
}

const FLOOD_TEST = 'should keep the server under 250 MB while a thousand connections pipeline unread requests, and give the memory back once they go';

// The server's memory is read from /proc/PID/status (Linux); where it cannot be, say so and skip.
if (residentBytes(process.pid) === null) {
  readers.skip(`${FLOOD_TEST} (skipped: /proc is not readable here)`, () => {});
  console.log('skipped: /proc/PID/status is not readable here, so the server\'s resident memory cannot be measured');
} else {
  readers(FLOOD_TEST, async () => {
    const root = mkdtempSync(join(tmpdir(), 'flood-'));
    const { snapshotDir } = await buildFixture(root);
    // The one-file server, as operators run it (tsx alone would add 35 MB of its own).
    const [serverFile] = await bundleCopy(join(root, 'dist'));
    const server = await spawnServer(['--port', '0', '--snapshot', snapshotDir, '--state', join(root, 'state'), '--quiet', '--send-timeout', '1'], [serverFile]);
    try {
      const pid = server.child.pid!;
      const baseline = residentBytes(pid);
      assert.ok(baseline !== null, `/proc/${pid}/status is readable`);
      const memory = watchResident(pid, 50);
      // The two attacks: 1,000 sockets of 50 pipelined requests, one socket of 1,400 in one write.
      const floods = pipelineFlood({ port: server.port, path: '/api/v2/openapi.json', sockets: 1000, requests: 50 }).then(async (many) => [many, await pipelineFlood({ port: server.port, path: '/api/v2/openapi.json', sockets: 1, requests: 1400 })]);
      const { answers, slowest } = await healthzWhile(server.url, floods.then(() => new Promise((r) => setTimeout(r, 2000))));
      const peak = memory.stop();
      assert.ok(peak < 250 * MB, `peak resident ${(peak / MB).toFixed(0)} MB (from ${(baseline / MB).toFixed(0)} MB)`);
      // Others are answered while the attack is held. How fast is no verdict here: the probe
      // shares this process (and, in the suite, the machine) with the attackers' thousand
      // sockets, so its figure is mostly theirs; `npm run soak` reports the server's stall
      // while attacked.
      assert.ok(answers >= 1);
      console.log(`  /healthz: ${answers} answers while they pipelined, the slowest in ${slowest.toFixed(0)} ms (a figure, not a bound)`);
      for (const flood of await floods) flood.close();
      // Unread answers are given up after the send timeout; the memory they held goes with them.
      await until(
        async () => {
          await get(server.url, '/healthz');
          return residentBytes(pid)! <= baseline + 60 * MB;
        },
        () => `resident memory back within 60 MB of the ${(baseline / MB).toFixed(0)} MB before the attack (${(residentBytes(pid)! / MB).toFixed(0)} MB now)`,
        HANG_GUARD_MS,
        500,
      );
    } finally {
      await stopProcess(server.child);
      rmSync(root, { recursive: true, force: true });
    }
  });
}

readers.run();
