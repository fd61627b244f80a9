/**
 * What an admin list costs the public port on a large state folder: `npx tsx
 * scripts/bench/admin-list-stall.ts [KEYS]` (default 100,000 keys). The bundled server runs on a
 * build of the small fixture and a state folder of KEYS keys with its admin listener on; while
 * `GET /admin/api/keys?org=...` reads every key, one client asks `/healthz` again and again, and
 * the longest of those waits is the figure (three lists). The list reads keys.json in slices
 * between turns (src/keys/file.ts, readKeysFileInTurns); read in one piece, that wait was the
 * whole read.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnServer, stopProcess } from '../processes.ts';
import { writeScaleKeys } from '../scale-state.ts';
import { smallStage } from './stage.ts';

const LISTS = 3;
const keys = Number(process.argv[2] ?? 100_000);
const work = mkdtempSync(join(tmpdir(), 'bda-admin-stall-'));
try {
  const snapshot = await smallStage(work);
  const state = join(work, 'state');
  writeScaleKeys(state, keys);
  const made = spawnSync(process.execPath, [join(work, 'keys.mjs'), 'admin-token', 'create', '--name', 'stall', '--state', state], { encoding: 'utf8' });
  const token = /^bdat_\S+$/m.exec(made.stdout)?.[0];
  if (!token) throw new Error(`no admin token: ${made.stderr}`);
  const adminPort = await freePort();
  const server = await spawnServer(['--port', '0', '--admin-port', String(adminPort), '--snapshot', snapshot, '--state', state, '--quiet'], [join(work, 'server.mjs')], 60_000);
  try {
    for (let round = 0; round < LISTS; round++) {
      const waits: number[] = [];
      let listing = true;
      const probe = (async () => {
        while (listing) {
          const t = performance.now();
          await (await fetch(`${server.url}/healthz`)).arrayBuffer();
          waits.push(performance.now() - t);
        }
      })();
      const t = performance.now();
      const list = await fetch(`http://127.0.0.1:${adminPort}/admin/api/keys?org=acme`, { headers: { authorization: `Bearer ${token}` } });
      await list.arrayBuffer();
      const listMs = performance.now() - t;
      listing = false;
      await probe;
      if (list.status !== 200) throw new Error(`admin list answered ${list.status}`);
      console.log(JSON.stringify({ keys, list_ms: Math.round(listMs), healthz_answers: waits.length, healthz_longest_wait_ms: Math.round(Math.max(...waits)) }));
    }
  } finally {
    await stopProcess(server.child);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
