/**
 * The usage history's export at scale: `npx tsx scripts/bench/usage-history.ts [--scopes 100000]
 * [--days 30] [--rounds 3]`. A state folder given DAYS day files of SCOPES scopes each (as a
 * server's folds write them, src/quota/usage-files.ts), the server started on it in this process
 * with its admin listener, and a probe process (healthz-probe.ts) asking `/healthz` every 5 ms.
 * Each round curl (a process of its own) fetches the DAYS-day export as JSON and as CSV; one JSON
 * line a format and round: the export's seconds and bytes, its rows, the probe's longest and
 * median answer meanwhile (how long a public request was held), and the server's own event-loop
 * delay meanwhile (its longest and 99th percentile, perf_hooks' monitor at 5 ms).
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { flagsOrExit } from '../../src/shared/flags.ts';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { startServer } from '../../src/start.ts';
import { writeFileAtomic, ensurePrivateDir } from '../../src/shared/state-files.ts';
import { addDays, usageKey, utcDay } from '../../src/quota/usage-day.ts';
import { dayFileName, dayFileText, ensureUsageDir } from '../../src/quota/usage-files.ts';
import { ROOT } from '../processes.ts';
import { scaleWindowScope } from '../scale-state.ts';
import { smallStage } from './stage.ts';

const USAGE = `usage: npx tsx scripts/bench/usage-history.ts [--scopes N] [--days N] [--rounds N]`;
const { values } = flagsOrExit(
  {
    options: {
      scopes: { type: 'string', default: '100000' },
      days: { type: 'string', default: '30' },
      rounds: { type: 'string', default: '3' },
      help: { type: 'boolean', short: 'h' },
    },
  },
  USAGE,
);
const scopes = Number(values.scopes);
const days = Number(values.days);
const rounds = Number(values.rounds);
const PROBE_EVERY_MS = 5;
const execFileAsync = promisify(execFile);

const root = mkdtempSync(join(tmpdir(), 'usage-history-bench-'));
const stateDir = join(root, 'state');
ensurePrivateDir(stateDir);
const dir = ensureUsageDir(stateDir);
const today = utcDay(Date.now());
const keys = Array.from({ length: scopes }, (_, i) => usageKey('data', scaleWindowScope(i))).sort();
const counts = new Map(keys.map((key, i) => [key, 1 + (i % 500)]));
for (let d = 0; d < days; d++) {
  const day = addDays(today, -d);
  writeFileAtomic(join(dir, dayFileName(day)), dayFileText(day, 1, keys, counts));
}
const keysRun = spawnSync(
  'npx',
  ['tsx', 'scripts/keys.ts', 'admin-token', 'create', '--name', 'bench', '--json', '--state', stateDir],
  { cwd: ROOT, encoding: 'utf8' },
);
const { token } = JSON.parse(keysRun.stdout) as { token: string };
const snapshotDir = await smallStage(root);
const server = await startServer(
  { ...DEFAULT_OPTIONS, port: 0, adminPort: 0, snapshotDir, stateDir, quiet: true },
  { log: () => {}, logError: (line) => process.stderr.write(`${line}\n`), accessLog: () => {} },
);
const port = Number(new URL(server.url).port);
const samples: { at: number; ms: number }[] = [];
const probe = spawn(
  process.execPath,
  ['--import', 'tsx', 'scripts/bench/healthz-probe.ts', String(port), String(PROBE_EVERY_MS)],
  {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
createInterface({ input: probe.stdout }).on('line', (line) => {
  const [at, ms] = line.split(' ');
  samples.push({ at: Number(at), ms: Number(ms) });
});
while (samples.length < 20) await sleep(20);

/** curl in a process of its own, the body thrown away: the answer's status, seconds and bytes. */
async function fetchExport(format: string): Promise<{ status: number; seconds: number; bytes: number }> {
  const range = `from=${addDays(today, 1 - days)}&to=${today}`;
  const url = `${server.admin!.url}/admin/api/usage/history?${range}&format=${format}`;
  // Never spawnSync here: this process is the server's.
  const { stdout } = await execFileAsync('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-H',
    `Authorization: Bearer ${token}`,
    '-w',
    '%{http_code} %{time_total} %{size_download}',
    url,
  ]);
  const [status, seconds, bytes] = stdout.split(' ').map(Number);
  return { status: status!, seconds: seconds!, bytes: bytes! };
}

try {
  for (let round = 1; round <= rounds; round++) {
    for (const format of ['json', 'csv']) {
      const from = Date.now();
      // The server is this process: its own loop's longest hold, which the probe (a process
      // competing with curl for the cores) can only approach from outside.
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const result = await fetchExport(format);
      loop.disable();
      const to = Date.now();
      const span = samples
        .filter((s) => s.at >= from && s.at - s.ms <= to)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      console.log(
        JSON.stringify({
          round,
          format,
          scopes,
          days,
          ...result,
          probe_answers: span.length,
          probe_longest_ms: span.at(-1),
          probe_median_ms: span[Math.floor(span.length / 2)],
          loop_delay_max_ms: Math.round(loop.max / 1e5) / 10,
          loop_delay_p99_ms: Math.round(loop.percentile(99) / 1e5) / 10,
        }),
      );
    }
  }
} finally {
  probe.kill();
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
