/**
 * What refused uploads cost their clients and the server: `npx tsx scripts/bench/refused-uploads.ts
 * [FLOODS]` (default 30). The bundled server runs on a build of the small fixture; two figures,
 * one JSON line each (src/http/linger.ts says why they matter):
 * - answers: with an 8 MiB upload budget, one key posts sixty 4 MiB bodies at once, FLOODS times,
 *   each client reading while it writes; how many posts saw which status. 0 is a connection that
 *   ended without an answer, which is what a client gets when a reset reaches it first.
 * - memory: with the default budgets, 200 bodies trickle at 10 B/s (most refused) while twenty
 *   4 MiB posts are refused, four times; the server's resident memory before and at its peak.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKey } from '../../src/keys/changes.ts';
import { residentBytes, trickleFlood, uploadFlood, watchResident } from '../attackers.ts';
import { spawnServer, stopProcess, type ServerProcess } from '../processes.ts';
import { smallStage } from './stage.ts';

const floods = Number(process.argv[2] ?? 30);
const PATH = '/api/v2/critpt/evaluate';
const MIB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'bda-refused-uploads-'));

/** The bundled server on the stage with `flags`, and a key allowed to grade, for `use`. */
async function withServer(
  snapshot: string,
  name: string,
  flags: string[],
  use: (server: ServerProcess, key: string) => Promise<void>,
): Promise<void> {
  const state = join(work, `state-${name}`);
  const key = createKey(state, { tier: 'commercial', org: 'bench', user: name, critpt: true }).key;
  const server = await spawnServer(
    ['--port', '0', '--snapshot', snapshot, '--state', state, '--quiet', ...flags],
    [join(work, 'server.mjs')],
    60_000,
  );
  try {
    await use(server, key);
  } finally {
    await stopProcess(server.child);
  }
}

try {
  const snapshot = await smallStage(work);
  await withServer(
    snapshot,
    'answers',
    ['--critpt-max-body-mb', '4', '--critpt-upload-budget-mb', '8', '--critpt-user-upload-mb', '8'],
    async (server, key) => {
      const statuses: Record<number, number> = {};
      for (let flood = 0; flood < floods; flood++) {
        const answered = await uploadFlood({
          port: server.port,
          path: PATH,
          headers: { 'x-api-key': key },
          sockets: 60,
          bytes: 4 * MIB,
        });
        for (const status of answered) statuses[status] = (statuses[status] ?? 0) + 1;
      }
      console.log(
        JSON.stringify({ figure: 'answers', posts: floods * 60, statuses, without_answer: statuses[0] ?? 0 }),
      );
    },
  );
  await withServer(snapshot, 'memory', [], async (server, key) => {
    const pid = server.child.pid!;
    const upload = { port: server.port, path: PATH, headers: { 'x-api-key': key } };
    const rounds = [];
    for (let round = 0; round < 4; round++) {
      const before = residentBytes(pid)!;
      const watch = watchResident(pid, 10);
      const trickle = await trickleFlood({ ...upload, sockets: 200, bytes: 1_000_000, bytesPerSecond: 10 });
      await uploadFlood({ ...upload, sockets: 20, bytes: 4 * MIB });
      await sleep(1000);
      trickle.close();
      rounds.push({ before_mb: Math.round(before / 1e6), peak_mb: Math.round(watch.stop() / 1e6) });
      await sleep(2000);
    }
    console.log(JSON.stringify({ figure: 'memory', rounds }));
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
