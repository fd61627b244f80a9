/** BENCHMARKS.md: the generated tables, then the hand-written reading kept in bench/analysis.md. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../processes.ts';
import type { PackSizes } from './pack-sizes.ts';
import { STARTUP_RUNS } from './processes.ts';
import { floorFormLines } from './floor-form.ts';
import {
  floorRatio,
  ratio,
  readHistoryResults,
  readResults,
  readScale,
  type Results,
  type ScaleResults,
} from './results.ts';
import { historyMarkdown } from './history-markdown.ts';
import { tableRow } from './markdown-table.ts';
import { countingSeconds } from './counting-cost.ts';
import { checkTargets, countingCostFigure } from './targets.ts';
import { exists } from './tools.ts';

/** BENCHMARKS.md from whichever result files exist: the comparison, the scaling and the history runs. */
export function writeBenchmarksMarkdown(): void {
  const compared = readResults();
  const scaled = readScale();
  const parts = [
    compared
      ? comparisonMarkdown(compared)
      : '# Benchmarks\n\n(no comparison run in the current format yet: `npm run bench`)\n',
  ];
  if (scaled) parts.push(scaleMarkdown(scaled));
  const history = readHistoryResults();
  if (history) parts.push(historyMarkdown(history));
  // The interpretation is written by hand, next to the results it reads.
  const analysis = join(ROOT, 'bench', 'analysis.md');
  if (exists(analysis)) parts.push(readFileSync(analysis, 'utf8'));
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), parts.join('\n'));
}

function scaleMarkdown({ date, rows }: ScaleResults): string {
  const base = rows[0];
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(1) : '-');
  return [
    '## Scaling',
    '',
    `Made by \`npm run bench -- --scale\` on ${date.slice(0, 10)}: datasets generated outside the repository ` +
      'at 1x, 3x and 10x the sample (models, creators, providers, endpoints and their measurements), ' +
      'each built (1x and 3x three times, the median shown; 10x once), then served by the bundle ' +
      'with a 32 MiB body cache and loaded for a few seconds (detail pages across every slug, so the cache misses). ' +
      `Start-up is the median of ${STARTUP_RUNS} starts.`,
    '',
    tableRow([
      'Scale',
      'Models',
      'Records',
      'Build s',
      'Pack MB',
      'Entries',
      'Start-up ms',
      'RSS MB under load',
      'rps',
      'Build vs 1x',
      'Pack vs 1x',
    ]),
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      tableRow([
        `${r.scale}x`,
        r.models,
        r.records,
        r.buildSeconds.toFixed(1),
        r.packMB.toFixed(0),
        r.entries,
        r.startupMs.toFixed(0),
        r.rssMb.toFixed(0),
        r.rps.toFixed(0),
        ratio(r.buildSeconds, base.buildSeconds),
        ratio(r.packMB, base.packMB),
      ]),
    ),
    '',
    'Target: 10x the data builds in at most 11x the time.',
    '',
  ].join('\n');
}

const fixed = (n: number | null | undefined, digits = 2) =>
  n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);
const mb = (bytes: number) => (bytes / 1e6).toFixed(2);

function packMarkdown(pack: PackSizes): string[] {
  const line = (name: string, r: PackSizes['total']) =>
    tableRow([name, r.bodies, mb(r.identityBytes), mb(r.gzipBytes), mb(r.brBytes), mb(r.fragmentBytes)]);
  return [
    `The snapshot: pack file ${mb(pack.packFileBytes)} MB. ` +
      'Per route, the distinct bodies (a body shared by several routes counts once, at the first), ' +
      'what they weigh as JSON (not stored: identity is inflated from gzip on a miss), the stored gzip and br, ' +
      'and the gzip-compressed measurement fragments. MB are 10^6 bytes.',
    '',
    '| Route | Bodies | Identity MB | gzip MB | br MB | Fragments MB |',
    '|---|---:|---:|---:|---:|---:|',
    ...pack.routes.map((r) => line(r.route, r)),
    line('**total**', pack.total),
    '',
  ];
}

