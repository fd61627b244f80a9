/**
 * `node --import tsx scripts/bench/healthz-probe.ts PORT [EVERY_MS [PATH KEY]]`: asks `/healthz`
 * every EVERY_MS (10) over one kept-alive connection and prints `EPOCH_MS LATENCY_MS` a line for
 * each answer, until killed. Given a PATH and a KEY it also asks PATH with that key as often, on
 * a connection of its own, and prints `EPOCH_MS LATENCY_MS keyed STATUS` for those: a request that
 * authenticates and counts, which a key store held up would hold where /healthz is not.
 * A process of its own, so the bench's own work (spawning, reading, counting) does not delay the
 * probe and show up as the server's stall; /healthz answers at once unless the server's event
 * loop is held, so the longest answer in a span is the longest the server was held in it.
 */
import { Agent, request } from 'node:http';

const port = Number(process.argv[2]);
const everyMs = Number(process.argv[3] ?? 10);
const [keyedPath, key] = process.argv.slice(4);

/** One request on `agent`'s connection; its status once the answer has ended. */
function ask(agent: Agent, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function probe(path: string, headers: Record<string, string>, label: string): Promise<never> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (;;) {
    const started = performance.now();
    try {
      const status = await ask(agent, path, headers);
      process.stdout.write(`${Date.now()} ${(performance.now() - started).toFixed(2)}${label ? ` ${label} ${status}` : ''}\n`);
    } catch {
      // The server stopping: the bench ends the probe first, so nothing to report.
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

void probe('/healthz', {}, '');
if (keyedPath && key) void probe(keyedPath, { 'x-api-key': key }, 'keyed');
