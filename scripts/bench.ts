/**
 * `npm run bench [-- --duration S] [--connections 16,64] [--rounds 5]`: our server against nginx
 * (one worker) serving the same precompressed bodies and against the node:http floor, with wrk,
 * in alternating rounds; medians and ratios, peak RSS at the bench's and the default cache
 * size, the pack's bytes per route and encoding, build time and start-up. Writes
 * bench/results.json and the generated part of BENCHMARKS.md. Not part of `npm test`.
 *
 * `npm run bench -- --scale [--factors 1,3,10]` instead builds 1x, 3x and 10x datasets outside
 * the repository and reports build time, snapshot size, start-up time and resident memory for
 * each, with growth ratios (bench/scale.json).
 *
 * `npm run bench -- --history [--days 30]` instead builds a month of daily data one day after
 * another, reports build time and the pack's growth, and loads the routes joined from the
 * history against the model detail route (bench/history.json).
 *
 * `npm run bench -- --pull` instead runs the pulled snapshots' bench (scripts/bench/pull.ts: the
 * delta, the memory of a pull, the list page served during one), and `npm run bench -- --mcp` the
 * MCP endpoint's against its route (scripts/bench/mcp.ts), each with --rounds, --duration as its
 * seconds and, for --mcp, the first of --connections; both print their figures and write no file.
 * `npm run bench -- --instructions` counts the instructions a request takes under callgrind, ours
 * against the floor's and a tool call's against its route's (scripts/bench/instructions.ts), printed.
 *
 * The modules, one concern each, are in scripts/bench/.
 */
import { compare } from './bench/compare.ts';
import { pinningProblem } from './bench/pinning.ts';
import { killAll } from './bench/processes.ts';
import { scale } from './bench/scale.ts';
import { history } from './bench/history.ts';
import { INSTRUCTION_DEFAULTS, instructionsBench } from './bench/instructions.ts';
import { mcpBench } from './bench/mcp.ts';
import { pullBench } from './bench/pull.ts';
import { flagsOrExit } from '../src/shared/flags.ts';

const USAGE =
  'usage: npm run bench -- [--duration S] [--connections N,N,...] [--rounds N] [--baseline DIR] [--pin] ' +
  `[--scale [--factors F,F,...]] [--history [--days N]] [--pull] [--mcp] [--instructions]

  --duration S         seconds of load per run (default 6)
  --connections N,...  wrk connection counts (default 16,64)
  --rounds N           alternating rounds of every scenario (default 5)
  --baseline DIR       also load an earlier checkout (bundled and built by its own code) in the same rounds
  --pin                wrk on core 0 and every server (and Redis) on core 1 (taskset; two cores or more)
  --scale              build, size and start the 1x, 3x and 10x datasets instead
  --factors F,...      the dataset sizes of --scale (default 1,3,10)
  --history            build a month of daily data, one day after another, and load the history's routes instead
  --days N             the days of --history after the first (default 30)
  --pull               the pulled snapshots' delta, memory and list page during a pull instead (printed, no file)
  --mcp                the MCP endpoint against its route instead, at the first --connections (printed, no file)
  --instructions       instructions a request under callgrind instead: ours, the floor's, a tool call's (printed)`;

// Five rounds of 6 s (30 s of load a server, as three of 10 s were): each ratio is the median of
// the rounds' own (scripts/bench/rounds.ts, roundRatio), and five rounds give it a middle that
// one drifting round cannot move.
const { values } = flagsOrExit(
  {
    options: {
      duration: { type: 'string', default: '6' },
      connections: { type: 'string', default: '16,64' },
      rounds: { type: 'string', default: '5' },
      scale: { type: 'boolean', default: false },
      factors: { type: 'string', default: '1,3,10' },
      history: { type: 'boolean', default: false },
      days: { type: 'string', default: '30' },
      pull: { type: 'boolean', default: false },
      mcp: { type: 'boolean', default: false },
      instructions: { type: 'boolean', default: false },
      baseline: { type: 'string' },
      pin: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  },
  USAGE,
);
try {
  if (values.scale) await scale(values.factors.split(',').map(Number));
  else if (values.history)
    await history({
      days: Number(values.days),
      seconds: Number(values.duration),
      connections: values.connections.split(',').map(Number),
      rounds: Number(values.rounds),
    });
  else if (values.pull) await pullBench({ rounds: Number(values.rounds), seconds: Number(values.duration) });
  else if (values.mcp)
    await mcpBench({
      rounds: Number(values.rounds),
      seconds: Number(values.duration),
      connections: Number(values.connections.split(',')[0]),
    });
  else if (values.instructions) await instructionsBench(INSTRUCTION_DEFAULTS);
  else {
    const pinning = values.pin ? pinningProblem() : null;
    if (pinning) {
      console.error(`--pin: ${pinning}`);
      process.exitCode = 1;
    } else
      await compare({
        seconds: Number(values.duration),
        connections: values.connections.split(',').map(Number),
        rounds: Number(values.rounds),
        baseline: values.baseline,
        pin: values.pin,
      });
  }
} finally {
  killAll();
}
