/**
 * Whether clients read the answers to bodies refused while they are still sending them: `npx tsx
 * scripts/bench/refused-uploads.ts [FLOODS]` (default 30). The bundled server runs on a build of
 * the small fixture with an 8 MiB upload budget; one key posts sixty 4 MiB bodies at once, FLOODS
 * times, each client reading while it writes. The figure is how many of those posts saw which
 * status; 0 is a connection that ended without an answer, which is what a server that closes
 * outright after refusing a body gives a client its reset reaches first (src/http/linger.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey } from '../../src/keys/changes.ts';
import { uploadFlood } from '../attackers.ts';
import { spawnServer, stopProcess } from '../processes.ts';
import { smallStage } from './stage.ts';

const floods = Number(process.argv[2] ?? 30);
const work = mkdtempSync(join(tmpdir(), 'bda-refused-uploads-'));
try {
  const snapshot = await smallStage(work);
  const state = join(work, 'state');
  const key = createKey(state, { tier: 'commercial', org: 'bench', user: 'flood', critpt: true }).key;
  const budget = ['--critpt-max-body-mb', '4', '--critpt-upload-budget-mb', '8', '--critpt-user-upload-mb', '8'];
  const server = await spawnServer(['--port', '0', '--snapshot', snapshot, '--state', state, '--quiet', ...budget], [join(work, 'server.mjs')], 60_000);
  try {
    const statuses: Record<number, number> = {};
    for (let flood = 0; flood < floods; flood++) {
      const answered = await uploadFlood({ port: server.port, path: '/api/v2/critpt/evaluate', headers: { 'x-api-key': key }, sockets: 60, bytes: 4 * 1024 * 1024 });
      for (const status of answered) statuses[status] = (statuses[status] ?? 0) + 1;
    }
    console.log(JSON.stringify({ posts: floods * 60, statuses, without_answer: statuses[0] ?? 0 }));
  } finally {
    await stopProcess(server.child);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