/** With a baseline: its figures beside today's, from the same rounds. */
function beforeMarkdown(r: Results): string[] {
  if (!r.baseline) return [];
  const rows = r.rows.filter((row) => row.before);
  return [
    `Before and after, in the same rounds: the server of commit ${r.baseline} ` +
      '(an earlier checkout, bundled and built by its own code from the same data) ' +
      'was loaded back to back with the servers above. ' +
      `Its peak RSS: ${fixed(r.peakRssMb.before, 1)} MB with \`--cache-mb ${r.peakRssMb.benchCacheMb}\`.`,
    '',
    tableRow([
      'Scenario',
      'c',
      'before rps',
      'after rps',
      'before/nginx',
      'after/nginx',
      'before p99 ms',
      'after p99 ms',
      'before p99 ratio',
      'after p99 ratio',
    ]),
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) =>
      tableRow([
        row.scenario,
        row.connections,
        fixed(row.before!.rps, 0),
        fixed(row.ours.rps, 0),
        fixed(ratio(row.before!.rps, row.nginx?.rps)),
        fixed(row.rpsRatio),
        fixed(row.before!.p99Ms),
        fixed(row.ours.p99Ms),
        fixed(ratio(row.before!.p99Ms, row.nginx?.p99Ms), 1),
        fixed(row.p99Ratio, 1),
      ]),
    ),
    '',
  ];
}

/**
 * Counting's own work a request, against the time a request of the list page takes at the rps of
 * the first row (its main thread's share).
 */
function countingWorkLine(r: Results): string {
  const { countedNs, uncountedNs } = r.countingWork;
  const requestNs = 1e9 / r.rows[0]!.ours.rps;
  const extra = countedNs - uncountedNs;
  const share = ((extra / requestNs) * 100).toFixed(2);
  return (
    "- Counting's own work, apart from any server (a quota book's `take` and the rate-limit fields of its status, " +
    "against its `status` and the same fields; medians of alternated passes of a million calls in the bench's " +
    `process): ${countedNs.toFixed(0)} ns against ${uncountedNs.toFixed(0)} ns a request, ` +
    `${extra.toFixed(0)} ns more, ` +
    `${share}% of the ${(requestNs / 1000).toFixed(0)} µs a list page request takes ` +
    `at ${r.rows[0]!.ours.rps.toFixed(0)} rps.`
  );
}

/**
 * The generated comparison section: the one table, counting cost, memory, pack, build, start-up and
 * a verdict per target.
 */
