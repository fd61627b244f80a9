/**
 * A grading under way when the server is told to stop (SIGTERM: `running.close()`): it is
 * answered and counted if it ends within `--stop-grace`, and cut, uncounted, when it does not.
 * A grading may run for up to `--critpt-timeout` (1800 s), so the grace is the operator's to
 * set (the systemd unit of docs/operating.md gives both); the default is 10 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request, type Reply } from '../helpers/http.ts';
import { spawnServer, stopProcess } from '../helpers/process.ts';
import { createKey } from '../../src/keys/changes.ts';
import { buildFixture, startTestServer, type TestServer } from '../helpers/server.ts';
import { batch, StubGrader } from '../helpers/stub-grader.ts';
import { until } from '../helpers/wait.ts';

const grader = new StubGrader();
const KEYS = { ada: { tier: 'pro' as const, org: 'lab', user: 'ada', critpt: true } };

async function serverWithGrace(stopGraceSeconds: number): Promise<TestServer> {
  return startTestServer({ server: { critptUpstream: grader.url, critptTimeoutSeconds: 3600, stopGraceSeconds, quiet: true }, keys: KEYS });
}

function post(url: string, key: string): Promise<Reply> {
  return request(url, '/api/v2/critpt/evaluate', { method: 'POST', body: batch(), headers: { 'content-type': 'application/json', 'x-api-key': key } });
}

const stop = suite('a grading under way at SIGTERM');
stop.before(() => grader.start());
stop.after(() => grader.close());

stop('should be answered and counted when it ends within the grace, the stop waiting for it', async () => {
  const t = await serverWithGrace(3600);
  try {
    grader.mode = 'hold';
    const reply = post(t.url, t.keys.ada);
    await until(() => grader.inFlight > 0, 'the grading reaches the grader');
    let stopped = false;
    const closing = t.running.close().then(() => (stopped = true));
    // The stop has begun and waits: new connections are refused meanwhile.
    await until(async () => (await fetch(`${t.url}/healthz`).then(() => false, () => true)), 'the server stops accepting');
    assert.is(stopped, false, 'the stop waits for the grading');
    grader.releaseHeld();
    const answered = await reply;
    assert.is(answered.status, 200);
    assert.is(answered.headers['x-ratelimit-remaining'], '9', 'counted');
    await closing;
  } finally {
    rmSync(t.root, { recursive: true, force: true });
  }
});

stop('should be cut, uncounted, when it outlasts --stop-grace; the process exits 0 and the next server has the user\'s whole quota', async () => {
  // The server as an operator runs it: a process, its flags, SIGTERM.
  const root = mkdtempSync(join(tmpdir(), 'critpt-stop-'));
  const { snapshotDir } = await buildFixture(root);
  const state = join(root, 'state');
  const key = createKey(state, KEYS.ada).key;
  const args = ['--port', '0', '--snapshot', snapshotDir, '--state', state, '--critpt-upstream', grader.url, '--critpt-timeout', '3600', '--quiet'];
  const server = await spawnServer([...args, '--stop-grace', '1']);
  try {
    grader.mode = 'hold';
    const aborted = grader.aborted;
    const reply = post(server.url, key).then(
      (r) => r.status,
      (error: Error) => error.message,
    );
    await until(() => grader.inFlight > 0, 'the grading reaches the grader');
    server.child.kill('SIGTERM');
    assert.is(await server.exited, 0, server.output());
    assert.type(await reply, 'string', 'the connection was closed without an answer');
    await until(() => grader.aborted > aborted, 'the upstream request is cancelled');

    grader.mode = 'ok';
    const again = await spawnServer(args);
    try {
      const next = await post(again.url, key);
      assert.is(next.status, 200);
      assert.is(next.headers['x-ratelimit-remaining'], '9', 'the cut grading was not counted');
    } finally {
      await stopProcess(again.child);
    }
  } finally {
    await stopProcess(server.child);
    grader.releaseHeld();
    rmSync(root, { recursive: true, force: true });
  }
});

stop.run();
