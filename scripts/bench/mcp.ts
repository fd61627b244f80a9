/**
 * The MCP endpoint against the route it calls: `npx tsx scripts/bench/mcp.ts [--rounds 5]
 * [--seconds 5] [--connections 16]`. The sample built and the bundled server started (as `npm run
 * bench` does: scripts/bench/stage.ts), then in alternating rounds wrk loads the Commercial list
 * page, page 1, as the route (`GET`) and as an MCP `tools/call` of `language_models` (`POST /mcp`:
 * the message read, the route's request answered in the process, its body put into the result as
 * text and as structured content), these ways:
 *
 * - as their clients ask: the route in brotli (the bench's list scenario), the call in gzip (the
 *   SDK's fetch over http); the target (the call's p99 at most 1.5x the route's) is read here;
 * - both in gzip, so that the encodings differ in nothing;
 * - the same two answers' bytes from a bare node:http server (mcp-bytes.ts): what the call's size
 *   alone (the body twice) costs over the route's;
 * - both in gzip on one connection: an agent's calls one at a time, latency with no queue.
 *
 * One JSON line a round and way, then the medians: requests per second, p50 and p99, and each
 * pair's p99 ratio. `npm run bench -- --mcp` runs it with the bench's --rounds, --duration and
 * first --connections.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../processes.ts';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { rawAnswer, startBytesServer } from './mcp-bytes.ts';
import { killAll, median, startServer, stop } from './processes.ts';
import { setStage } from './stage.ts';
import { runWrk, wrk, wrkScriptCommand, type Load } from './wrk.ts';

/** The page both benches of a call load, and its call (instructions.ts counts the same two). */
export const LIST = '/api/v2/language/models?page=1';
export const CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'language_models', arguments: { page: 1 } },
};

/** A wrk Lua script posting one body. */
function postScript(body: string): string {
  return [
    'wrk.method = "POST"',
    `wrk.body = ${JSON.stringify(body)}`,
    'wrk.headers["Content-Type"] = "application/json"',
    'wrk.headers["Accept"] = "application/json, text/event-stream"',
    '',
  ].join('\n');
}

export interface McpBenchOptions {
  /** Rounds of one run each way, the ways' order reversed from round to round. */
  rounds: number;
  /** Seconds of each run. */
  seconds: number;
  /** wrk's connections. */
  connections: number;
}

/** The pairs compared: the route's way and the call's, each named as the lines name them. */
const PAIRS = [
  ['as clients ask', 'route br', 'call gzip'],
  ['both in gzip', 'route gzip', 'call gzip'],
  ['the bytes alone (bare node:http)', 'bytes: route gzip', 'bytes: call gzip'],
  ['one at a time (c=1)', 'route gzip, c=1', 'call gzip, c=1'],
] as const;
type Way = (typeof PAIRS)[number][1 | 2];

/** The stage set, the rounds run and their lines and medians printed; the stage removed after. */
export async function mcpBench({ rounds, seconds, connections }: McpBenchOptions): Promise<void> {
  const stage = await setStage();
  try {
    const server = await startServer({
      bundlePath: stage.bundlePath,
      snapshot: stage.snapshotRoot,
      state: stage.state,
      probe: { path: LIST, key: stage.keys.commercial },
      cacheMb: null,
    });
    const base = `http://127.0.0.1:${server.port}`;
    const key = { 'x-api-key': stage.keys.commercial };
    // The same bytes both ways, checked once: the call's text is the route's body.
    const route = await (await fetch(`${base}${LIST}`, { headers: key })).text();
    const called = (await (
      await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json' },
        body: JSON.stringify(CALL),
      })
    ).json()) as { result: { content: { text: string }[] } };
    if (called.result.content[0].text !== route) throw new Error("the call's text is not the route's body");
    const gzip = { ...key, 'Accept-Encoding': 'gzip' };
    const callJson = { ...gzip, 'content-type': 'application/json' };
    const bytesPort = await freePort();
    const bytes = await startBytesServer(stage.work, bytesPort, {
      get: await rawAnswer(server.port, 'GET', LIST, gzip),
      post: await rawAnswer(server.port, 'POST', '/mcp', callJson, JSON.stringify(CALL)),
    });
    const script = join(stage.work, 'mcp-call.lua');
    writeFileSync(script, postScript(JSON.stringify(CALL)));
    const get =
      (url: string, headers: Record<string, string>, c = connections) =>
      () =>
        wrk(url, [LIST], headers, c, seconds, stage.work);
    const post =
      (url: string, c = connections) =>
      () =>
        runWrk(wrkScriptCommand(`${url}/mcp`, script, gzip, c, seconds));
    const bytesBase = `http://127.0.0.1:${bytesPort}`;
    const ways: Record<Way, () => Load> = {
      'route br': get(base, { ...key, 'Accept-Encoding': 'br' }),
      'route gzip': get(base, gzip),
      'call gzip': post(base),
      'bytes: route gzip': get(bytesBase, gzip),
      'bytes: call gzip': post(bytesBase),
      'route gzip, c=1': get(base, gzip, 1),
      'call gzip, c=1': post(base, 1),
    };
    const order = Object.keys(ways) as Way[];
    for (const way of order) ways[way]();
    const runs = Object.fromEntries(order.map((way) => [way, [] as Load[]])) as Record<Way, Load[]>;
    for (let round = 1; round <= rounds; round++)
      for (const way of round % 2 ? order : [...order].reverse()) {
        const load = ways[way]();
        runs[way].push(load);
        console.log(JSON.stringify({ round, way, ...load }));
      }
    const summary = (way: Way) => ({
      rps: median(runs[way].map((l) => l.rps)),
      p50Ms: median(runs[way].map((l) => l.p50Ms)),
      p99Ms: median(runs[way].map((l) => l.p99Ms)),
      errors: runs[way].reduce((sum, l) => sum + l.errors, 0),
    });
    const said = (way: Way) => {
      const m = summary(way);
      return `${way} ${m.rps.toFixed(0)} rps, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, errors ${m.errors}`;
    };
    console.log(`list page, c=${connections} (but where c=1), ${rounds} rounds of ${seconds} s:`);
    for (const [name, routeWay, callWay] of PAIRS) {
      const ratio = summary(callWay).p99Ms / summary(routeWay).p99Ms;
      const target = name === PAIRS[0][0] ? ' (target at most 1.5)' : '';
      console.log(`  ${name}: ${said(routeWay)}; ${said(callWay)}; call p99 / route p99 ${ratio.toFixed(2)}${target}`);
    }
    await stop(bytes);
    await stop(server.child);
  } finally {
    killAll();
    rmSync(stage.work, { recursive: true, force: true });
  }
}

// Run as the script, not when scripts/bench.ts imports mcpBench.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const USAGE = 'usage: npx tsx scripts/bench/mcp.ts [--rounds N] [--seconds S] [--connections N]';
  const { values } = flagsOrExit(
    {
      options: {
        rounds: { type: 'string', default: '5' },
        seconds: { type: 'string', default: '5' },
        connections: { type: 'string', default: '16' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  await mcpBench({
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    connections: Number(values.connections),
  });
}
