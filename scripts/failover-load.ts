/**
 * The load and the watch of a failover, for the failover bench (scripts/bench/failover.ts) and tests: clients that each
 * send one keyed request at a time on kept-alive connections, alternating between the servers,
 * tallying the answers and when the 503s came; and a watcher asking every server's /readyz
 * every 50 ms, adding up how long each was not ready and what it said.
 */
import { Agent, request } from 'node:http';

export interface Tally {
  ok: number;
  limited: number;
  unavailable: number;
  /** Anything else: a status not expected here, or a failed request. */
  other: string[];
  /** Milliseconds since the load began of each 503. */
  unavailableAt: number[];
}

function get(agent: Agent, url: string, path: string, key?: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path, agent, headers: key === undefined ? {} : { 'x-api-key': key } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end();
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FailoverLoad {
  readonly tally: Tally = { ok: 0, limited: 0, unavailable: 0, other: [], unavailableAt: [] };
  readonly began = performance.now();
  private stopped = false;
  private readonly agents: Agent[];
  private readonly done: Promise<void>;

  constructor(
    private readonly urls: readonly string[],
    private readonly key: string,
    clients: number,
    private readonly path = '/api/v2/language/models/free',
  ) {
    this.agents = urls.map(() => new Agent({ keepAlive: true, maxSockets: clients }));
    this.done = Promise.all(Array.from({ length: clients }, (_, n) => this.client(n))).then(() => {});
  }

  /** Milliseconds since the load began. */
  now(): number {
    return performance.now() - this.began;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    for (const agent of this.agents) agent.destroy();
  }

  private async client(n: number): Promise<void> {
    for (let i = n; !this.stopped; i++) {
      const server = i % this.urls.length;
      const reply = await get(this.agents[server]!, this.urls[server]!, this.path, this.key).catch(
        (error: Error) => error,
      );
      const { tally } = this;
      if (reply instanceof Error) tally.other.push(`request failed: ${reply.message}`);
      else if (reply.status === 200) tally.ok++;
      else if (reply.status === 429) tally.limited++;
      else if (reply.status === 503) {
        tally.unavailable++;
        tally.unavailableAt.push(this.now());
      } else tally.other.push(`${reply.status} ${reply.text.slice(0, 160)}`);
      // A refusal comes back at once: a short pause keeps the clients from spinning on them.
      if (reply instanceof Error || reply.status !== 200) await pause(10);
    }
  }
}

/** Each server's /readyz every 50 ms: how long it was not ready, and the reasons it gave. */
export class ReadinessWatch {
  readonly notReadyMs: number[];
  readonly reasons: Set<string>[];
  private stopped = false;
  private readonly done: Promise<void>;
  private readonly agent = new Agent({ keepAlive: true });

  constructor(private readonly urls: readonly string[]) {
    this.notReadyMs = urls.map(() => 0);
    this.reasons = urls.map(() => new Set());
    this.done = Promise.all(urls.map((_, n) => this.watch(n))).then(() => {});
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    this.agent.destroy();
  }

  private async watch(n: number): Promise<void> {
    let last = performance.now();
    while (!this.stopped) {
      const reply = await get(this.agent, this.urls[n]!, '/readyz').catch(() => null);
      const now = performance.now();
      if (reply?.status !== 200) {
        this.notReadyMs[n]! += now - last;
        const reason = reply
          ? String((JSON.parse(reply.text) as { details?: { reason?: string } }).details?.reason ?? reply.status)
          : 'no answer';
        this.reasons[n]!.add(reason.replace(/\d+/g, 'N').slice(0, 200));
      } else {
        const warnings = (JSON.parse(reply.text) as { warnings?: string[] }).warnings ?? [];
        for (const warning of warnings)
          this.reasons[n]!.add(`ready, warning: ${warning.replace(/\d+/g, 'N').slice(0, 200)}`);
      }
      last = now;
      await pause(50);
    }
  }
}

/** From the first 503 to the last, in ms (0 without any). */
export function unavailableWindowMs(tally: Tally): number {
  const at = tally.unavailableAt;
  return at.length === 0 ? 0 : at[at.length - 1]! - at[0]!;
}
