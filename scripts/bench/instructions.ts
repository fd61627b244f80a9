/**
 * Instructions a request, counted by callgrind (callgrind.ts says why they, not time):
 * `npx tsx scripts/bench/instructions.ts [--requests 4000] [--warmup 10000] [--counts 3]
 * [--connections 1] [--top 25]`. The sample built and staged as `npm run bench` stages it, then
 * under callgrind, each in one run, counted around exactly the requests measured:
 *
 * - the floor (scripts/bench/floor.ts, its deferred form, the fastest) answering the Commercial list page in brotli;
 * - our bundled server answering the same page, with the same headers, to a Commercial key;
 * - our server answering the same page as an MCP `tools/call` in gzip.
 *
 * One JSON line a count (instructions in all and a request), each way's figure, their ratios
 * (ours over the floor, the call over the route), and the functions that executed the most in each
 * (callgrind_annotate; JIT-compiled JavaScript shows as `???`, node's and V8's own code by name).
 * The kernel's work (writev, epoll) is not counted, nor that of V8's helper threads (callgrind.ts):
 * this is what a request costs the event loop's thread.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../processes.ts';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { command, lastDump, startCounted, topFunctions, type Counted } from './callgrind.ts';
import { writeFloorScript } from './floor.ts';
import { rawAnswer } from './mcp-bytes.ts';
import { CALL, LIST } from './mcp.ts';
import { killAll, stop } from './processes.ts';
import { waitFor } from '../sentinel-set.ts';
import { setStage } from './stage.ts';
import { ensureValgrind } from './tools.ts';

/** Starting under valgrind, our server checks its build at a fiftieth of its speed. */
const READY_TIMEOUT_MS = 15 * 60_000;

