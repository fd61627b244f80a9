import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request, type Reply } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { batch, PROBLEMS, StubGrader } from '../helpers/stub-grader.ts';
import { until } from '../helpers/wait.ts';

let t: TestServer;
const grader = new StubGrader();

function post(body: string, key = t.keys.commercial, query = '', headers: Record<string, string> = {}): Promise<Reply> {
  return request(t.url, `/api/v2/critpt/evaluate${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers } });
}

const remaining = (reply: Reply) => Number(reply.headers['x-ratelimit-remaining']);

async function setup(): Promise<void> {
  if (t) return;
  await grader.start();
  t = await startTestServer({
    // A grading timeout no test comes near, so that none depends on how fast this machine is;
    // the timeout itself is checked on a server of its own.
    server: { metrics: true, quiet: false, critptUpstream: grader.url, critptTimeoutSeconds: 3600, critptMaxBodyBytes: 256 * 1024, limits: { free: 100, pro: 500, commercialDefault: 10_000, critpt: 10 } },
    keys: {
      commercial: { tier: 'commercial', org: 'lab', user: 'ada', critpt: true },
      free: { tier: 'free', org: 'lab', user: 'bob', critpt: true },
      unapproved: { tier: 'pro', org: 'lab', user: 'cy' },
      burst: { tier: 'pro', org: 'lab', user: 'burst', critpt: true },
      leaver: { tier: 'pro', org: 'lab', user: 'leaver', critpt: true },
      // One user holding three keys, one of them with an org-wide data quota.
      twinA: { tier: 'pro', org: 'lab', user: 'twin', critpt: true },
      twinB: { tier: 'free', org: 'lab', user: 'twin', critpt: true },
      twinOrg: { tier: 'pro', org: 'lab', user: 'twin', scope: 'org', critpt: true },
      judged: { tier: 'pro', org: 'lab', user: 'judged', critpt: true },
      streamer: { tier: 'pro', org: 'lab', user: 'streamer', critpt: true },
    },
  });
}

const grading = suite('grading through the upstream grader');
grading.before(setup);

grading('should forward the batch and query, return the verdict and count it', async () => {
  grader.mode = 'ok';
  const reply = await post(batch(), t.keys.commercial, '?stream_progress=false');
  assert.is(reply.status, 200);
  assert.equal(reply.json(), { accuracy: 0.42, timeout_rate: 0.01, server_timeout_count: 1, judge_error_count: 0 });
  assert.is(grader.received.at(-1)!.body, batch());
  assert.is(grader.received.at(-1)!.query, 'stream_progress=false');
  assert.is(reply.headers['x-ratelimit-limit'], '10');
  assert.is(remaining(reply), 9);
  assert.match(String(reply.headers['x-ratelimit-reset']), /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
});

grading('should grade for any tier of an approved account', async () => {
  grader.mode = 'ok';
  assert.is((await post(batch(), t.keys.free)).status, 200);
});

grading('should answer 502 and refund for a non-JSON verdict, a missing field or a reset connection', async () => {
  for (const mode of ['invalid', 'missing', 'reset']) {
    grader.mode = mode;
    const reply = await post(batch());
    assert.is(reply.status, 502, mode);
    assert.match(reply.json().error, /evaluation system/i);
    assert.is(remaining(reply), 9, `${mode} is refunded`);
  }
});

grading('should answer 504 after the grading timeout and refund', async () => {
  // A grader that never answers, and a server that waits for it 1 s.
  const hasty = await startTestServer({ server: { critptUpstream: grader.url, critptTimeoutSeconds: 1, limits: { free: 100, pro: 500, commercialDefault: 10_000, critpt: 10 } }, keys: { commercial: { tier: 'commercial', org: 'lab', user: 'ada', critpt: true } } });
  try {
    grader.mode = 'never';
    const reply = await request(hasty.url, '/api/v2/critpt/evaluate', { method: 'POST', body: batch(), headers: { 'content-type': 'application/json', 'x-api-key': hasty.keys.commercial } });
    assert.is(reply.status, 504);
    assert.match(reply.json().error, /timed out after 1 s/);
    assert.is(remaining(reply), 10, 'refunded');
  } finally {
    await hasty.close();
  }
});

grading('should return a verdict with judge errors without counting it', async () => {
  grader.mode = 'judge';
  const reply = await post(batch());
  assert.is(reply.status, 200);
  assert.is(reply.json().judge_error_count, 2);
  assert.is(remaining(reply), 9);
});

grading('should not count a verdict with a single judge error', async () => {
  grader.mode = 'one-judge-error';
  const reply = await post(batch(), t.keys.judged);
  assert.is(reply.status, 200);
  assert.is(reply.json().judge_error_count, 1);
  assert.is(remaining(reply), 10);
});

grading('should count gradings per user, across all of that user\'s keys whatever their data scope', async () => {
  grader.mode = 'ok';
  const keys = [t.keys.twinA, t.keys.twinB, t.keys.twinOrg];
  for (let i = 0; i < 10; i++) {
    const reply = await post(batch(), keys[i % 3]);
    assert.is(reply.status, 200);
    assert.is(remaining(reply), 9 - i);
  }
  for (const key of keys) assert.is((await post(batch(), key)).status, 429);
  assert.is(remaining(await post(batch(), t.keys.judged)), 9, 'another user of the same org has a counter of its own');
});

grading('should pass on a 4xx of the grader and refund', async () => {
  grader.mode = 'refuse';
  const reply = await post(batch());
  assert.is(reply.status, 422);
  assert.is(reply.json().error, 'batch_metadata.run_id is required by the grader');
  assert.is(remaining(reply), 9);
});

grading('should stream NDJSON progress as it arrives and count on the final result', async () => {
  grader.mode = 'stream';
  grader.streamReleasedBy = null;
  const chunks: string[] = [];
  const lines = await new Promise<string[]>((resolve, reject) => {
    const req = httpRequest(`${t.url}/api/v2/critpt/evaluate?stream_progress=true`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.keys.commercial } }, (res) => {
      assert.is(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /ndjson/);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        chunks.push(chunk);
        text += chunk;
        grader.firstEventSeen();
      });
      res.on('end', () => resolve(text.trim().split('\n')));
    });
    req.on('error', reject);
    req.end(batch());
  });
  assert.is(lines.length, 3);
  assert.is(JSON.parse(lines[2]).type, 'result');
  // The grader held the rest of its stream until the first event had reached the client.
  assert.is(grader.streamReleasedBy, 'client', 'the first event reached the client while the grader was still grading');
  assert.is(JSON.parse(chunks[0].split('\n')[0]).type, 'progress');
  assert.not.match(chunks[0], /"type":"result"/, 'the first chunk is the progress alone');
  grader.mode = 'ok';
  assert.is(remaining(await post(batch())), 7, 'the streamed grading counted, and so did this one');
});

grading('should refund a stream that ends in an error event', async () => {
  grader.mode = 'stream-error';
  const reply = await post(batch(), t.keys.commercial, '?stream_progress=true');
  assert.match(reply.text, /"type":"error"/);
  grader.mode = 'ok';
  assert.is(remaining(await post(batch())), 6);
});

grading('should answer 502 and count nothing for a verdict out of range, however well formed', async () => {
  grader.mode = 'ok';
  const before = remaining(await post(batch(), t.keys.judged));
  grader.mode = 'lying';
  const lies = [
    { accuracy: 0.5, timeout_rate: 0, server_timeout_count: 0, judge_error_count: -1 },
    { accuracy: 1.5, timeout_rate: 0, server_timeout_count: 0, judge_error_count: 0 },
    { accuracy: 0.5, timeout_rate: -0.1, server_timeout_count: 0, judge_error_count: 0 },
    { accuracy: 0.5, timeout_rate: 0, server_timeout_count: 2.5, judge_error_count: 0 },
    { accuracy: '0.5', timeout_rate: 0, server_timeout_count: 0, judge_error_count: 0 },
  ];
  for (const lie of lies) {
    grader.lie = lie;
    const reply = await post(batch(), t.keys.judged);
    assert.is(reply.status, 502, JSON.stringify(lie));
    assert.match(reply.json().error, /^Invalid response from the evaluation system/);
  }
  grader.mode = 'ok';
  assert.is(remaining(await post(batch(), t.keys.judged)), before - 1, 'none of the lies counted');
});

grading('should count nothing in a stream after an error event, even a result', async () => {
  grader.mode = 'ok';
  const before = remaining(await post(batch(), t.keys.streamer));
  grader.mode = 'error-then-result';
  const reply = await post(batch(), t.keys.streamer, '?stream_progress=true');
  assert.is(reply.status, 200);
  assert.match(reply.text, /"type":"error"/);
  grader.mode = 'ok';
  assert.is(remaining(await post(batch(), t.keys.streamer)), before - 1);
});

grading('should end a broken grader stream with an error event, count it as a stream error, and log no server error', async () => {
  grader.mode = 'broken-stream';
  const before = t.errors.length;
  const reply = await post(batch(), t.keys.streamer, '?stream_progress=true');
  assert.is(reply.status, 200);
  assert.match(reply.text, /"type":"progress"/);
  assert.match(reply.text, /"type":"error","error":"The evaluation system stream broke/);
  assert.equal(t.errors.slice(before), [], 'an upstream failure is no server error');
  const metrics = (await request(t.url, '/metrics')).text;
  assert.match(metrics, /bda_critpt_gradings_total\{outcome="stream_error"\} [1-9]/);
  grader.mode = 'ok';
});

grading('should log a client that hangs up mid-body as 499, with no stack trace', async () => {
  const before = t.errors.length;
  const from = t.accessLog.length;
  const { port } = new URL(t.url);
  await new Promise<void>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST /api/v2/critpt/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nx-api-key: ${t.keys.commercial}\r\n\r\n{"submissions":[`);
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('close', () => resolve());
  });
  await until(() => t.accessLog.slice(from).some((l) => l.route === 'critpt.evaluate'), 'the hung-up request is logged');
  const line = t.accessLog.slice(from).find((l) => l.route === 'critpt.evaluate');
  assert.is(line?.status, 499);
  assert.equal(t.errors.slice(before), []);
});

