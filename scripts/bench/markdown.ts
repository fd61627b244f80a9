/** BENCHMARKS.md: the generated tables, then the hand-written reading kept in bench/analysis.md. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../processes.ts';
import { STARTUP_RUNS } from './processes.ts';
import type { Row, ScaleRow } from './results.ts';
import { exists } from './tools.ts';
import type { Load } from './wrk.ts';

/** BENCHMARKS.md from whichever result files exist: the comparison and the scaling run. */
export function writeBenchmarksMarkdown(): void {
  const read = (name: string) => (exists(join(ROOT, 'bench', name)) ? JSON.parse(readFileSync(join(ROOT, 'bench', name), 'utf8')) : null);
  const compared = read('results.json');
  const scaled = read('scale.json') as { date: string; rows: ScaleRow[] } | null;
  const parts = [compared ? benchmarksMarkdown(compared) : '# Benchmarks\n\n(no comparison run yet: `npm run bench`)\n'];
  if (scaled) parts.push(scaleMarkdown(scaled));
  // The interpretation is written by hand, next to the results it reads.
  const analysis = join(ROOT, 'bench', 'analysis.md');
  if (exists(analysis)) parts.push(readFileSync(analysis, 'utf8'));
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), parts.join('\n'));
}

function scaleMarkdown({ date, rows }: { date: string; rows: ScaleRow[] }): string {
  const base = rows[0];
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(1) : '-');
  return [
    '## Scaling',
    '',
    `Made by \`npm run bench -- --scale\` on ${date.slice(0, 10)}: datasets generated outside the repository at 1x, 3x and 10x the sample (models, creators, providers, endpoints and their measurements), each built, then served by the bundle with a 32 MiB body cache and loaded for a few seconds (detail pages across every slug, so the cache misses). Start-up is the median of ${STARTUP_RUNS} starts.`,
    '',
    '| Scale | Models | Records | Build s | Pack MB | Entries | Start-up ms | RSS MB under load | rps | Build vs 1x | Pack vs 1x |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.scale}x | ${r.models} | ${r.records} | ${r.buildSeconds.toFixed(1)} | ${r.packMB.toFixed(0)} | ${r.entries} | ${r.startupMs.toFixed(0)} | ${r.rssMb.toFixed(0)} | ${r.rps.toFixed(0)} | ${ratio(r.buildSeconds, base.buildSeconds)} | ${ratio(r.packMB, base.packMB)} |`),
    '',
    'Target (design.md section 5): 10x the models builds in at most 12x the time.',
    '',
  ].join('\n');
}

interface FloorRow {
  connections: number;
  floor: Load;
  /** The floor's rps over nginx's, same body. */
  ofNginx: number;
  /** Our server's rps over the floor's, same body. */
  oursOfFloor: number;
}

function benchmarksMarkdown(r: { date: string; machine: { cpus: number; model?: string; node: string }; seconds: number; build: { seconds: number; entries: number; packMB: number; identityMB: number }; startupMs: number; peakRssMb: { server: number; nginxWorker: number }; rows: Row[]; countingCost: { connections: number; on: number; off: number; cost: number }[]; floorRows?: FloorRow[] }): string {
  const f = (n: number | null, d = 2) => (n === null || Number.isNaN(n) ? '-' : n.toFixed(d));
  const lines = [
    '# Benchmarks',
    '',
    `Made by \`npm run bench\` on ${r.date.slice(0, 10)}: ${r.machine.cpus} cores (${r.machine.model ?? 'unknown CPU'}), Node ${r.machine.node}. wrk (one thread, keep-alive, ${r.seconds} s a run) against the bundled server (quota counting on unless said) and against nginx (one worker, \`gzip_static\` + \`brotli_static\`) serving the same bodies, both on loopback on the same machine. Every request asks for br.`,
    '',
    '| Scenario | Connections | Server rps | p50 ms | p99 ms | nginx rps | nginx p99 ms | rps ratio | p99 ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((row) => `| ${row.scenario} | ${row.connections} | ${f(row.server.rps, 0)} | ${f(row.server.p50Ms)} | ${f(row.server.p99Ms)} | ${f(row.nginx?.rps ?? null, 0)} | ${f(row.nginx?.p99Ms ?? null)} | ${f(row.rpsRatio)} | ${f(row.p99Ratio)} |`),
    '',
    '| Quota counting | Connections | on (rps) | off (rps) | cost |',
    '|---|---:|---:|---:|---:|',
    ...r.countingCost.map((c) => `| Pro list page | ${c.connections} | ${f(c.on, 0)} | ${f(c.off, 0)} | ${(c.cost * 100).toFixed(1)}% |`),
    '',
    ...(r.floorRows
      ? [
          'The node:http floor: a bare node:http server sending the Pro list body with the same headers (no key, no quota, no lookup). It bounds what any node:http server can reach here.',
          '',
          '| Connections | floor rps | floor p99 ms | floor / nginx | server / floor |',
          '|---:|---:|---:|---:|---:|',
          ...r.floorRows.map((row) => `| ${row.connections} | ${f(row.floor.rps, 0)} | ${f(row.floor.p99Ms)} | ${f(row.ofNginx)} | ${f(row.oursOfFloor)} |`),
          '',
        ]
      : []),
    `- Start-up of the bundle to its first 200: ${r.startupMs.toFixed(0)} ms (median of ${STARTUP_RUNS} starts).`,
    `- Peak resident memory under this load: server ${r.peakRssMb.server.toFixed(0)} MB, nginx worker ${r.peakRssMb.nginxWorker.toFixed(0)} MB.`,
    `- Build of the sample: ${r.build.seconds} s, ${r.build.entries} entries, ${r.build.identityMB.toFixed(0)} MB of JSON, pack ${r.build.packMB.toFixed(0)} MB.`,
    '',
    'Targets (design.md section 5): rps ratio at least 0.7, p99 ratio at most 2, counting cost at most 10%, memory under 150 MB, start-up under 300 ms, build under 30 s.',
    '',
  ];
  return lines.join('\n');
}