/** One request, as the client sends it every time. */
interface Ask {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Send `ask` once (node's global agent keeps the connections alive): its status. */
async function askOnce(port: number, ask: Ask): Promise<number> {
  return (await rawAnswer(port, ask.method, ask.path, ask.headers, ask.body)).status;
}

/**
 * `count` requests in rounds of `connections`: one on each connection at once, and the next round
 * once all are answered, so that each turn of the server holds the same requests (lanes each
 * asking again as soon as answered made the figure at c=16 swing between 64k and 90k a request
 * with how many requests a turn happened to hold). Throws on any answer but a 200.
 */
async function askMany(port: number, ask: Ask, count: number, connections: number): Promise<void> {
  for (let asked = 0; asked < count; asked += connections) {
    const round = Array.from({ length: Math.min(connections, count - asked) }, () => askOnce(port, ask));
    for (const status of await Promise.all(round))
      if (status !== 200) throw new Error(`${ask.method} ${ask.path} answered ${status}`);
  }
}

/** Wait until `done` says yes, a failed ask being a no (a server under valgrind starts slowly). */
const until = (port: number, done: () => Promise<boolean>) =>
  waitFor(() => done().catch(() => false), `port ${port} ready`, READY_TIMEOUT_MS, 500);

/**
 * Our server once it has checked its whole build: the background check hashes every byte of the
 * pack, and counted beside the requests it was an eighth of their instructions (SHA-256).
 */
async function verified(port: number): Promise<boolean> {
  const answer = await fetch(`http://127.0.0.1:${port}/readyz`);
  return ((await answer.json()) as { verification?: { state?: string } }).verification?.state === 'verified';
}

export interface InstructionOptions {
  /** Requests a count. */
  requests: number;
  /**
   * Requests of each way before any count, with callgrind's instrumentation still off (five times
   * faster): TurboFan compiles the hot code meanwhile, and its work is not a request's. 2,000 were
   * too few: the 2,000 counted after them took 262k instructions a request, the next 2,000 162k.
   */
  warmup: number;
  /**
   * Counts a way, one after the other on the same server. A count with a full (mark-compact)
   * collection in it reads higher than one without (the tool call: 312k, 391k and 311k instructions
   * a request in three counts of 2,000), so the figure is their sum over their requests, with the
   * lowest and highest count beside it.
   */
  counts: number;
  connections: number;
  top: number;
}

/** The instructions `requests` asks of `counted` took. */
async function measure(counted: Counted, port: number, ask: Ask, options: InstructionOptions) {
  await command(counted, ['-z']);
  await askMany(port, ask, options.requests, options.connections);
  await command(counted, ['-d']);
  const { file, instructions } = lastDump(counted);
  return { file, instructions, perRequest: instructions / options.requests };
}

export async function instructionsBench(options: InstructionOptions): Promise<void> {
  ensureValgrind();
  const stage = await setStage();
  try {
    const [oursPort, floorPort] = [await freePort(), await freePort()];
    const key = stage.keys.commercial;
    const ours = startCounted(join(stage.work, 'ours.cg'), [
      stage.bundlePath,
      ...['--port', String(oursPort), '--snapshot', stage.snapshotRoot, '--state', stage.state],
      ...['--quota-free', '1000000000', '--quota-pro', '1000000000', '--quiet'],
    ]);
    const floor = startCounted(join(stage.work, 'floor.cg'), [
      writeFloorScript(stage.work),
      stage.docroot,
      String(floorPort),
      'deferred',
    ]);
    const route: Ask = { method: 'GET', path: LIST, headers: { 'x-api-key': key, 'accept-encoding': 'br' } };
    const call: Ask = {
      method: 'POST',
      path: '/mcp',
      headers: { 'x-api-key': key, 'accept-encoding': 'gzip', 'content-type': 'application/json' },
      body: JSON.stringify(CALL),
    };
    const floorAsk: Ask = { method: 'GET', path: '/list.json', headers: route.headers };
    await Promise.all([
      until(oursPort, async () => (await askOnce(oursPort, route)) === 200 && (await verified(oursPort))),
      until(floorPort, async () => (await askOnce(floorPort, floorAsk)) === 200),
    ]);
    const ways = [
      ['floor: list page, br', floor, floorPort, floorAsk],
      ['ours: list page, br', ours, oursPort, route],
      ['ours: tools/call of the list page, gzip', ours, oursPort, call],
    ] as const;
    for (const [, , port, ask] of ways) await askMany(port, ask, options.warmup, options.connections);
    await Promise.all([command(ours, ['-i', 'on']), command(floor, ['-i', 'on'])]);
    const counts: Record<string, number> = {};
    for (const [way, counted, port, ask] of ways) {
      // The first count after instrumentation is switched on reads high (the floor: 236.7k a request,
      // then 83.3k and 80.2k): it is made and left out.
      const settling = await measure(counted, port, ask, options);
      console.log(JSON.stringify({ way, settling: true, perRequest: settling.perRequest }));
      const measured = [];
      for (let time = 1; time <= options.counts; time++) {
        measured.push(await measure(counted, port, ask, options));
        const { requests, connections } = options;
        console.log(JSON.stringify({ way, time, requests, connections, ...measured.at(-1) }));
      }
      const all = measured.reduce((sum, m) => sum + m.instructions, 0);
      counts[way] = all / (options.requests * measured.length);
      const each = measured.map((m) => m.perRequest);
      const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
      console.log(`${way}: ${k(counts[way])} a request (counts ${k(Math.min(...each))} to ${k(Math.max(...each))})`);
      {
        // The count nearest the figure, so that the functions are those of a typical count.
        const typical = [...measured].sort(
          (a, b) => Math.abs(a.perRequest - counts[way]) - Math.abs(b.perRequest - counts[way]),
        )[0];
        console.log(`  the functions that executed the most (${way}):`);
        for (const line of await topFunctions(typical.file, options.top)) console.log(`  ${line}`);
      }
    }
    const [floorList, oursList, oursCall] = ways.map(([way]) => counts[way]);
    console.log(
      `instructions a request, ${options.counts} counts of ${options.requests} requests at ` +
        `c=${options.connections}: floor ` +
        `${(floorList / 1000).toFixed(1)}k, ours ${(oursList / 1000).toFixed(1)}k ` +
        `(${(oursList / floorList).toFixed(2)}x the floor), tools/call ${(oursCall / 1000).toFixed(1)}k ` +
        `(${(oursCall / oursList).toFixed(2)}x the route)`,
    );
    await Promise.all([stop(ours.child), stop(floor.child)]);
  } finally {
    killAll();
    rmSync(stage.work, { recursive: true, force: true });
  }
}

/** The counts `npm run bench -- --instructions` makes, and this script without flags. */
export const INSTRUCTION_DEFAULTS: InstructionOptions = {
  requests: 4000,
  warmup: 10000,
  counts: 3,
  connections: 1,
  top: 25,
};

// Run as the script, not when imported.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const USAGE =
    'usage: npx tsx scripts/bench/instructions.ts [--requests N] [--warmup N] [--counts N] [--connections N] [--top N]';
  const { values } = flagsOrExit(
    {
      options: {
        requests: { type: 'string', default: String(INSTRUCTION_DEFAULTS.requests) },
        warmup: { type: 'string', default: String(INSTRUCTION_DEFAULTS.warmup) },
        counts: { type: 'string', default: String(INSTRUCTION_DEFAULTS.counts) },
        connections: { type: 'string', default: String(INSTRUCTION_DEFAULTS.connections) },
        top: { type: 'string', default: String(INSTRUCTION_DEFAULTS.top) },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  await instructionsBench({
    requests: Number(values.requests),
    warmup: Number(values.warmup),
    counts: Number(values.counts),
    connections: Number(values.connections),
    top: Number(values.top),
  });
}
