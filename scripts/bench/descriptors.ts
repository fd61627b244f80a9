/**
 * Connections past the descriptor limit: `npx tsx scripts/bench/descriptors.ts
 * [--server FILE] [--ulimit N] [--posts N] [--headers N] [--pipeline N] [--rounds N]`.
 *
 * The bundled server (this checkout's, or FILE: an earlier checkout's `dist/server.mjs`) runs on
 * a build of the small fixture under `ulimit -n N` (1,024). From this process, `--posts`
 * keyless POSTs declaring 100 MB trickle their body a byte a second (1,000), `--headers`
 * slowloris requests trickle header lines as slowly (0), and `--pipeline` sockets each pipeline
 * 50 requests and never read (0; run with a large --ulimit for the pipelining case).
 * Then, `--rounds` times (20), 200 ms apart, each on a new connection: `/healthz`, `/readyz` and
 * a keyed request. One JSON line: what each probe got (status, or the error code) and its
 * slowest answer, and what the slow connections got (401, 503, reset...); and `/healthz` asked
 * on a new connection every 10 ms from the floods' start by a probe process of its own
 * (scripts/bench/healthz-probe.ts), so the attackers' work here is not counted as the server's:
 * its answers, failures and slowest answer (asked `slowest_at_ms` after the attack began), the
 * TCP handshake of that answer (`slowest_connect_ms`: the kernel's part, a second or more when a
 * SYN was dropped at a full accept queue and sent again), how many handshakes took 0.9 s or more,
 * and the slowest answer less its handshake (waiting in the accept queue, then for the server's
 * event loop); and the
 * SYNs dropped at full accept queues meanwhile (`listen_overflows`, /proc/net/netstat: every
 * listener on this network namespace, the server's almost alone during the run).
 * `--send-timeout S` is the server's (30): 1 closes the unread pipelining connections at once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createKey } from '../../src/keys/changes.ts';
import { pipelineFlood, slowFlood, type Flood } from '../attackers.ts';
import { spawnServer, stopProcess } from '../processes.ts';
import { smallStage } from './stage.ts';

const { values } = parseArgs({
  options: {
    server: { type: 'string' },
    ulimit: { type: 'string', default: '1024' },
    posts: { type: 'string', default: '1000' },
    headers: { type: 'string', default: '0' },
    pipeline: { type: 'string', default: '0' },
    'send-timeout': { type: 'string', default: '30' },
    rounds: { type: 'string', default: '20' },
  },
});
const work = mkdtempSync(join(tmpdir(), 'bda-descriptors-'));

/** One request on a connection of its own: its status or error code, and how long it took. */
function probe(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ outcome: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (outcome: string) => resolve({ outcome, ms: performance.now() - started });
    const req = request(
      { host: '127.0.0.1', port, path, headers: { ...headers, connection: 'close' }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => done(String(res.statusCode)));
        res.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'));
    req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.end();
  });
}

/** TcpExt ListenOverflows of /proc/net/netstat (Linux; 0 where it cannot be read). */
function listenOverflows(): number {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'latin1')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'))
      .map((line) => line.split(' '));
    return Number(values[names.indexOf('ListenOverflows')] ?? 0);
  } catch {
    return 0;
  }
}

