/**
 * `node --import tsx scripts/bench/healthz-probe.ts PORT [fresh]`: asks `/healthz` every 10 ms over one
 * kept-alive connection (with `fresh`: a new connection each time, as a new client would) and
 * prints `EPOCH_MS LATENCY_MS` a line for each answer, until killed; with `fresh`, a failed ask
 * prints `EPOCH_MS error CODE`, and each answer's line ends with `CONNECT_MS`: how long the TCP
 * handshake took, which the kernel completes without the server's event loop unless its accept
 * queue is full (a SYN dropped there is sent again a second later).
 * A process of its own, so the bench's own work (spawning, reading, counting) does not delay the
 * probe and show up as the server's stall; /healthz answers at once unless the server's event
 * loop is held, so the longest answer in a span is the longest the server was held in it.
 */
import { Agent, request } from 'node:http';

const PROBE_EVERY_MS = 10;
const port = Number(process.argv[2]);
const fresh = process.argv[3] === 'fresh';
const agent = fresh ? false : new Agent({ keepAlive: true, maxSockets: 1 });

/** Ask once; resolves with the handshake's milliseconds (fresh), or -1 on a kept-alive connection. */
function healthz(started: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let connectMs = -1;
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(connectMs));
      res.on('error', reject);
    });
    if (fresh) req.once('socket', (socket) => socket.once('connect', () => (connectMs = performance.now() - started)));
    req.on('error', reject);
    req.end();
  });
}

for (;;) {
  const started = performance.now();
  try {
    const connectMs = await healthz(started);
    process.stdout.write(`${Date.now()} ${(performance.now() - started).toFixed(2)}${fresh ? ` ${connectMs.toFixed(2)}` : ''}\n`);
  } catch (error) {
    // The server stopping: the bench ends the probe first, so nothing to report, unless asked.
    if (fresh) process.stdout.write(`${Date.now()} error ${(error as NodeJS.ErrnoException).code ?? 'unknown'}\n`);
  }
  await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
}
