/**
 * The upstream CritPt grader, played by a test: a node:http server on loopback that grades
 * nothing and answers as the test tells it (`mode`), remembering what it received.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HANG_GUARD_MS } from './wait.ts';

/** The upstream grader, played by the test: it grades nothing and answers as told. */
export class StubGrader {
  mode = 'ok';
  /** What the `lying` mode answers. */
  lie: Record<string, unknown> = {};
  received: { query: string; body: string }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  aborted = 0;
  private held: ServerResponse[] = [];
  private server!: Server;
  url = '';
  /**
   * In `stream` mode the grader sends its first progress event and holds the rest until the
   * test has seen that event arrive (or a hang guard passes): who let it go, the test or the guard.
   */
  streamReleasedBy: 'client' | 'hang guard' | null = null;
  private releaseStream: (() => void) | null = null;

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/grade`;
  }

  /** The test saw the first progress event of a `stream` grading. */
  firstEventSeen(): void {
    this.releaseStream?.();
  }

  releaseHeld(): void {
    for (const res of this.held.splice(0)) this.verdict(res, 0);
  }

  private verdict(res: ServerResponse, judgeErrors: number): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ accuracy: 0.42, timeout_rate: 0.01, server_timeout_count: 1, judge_error_count: judgeErrors }));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    this.received.push({ query: req.url!.split('?')[1] ?? '', body });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => {
      this.inFlight--;
      if (!res.writableFinished) this.aborted++;
    });
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    switch (this.mode) {
      case 'ok':
        return this.verdict(res, 0);
      case 'overlap':
        await wait(150);
        return this.verdict(res, 0);
      case 'judge':
        return this.verdict(res, 2);
      case 'one-judge-error':
        return this.verdict(res, 1);
      case 'never':
        return; // no answer, until the server gives up and closes the request
      case 'invalid':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('<html>oops</html>');
      case 'missing':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ accuracy: 1, timeout_rate: 0 }));
      case 'reset':
        return void req.socket.destroy();
      case 'refuse':
        res.writeHead(422, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: 'batch_metadata.run_id is required by the grader' }));
      case 'hold':
        return void this.held.push(res);
      case 'broken-stream':
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ type: 'progress', graded: 10, total: 70 })}\n`);
        await wait(50);
        return void req.socket.destroy();
      case 'lying':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(this.lie));
      case 'error-then-result':
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ type: 'error', error: 'judge pool down' })}\n`);
        return void res.end(`${JSON.stringify({ type: 'result', result: { accuracy: 0.9, timeout_rate: 0, server_timeout_count: 0, judge_error_count: 0 } })}\n`);
      case 'stream':
      case 'stream-error':
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ type: 'progress', graded: 35, total: 70 })}\n`);
        if (this.mode === 'stream') {
          this.streamReleasedBy = await new Promise((resolve) => {
            const guard = setTimeout(() => resolve('hang guard'), HANG_GUARD_MS);
            this.releaseStream = () => {
              clearTimeout(guard);
              resolve('client');
            };
          });
          this.releaseStream = null;
        } else await wait(300);
        res.write(`${JSON.stringify({ type: 'progress', graded: 70, total: 70 })}\n`);
        res.end(this.mode === 'stream' ? `${JSON.stringify({ type: 'result', result: { accuracy: 0.5, timeout_rate: 0, server_timeout_count: 0, judge_error_count: 0 } })}\n` : `${JSON.stringify({ type: 'error', error: 'grader crashed' })}\n`);
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** The public problem set of the fixture: what a whole batch must grade. */
export const PROBLEMS = Array.from({ length: 70 }, (_, i) => `Challenge_${i + 1}_main`);

/** A whole batch (every problem once), as a client posts it. */
export function batch(ids: string[] = PROBLEMS, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    submissions: ids.map((problem_id) => ({ problem_id, generated_code: 'def answer():\n    return 42\n', model: 'aster-3', generation_config: { temperature: 0 }, messages: [{ role: 'user', content: 'solve' }] })),
    batch_metadata: { run_id: 'r1' },
    ...extra,
  });
}