function tally(outcomes: readonly (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

try {
  const snapshot = await smallStage(work);
  const serverFile = values.server ?? join(work, 'server.mjs');
  const state = join(work, 'state');
  const key = createKey(state, { tier: 'pro', org: 'bench', user: 'probe' }).key;
  const runAs = ['sh', '-c', `ulimit -n ${Number(values.ulimit)} && exec "$0" "$@"`];
  const server = await spawnServer(
    [
      '--port',
      '0',
      '--snapshot',
      snapshot,
      '--state',
      state,
      '--quiet',
      '--metrics',
      '--send-timeout',
      String(values['send-timeout']),
    ],
    [serverFile],
    60_000,
    runAs,
  );
  const floods: Flood[] = [];
  const prober = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'healthz-probe.ts'), String(server.port), 'fresh'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let probed = '';
  prober.stdout.on('data', (chunk: Buffer) => (probed += chunk));
  await sleep(1000);
  const overflowsBefore = listenOverflows();
  const attackedAt = Date.now();
  try {
    const posts =
      Number(values.posts) > 0
        ? await slowFlood({ port: server.port, sockets: Number(values.posts), kind: 'post' })
        : null;
    const heads =
      Number(values.headers) > 0
        ? await slowFlood({ port: server.port, sockets: Number(values.headers), kind: 'headers' })
        : null;
    if (posts) floods.push(posts);
    if (heads) floods.push(heads);
    if (Number(values.pipeline) > 0)
      floods.push(
        await pipelineFlood({
          port: server.port,
          path: '/api/v2/openapi.json',
          sockets: Number(values.pipeline),
          requests: 50,
        }),
      );
    await sleep(2000);
    const probes: Record<string, { outcome: string; ms: number }[]> = { healthz: [], readyz: [], keyed: [] };
    for (let round = 0; round < Number(values.rounds); round++) {
      const [h, r, k] = await Promise.all([
        probe(server.port, '/healthz'),
        probe(server.port, '/readyz'),
        probe(server.port, '/api/v2/language/models', { 'x-api-key': key }),
      ]);
      probes.healthz.push(h);
      probes.readyz.push(r);
      probes.keyed.push(k);
      await sleep(200);
    }
    const summary = Object.fromEntries(
      Object.entries(probes).map(([name, list]) => [
        name,
        { outcomes: tally(list.map((p) => p.outcome)), slowest_ms: Math.round(Math.max(...list.map((p) => p.ms))) },
      ]),
    );
    const ready = await probe(server.port, '/readyz');
    prober.kill();
    const lines = probed
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    const answered = lines.filter((l) => l[1] !== 'error').map((l) => Number(l[1]));
    const handshakes = lines.filter((l) => l[1] !== 'error').map((l) => Number(l[2]));
    const fresh = {
      answers: answered.length,
      failures: tally(lines.filter((l) => l[1] === 'error').map((l) => l[2])),
      slowest_ms: Math.round(Math.max(0, ...answered)),
      slowest_at_ms: 0,
      // The handshake of that slowest answer: the kernel's part (a SYN dropped at a full accept
      // queue is sent again 1 s later).
      slowest_connect_ms: 0,
      // Answers whose handshake alone took 0.9 s or more: a SYN sent twice.
      connects_over_900_ms: handshakes.filter((ms) => ms >= 900).length,
      // The slowest answer once its handshake is taken out: waiting to be accepted, then answered.
      slowest_after_connect_ms: Math.round(Math.max(0, ...answered.map((ms, i) => ms - handshakes[i]))),
    };
    const slowestLine = lines.find((l) => l[1] !== 'error' && Math.round(Number(l[1])) === fresh.slowest_ms);
    if (slowestLine) {
      fresh.slowest_at_ms = Math.round(Number(slowestLine[0]) - Number(slowestLine[1]) - attackedAt);
      fresh.slowest_connect_ms = Math.round(Number(slowestLine[2]));
    }
    console.log(
      JSON.stringify({
        server: values.server ?? 'this checkout',
        ulimit: Number(values.ulimit),
        posts: Number(values.posts),
        headers: Number(values.headers),
        pipeline: Number(values.pipeline),
        healthz_fresh_probe: fresh,
        probes: summary,
        slow_posts: posts ? tally(posts.outcomes()) : null,
        slow_headers: heads ? tally(heads.outcomes()) : null,
        readyz_after: ready.outcome,
        // Every listening socket's on this network namespace, not only the server's: the attackers'
        // and the probe's SYNs dropped at a full accept queue.
        listen_overflows: listenOverflows() - overflowsBefore,
      }),
    );
  } finally {
    prober.kill();
    for (const flood of floods) flood.close();
    await stopProcess(server.child);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