grading.run();

const hostile = suite('hostile bodies');

/** /healthz asked every 5 ms, at least once, until `enough(times)`: each answer's time in ms. */
async function healthzTimes(url: string, enough: (times: number[]) => boolean): Promise<number[]> {
  const times: number[] = [];
  do {
    const started = performance.now();
    assert.is((await request(url, '/healthz')).status, 200);
    times.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 5));
  } while (!enough(times));
  return times;
}

/** A batch nested `depth` levels deep, and one holding `values` empty objects: bodies no server should parse whole. */
const nestedBody = (depth: number) => Buffer.from(`{"submissions":${'['.repeat(depth)}${']'.repeat(depth)},"batch_metadata":{}}`);
const flatBody = (values: number) => Buffer.from(`{"submissions":[],"batch_metadata":{"a":[${Array(values).fill('{}').join(',')}]}}`);

/** Milliseconds JSON.parse takes over a body here and now: what a server that parsed it whole would hold its loop for. */
function parseMs(body: Buffer): number {
  const started = performance.now();
  JSON.parse(body.toString('utf8'));
  return performance.now() - started;
}

hostile('should refuse 16 MB of nesting or millions of values at once, answering /healthz meanwhile', async () => {
  const big = await startTestServer({ server: { critptUpstream: grader.url }, keys: { approved: { tier: 'pro', org: 'lab', user: 'big', critpt: true } } });
  try {
    await healthzTimes(big.url, (times) => times.length >= 5); // warm up
    for (const [make, size, pattern] of [
      [nestedBody, 7_999_990, /nested deeper than 64 levels/],
      [flatBody, 5_000_000, /more than 250000 values/],
    ] as const) {
      const body = make(size);
      // The baseline, on this machine at this moment: JSON.parse of a tenth of the same body
      // (parsing is linear), so a tenth of what a server parsing it whole would stall for.
      const stallMs = 10 * parseMs(make(Math.floor(size / 10)));
      const quiet = Math.max(...(await healthzTimes(big.url, (times) => times.length >= 40)));
      let done = false;
      const probe = healthzTimes(big.url, () => done);
      const reply = await request(big.url, '/api/v2/critpt/evaluate', { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': big.keys.approved } });
      done = true;
      const attacked = Math.max(...(await probe));
      assert.is(reply.status, 400);
      assert.match(reply.json().error, pattern);
      // One that refuses as it reads answers /healthz as usual: well under half that stall.
      assert.ok(attacked < stallMs / 2, `/healthz took ${attacked.toFixed(1)} ms at worst during the attack (${quiet.toFixed(1)} ms just before); parsing the body whole would stall about ${stallMs.toFixed(0)} ms`);
    }
  } finally {
    await big.close();
  }
});

hostile.before(setup);
hostile.run();

const checks = suite('what is refused before forwarding');
checks.before(setup);

checks('should refuse an unapproved account with 403 saying how approval is requested', async () => {
  const reply = await post(batch(), t.keys.unapproved);
  assert.is(reply.status, 403);
  assert.match(reply.json().error, /Request approval by e-mail .* institutional address/);
});

checks('should answer 415, 413 and 400 naming the problem', async () => {
  assert.is((await post(batch(), t.keys.commercial, '', { 'content-type': 'text/plain' })).status, 415);
  const huge = batch(PROBLEMS, { batch_metadata: { padding: 'x'.repeat(300 * 1024) } });
  assert.is((await post(huge)).status, 413);
  assert.is((await post('{"submissions": [')).status, 400);
  const missing = await post(batch(PROBLEMS.slice(1)));
  assert.match(missing.json().error, /missing 1 of 70 problems: Challenge_1_main/);
  const twice = await post(batch([...PROBLEMS, 'Challenge_3_main']));
  assert.match(twice.json().error, /duplicated problem ids: Challenge_3_main/);
  const unknown = await post(batch([...PROBLEMS, 'Challenge_99_main']));
  assert.match(unknown.json().error, /unknown problem ids: Challenge_99_main/);
  const shape = await post(JSON.stringify({ submissions: [{ problem_id: 'Challenge_1_main', model: 'x', generation_config: {} }], batch_metadata: {} }));
  assert.is(shape.json().error, 'Invalid request body: /submissions/0/generated_code is required');
});

checks('should let exactly one of ten parallel posts take the last slot', async () => {
  grader.mode = 'ok';
  for (let i = 0; i < 9; i++) assert.is((await post(batch(), t.keys.burst)).status, 200);
  grader.mode = 'overlap';
  const replies = await Promise.all(Array.from({ length: 10 }, () => post(batch(), t.keys.burst)));
  assert.is(replies.filter((r) => r.status === 200).length, 1);
  const refused = replies.filter((r) => r.status === 429);
  assert.is(refused.length, 9);
  const body = refused[0].json();
  assert.equal(Object.keys(body), ['error', 'limit', 'remaining', 'reset', 'retryAfter']);
  assert.is(body.limit, 10);
  assert.is(body.remaining, 0);
  assert.is(Number(refused[0].headers['retry-after']), body.retryAfter);
});

checks('should cancel the upstream request and free the slot when the client goes away', async () => {
  grader.mode = 'hold';
  const before = grader.aborted;
  const req = httpRequest(`${t.url}/api/v2/critpt/evaluate`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.keys.leaver } });
  req.on('error', () => {});
  req.end(batch());
  await until(() => grader.inFlight > 0, 'the grading reaches the grader');
  req.destroy();
  // The server's grading timeout is an hour: only the cancel can end the upstream request.
  await until(() => grader.aborted > before, 'the upstream request is cancelled');
  assert.is(grader.aborted, before + 1, 'the upstream request was cancelled');
  grader.mode = 'ok';
  assert.is(remaining(await post(batch(), t.keys.leaver)), 9, 'the cancelled grading did not count');
});