export function comparisonMarkdown(r: Results): string {
  const rss = r.peakRssMb;
  const machine = `${r.machine.cpus} cores (${r.machine.model ?? 'unknown CPU'}), Node ${r.machine.node}`;
  const pinned = r.pinned ? ', wrk pinned to one core and every server (Redis too) to the other (`--pin`)' : '';
  const rounds = `${r.rounds} round${r.rounds === 1 ? '' : 's'}`;
  const warmUp = r.warmUpSeconds ? `after an unrecorded ${r.warmUpSeconds} s warm-up of each server, ` : '';
  return [
    '# Benchmarks',
    '',
    `Made by \`npm run bench\` on ${r.date.slice(0, 10)}: ${machine}. ` +
      `wrk (one thread, keep-alive, ${r.seconds} s a run, every request asking for br) against the bundled server ` +
      "(quota counting on: every request counted, the journal written a lease of 1% of the key's quota ahead), " +
      'nginx (one worker, `gzip_static` + `brotli_static`) serving the same bodies, and the node:http floor ' +
      "(a bare node:http server sending nginx's bodies, taken from a map by path, with the same headers " +
      `and doing nothing else), all on loopback${pinned}. ${rounds} per scenario and connection count, ${warmUp}` +
      'the servers back to back, the order turned each round so that every server takes every place; ' +
      "every figure is the median over the rounds, and every ratio the median of the rounds' own ratios " +
      "(a round's pair loaded in the same minute, not two medians perhaps from two rounds).",
    '',
    tableRow([
      'Scenario',
      'c',
      'ours rps',
      'nginx rps',
      'floor rps',
      'ours/nginx',
      'floor/nginx',
      'ours p99 ms',
      'nginx p99 ms',
      'floor p99 ms',
      'p99 ratio',
      'floor p99 ratio',
      'ours/floor',
    ]),
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((row) =>
      tableRow([
        row.scenario,
        row.connections,
        fixed(row.ours.rps, 0),
        fixed(row.nginx?.rps, 0),
        fixed(row.floor?.rps, 0),
        fixed(row.rpsRatio),
        fixed(floorRatio(row, 'rps')),
        fixed(row.ours.p99Ms),
        fixed(row.nginx?.p99Ms),
        fixed(row.floor?.p99Ms),
        fixed(row.p99Ratio, 1),
        fixed(floorRatio(row, 'p99Ms'), 1),
        fixed(row.oursOfFloor),
      ]),
    ),
    '',
    'The floor columns say what node:http itself reaches against nginx on this machine, ' +
      'answering each request from a map of the same bytes, with no key, quota or journal, ' +
      'in its fastest form (below); ' +
      'the targets hold our server to it (a key checked and a quota counted for each request).',
    '',
    ...floorFormLines(r.floorForm),
    ...beforeMarkdown(r),
    ...r.countingCost.map(
      (c) =>
        `- Quota counting cost at c=${c.connections}: ${countingCostFigure(c)} ` +
        `(Pro list page ${fixed(c.on, 0)} rps counting, ${fixed(c.off, 0)} rps not counting; ` +
        `${c.rounds} rounds of their own, ${countingSeconds(r.seconds)} s a run, ` +
        'each with three servers started for it (counting, not counting, and a twin counting server): ' +
        'the interval is where the median cost lies with about 95% confidence, ' +
        "the twin's ratio how far two identical servers read apart in the same rounds).",
    ),
    countingWorkLine(r),
    ...(r.sharedStore ?? []).map((s) => {
      const tls =
        s.redisTls === null ? '' : `, ${fixed(s.redisTls, 0)} rps on Redis over TLS (${fixed(s.ratioTls, 2)}x)`;
      const apart = s.apart
        ? `; with Redis alone on core ${s.apart.redisCore} and the servers and wrk on ${s.apart.otherCores}, ` +
          `in rounds of their own: ${fixed(s.apart.ratio, 2)}x (${fixed(s.apart.redis, 0)} against ` +
          `${fixed(s.apart.file, 0)} rps)`
        : '';
      return (
        `- On Redis at c=${s.connections}: ${fixed(s.ratio, 2)}x the state folder ` +
        `(Pro list page ${fixed(s.redis, 0)} rps on Redis${tls}, ${fixed(s.file, 0)} rps on the state folder, ` +
        `same rounds; redis-server on the same cores as the servers and wrk)${apart}.`
      );
    }),
    '- Peak RSS of our server (VmHWM after every scenario, every detail page in the mix): ' +
      `${rss.benchCache.toFixed(1)} MB with \`--cache-mb ${rss.benchCacheMb}\` (the rounds above); ` +
      `${rss.defaultCache.toFixed(1)} MB with the default ${rss.defaultCacheMb} MB cache ` +
      `(the same scenarios once more, one run each). nginx worker ${rss.nginxWorker.toFixed(1)} MB.`,
    `- Build of the sample (forced, full): ${r.build.seconds.toFixed(1)} s, ${r.build.entries} entries.`,
    `- Start-up of the bundle to its first 200: ${r.startupMs.toFixed(0)} ms (median of ${STARTUP_RUNS} starts).`,
    '',
    ...packMarkdown(r.pack),
    'Targets:',
    '',
    ...checkTargets(r).map((t) => `- ${t.met ? 'met' : '**missed**'}: ${t.target}: ${t.figure}`),
    '',
  ].join('\n');
}
