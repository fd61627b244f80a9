/**
 * `node --import tsx scripts/bench/healthz-probe.ts PORT [EVERY_MS [PATH KEY]] [fresh]`: asks
 * `/healthz` every EVERY_MS (10) over one kept-alive connection and prints `EPOCH_MS LATENCY_MS`
 * a line for each answer, until killed. With `fresh`, each ask is on a new connection, as a new
 * client's would be, a failed ask prints `EPOCH_MS error CODE`, and each answer's line ends with
 * `CONNECT_MS`: how long the TCP handshake took, which the kernel completes without the server's
 * event loop (a second or more when its SYN was dropped at a full accept queue and sent again).
 * Given a PATH and a KEY it
 * also asks PATH with that key as often, on a connection of its own, and prints `EPOCH_MS
 * LATENCY_MS keyed STATUS` for those: a request that authenticates and counts, which a key
 * store held up would hold where /healthz is not.
 * A process of its own, so the bench's own work (spawning, reading, counting) does not delay the
 * probe and show up as the server's stall; /healthz answers at once unless the server's event
 * loop is held, so the longest answer in a span is the longest the server was held in it.
 */
import { Agent, request } from 'node:http';

const fresh = process.argv.includes('fresh');
const [portArg, everyArg, keyedPath, key] = process.argv.slice(2).filter((arg) => arg !== 'fresh');
const port = Number(portArg);
const everyMs = Number(everyArg ?? 10);

/**
 * One request on `agent`'s connection (a new one when false): its status once the answer has
 * ended, and on a new connection how long after `started` its handshake was done (else -1).
 */
function ask(
  agent: Agent | false,
  path: string,
  headers: Record<string, string>,
  started: number,
): Promise<{ status: number; connectMs: number }> {
  return new Promise((resolve, reject) => {
    let connectMs = -1;
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connectMs }));
      res.on('error', reject);
    });
    if (agent === false)
      req.once('socket', (socket) => socket.once('connect', () => (connectMs = performance.now() - started)));
    req.on('error', reject);
    req.end();
  });
}

async function probe(path: string, headers: Record<string, string>, label: string): Promise<never> {
  const agent = fresh ? false : new Agent({ keepAlive: true, maxSockets: 1 });
  for (;;) {
    const started = performance.now();
    try {
      const { status, connectMs } = await ask(agent, path, headers, started);
      const said = label ? ` ${label} ${status}` : '';
      const connect = fresh ? ` ${connectMs.toFixed(2)}` : '';
      process.stdout.write(`${Date.now()} ${(performance.now() - started).toFixed(2)}${said}${connect}\n`);
    } catch (error) {
      // The server stopping: the bench ends the probe first, so nothing to report, unless asked.
      if (fresh) process.stdout.write(`${Date.now()} error ${(error as NodeJS.ErrnoException).code ?? 'unknown'}\n`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

void probe('/healthz', {}, '');
if (keyedPath && key) void probe(keyedPath, { 'x-api-key': key }, 'keyed');