checks('should run a bounded number of gradings at once, the rest waiting in order', async () => {
  grader.mode = 'hold';
  grader.maxInFlight = 0;
  const replies = Promise.all(Array.from({ length: 4 }, () => post(batch(), t.keys.free)));
  await until(() => grader.inFlight >= 2, 'two gradings reach the grader');
  await new Promise((r) => setTimeout(r, 100)); // a third, were it sent, would arrive meanwhile
  assert.is(grader.inFlight, 2, 'two at once (the default)');
  while (grader.received.length < 1000 && grader.inFlight > 0) {
    grader.releaseHeld();
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok((await replies).every((r) => r.status === 200));
  assert.is(grader.maxInFlight, 2);
});

checks('should check the batch without a grader: 400, 413 and 415 as usual, 503 only for a valid batch', async () => {
  const bare = await startTestServer({ keys: { commercial: { tier: 'commercial', org: 'x', critpt: true } }, server: { critptMaxBodyBytes: 64 * 1024 } });
  const send = (body: string, type = 'application/json') =>
    request(bare.url, '/api/v2/critpt/evaluate', { method: 'POST', body, headers: { 'content-type': type, 'x-api-key': bare.keys.commercial } });
  try {
    const valid = await send(batch());
    assert.is(valid.status, 503);
    assert.match(valid.json().error, /--critpt-upstream URL\); the batch is valid/);
    assert.is((await send(batch(PROBLEMS.slice(1)))).status, 400, 'a problem missing');
    assert.is((await send('{"submissions": [')).status, 400, 'not JSON');
    assert.is((await send(batch(), 'text/plain')).status, 415);
    assert.is((await send(batch(PROBLEMS, { pad: 'x'.repeat(70 * 1024) }))).status, 413);
    const shipped = await send(readFileSync(new URL('../../examples/critpt-batch.json', import.meta.url), 'utf8'));
    assert.is(shipped.status, 503, `the shipped example batch is valid: ${shipped.text}`);
  } finally {
    await bare.close();
  }
});

checks('should list the problem ids a batch must hold to any key, counted like a data route', async () => {
  const first = await request(t.url, '/api/v2/critpt/problems', { headers: { 'x-api-key': t.keys.free } });
  assert.is(first.status, 200);
  assert.equal(first.json(), { tier: 'free', data: PROBLEMS });
  const second = await request(t.url, '/api/v2/critpt/problems', { headers: { 'x-api-key': t.keys.free } });
  assert.is(remaining(second), remaining(first) - 1, 'counted on the data quota');
  assert.is((await request(t.url, '/api/v2/critpt/problems')).status, 401);
});

checks.after(async () => {
  await t.close();
  await grader.close();
});
checks.run();
