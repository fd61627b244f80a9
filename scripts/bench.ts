/**
 * `npm run bench [-- --duration S] [--connections 16,64]` / `npm run bench -- --scale [--factors 1,3,10]`: measure the server against
 * nginx (one worker) serving the same precompressed bodies from the same machine, with wrk.
 * Writes bench/results.json and the table in BENCHMARKS.md. Not part of `npm test`.
 *
 * Scenarios: a Pro list page (br), a detail page across every slug (so the LRU misses with a
 * small cache), a /free page, the measurements route, and the list page with quota counting
 * off. `--scale` instead builds 1x, 3x and 10x datasets outside the repository and reports
 * build time, snapshot size, start-up time and resident memory for each, with growth ratios.
 */
import { parseArgs } from 'node:util';
import { compare } from './bench/compare.ts';
import { killAll } from './bench/processes.ts';
import { scale } from './bench/scale.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '16,64' }, scale: { type: 'boolean', default: false }, factors: { type: 'string', default: '1,3,10' } },
  strict: true,
});
try {
  if (values.scale) await scale(values.factors.split(',').map(Number));
  else await compare({ seconds: Number(values.duration), connections: values.connections.split(',').map(Number) });
} finally {
  killAll();
}
