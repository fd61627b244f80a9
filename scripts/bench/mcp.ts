/**
 * The MCP endpoint against the route it calls: `npx tsx scripts/bench/mcp.ts [--rounds 5]
 * [--seconds 5] [--connections 16]`. The sample built and the bundled server started (as `npm run
 * bench` does: scripts/bench/stage.ts), then in alternating rounds wrk loads the Commercial list
 * page, page 1, two ways, each as its clients ask: as the route (`GET`, brotli, as the bench's list
 * scenario asks) and as an MCP `tools/call` of `language_models` (`POST /mcp`, gzip, as the SDK's
 * fetch asks: the message read, the route asked over loopback, its body put into the result as
 * text and as structured content). One JSON line a
 * round and way, then the medians: requests per second, p50 and p99, and the call's p99 over the
 * route's (the target: at most 1.5). `npm run bench -- --mcp` runs it with the bench's --rounds,
 * --duration and first --connections.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { killAll, median, startServer, stop } from './processes.ts';
import { setStage } from './stage.ts';
import { parseWrk, wrkCommand, wrkScriptCommand, type Load } from './wrk.ts';

const LIST = '/api/v2/language/models?page=1';
const CALL = {
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
  /** Rounds of one run each way, which way first alternating from round to round. */
  rounds: number;
  /** Seconds of each run. */
  seconds: number;
  /** wrk's connections. */
  connections: number;
}

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
    const script = join(stage.work, 'mcp-call.lua');
    writeFileSync(script, postScript(JSON.stringify(CALL)));
    const ways: Record<'route' | 'mcp', () => Load> = {
      route: () => {
        const [command, args] = wrkCommand(
          base,
          [LIST],
          { ...key, 'Accept-Encoding': 'br' },
          connections,
          seconds,
          stage.work,
        );
        return parseWrk(execFileSync(command, args, { encoding: 'utf8' }));
      },
      mcp: () => {
        const headers = { ...key, 'Accept-Encoding': 'gzip' };
        const [command, args] = wrkScriptCommand(`${base}/mcp`, script, headers, connections, seconds);
        return parseWrk(execFileSync(command, args, { encoding: 'utf8' }));
      },
    };
    ways.route();
    ways.mcp();
    const runs: Record<'route' | 'mcp', Load[]> = { route: [], mcp: [] };
    for (let round = 1; round <= rounds; round++)
      for (const way of round % 2 ? (['route', 'mcp'] as const) : (['mcp', 'route'] as const)) {
        const load = ways[way]();
        runs[way].push(load);
        console.log(JSON.stringify({ round, way, ...load }));
      }
    const summary = (way: 'route' | 'mcp') => ({
      rps: median(runs[way].map((l) => l.rps)),
      p50Ms: median(runs[way].map((l) => l.p50Ms)),
      p99Ms: median(runs[way].map((l) => l.p99Ms)),
      errors: runs[way].reduce((sum, l) => sum + l.errors, 0),
    });
    const [r, m] = [summary('route'), summary('mcp')];
    console.log(
      `list page, c=${connections}, ${rounds} rounds of ${seconds} s: route ${r.rps.toFixed(0)} rps, p50 ` +
        `${r.p50Ms} ms, p99 ${r.p99Ms} ms; tools/call ${m.rps.toFixed(0)} rps, p50 ${m.p50Ms} ms, ` +
        `p99 ${m.p99Ms} ms; call p99 / route p99 ${(m.p99Ms / r.p99Ms).toFixed(2)} (target at most 1.5); ` +
        `errors ${r.errors} and ${m.errors}`,
    );
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
