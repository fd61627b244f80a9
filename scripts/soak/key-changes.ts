/**
 * Key changes while load runs: once a minute the soak creates a fresh key with the keys command
 * (`npm run keys -- create`, as an operator does), uses it (it must answer 200), revokes it, and
 * uses it again (it must answer 401), each on the very next request after the change. The seeded
 * keys' plain values are unknown (only hashes are stored), so the soak changes keys of its own;
 * with a large keys.json each change is a rewrite of the whole file and each next request a reread.
 * The command runs as a process of its own: in the soak's process its reading and writing of
 * the file would hold the stall probe and the clients, and be counted as the server's stall.
 */
import { execFile } from 'node:child_process';
import { ROOT } from '../processes.ts';
import { get } from './client.ts';
import type { SoakServers } from './servers.ts';

const CHANGE_EVERY_MS = 60_000;
/** Half-way between two kills, so a change is not mistaken for a restart's cut request. */
const FIRST_CHANGE_AFTER_MS = CHANGE_EVERY_MS / 2;
/** A tier's route that answers 200 for any key that works. */
const ROUTE = '/api/v2/language/models/free';

export interface KeyChangeOutcome {
  change: 'create' | 'revoke';
  /** How long the keys command took, spawn to exit (a rewrite of keys.json on the file store). */
  commandMs: number;
  /** The status of the next request with the key, and how long that request took. */
  status: number;
  expected: number;
  answerMs: number;
}

export class KeyChanges {
  readonly outcomes: KeyChangeOutcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private cycles = 0;

  constructor(
    private readonly servers: SoakServers,
    private readonly serverCount: number,
    /** Where the keys are, as the keys command takes it: `--state DIR --store S`. */
    private readonly storeArgs: string[],
    private readonly run: string,
    private readonly failures: string[],
  ) {}

  start(): void {
    const once = () => (this.running = this.running.then(() => this.cycle(this.cycles++)));
    this.first = setTimeout(() => {
      once();
      this.timer = setInterval(once, CHANGE_EVERY_MS);
    }, FIRST_CHANGE_AFTER_MS);
  }

  /** Stop scheduling and wait for a change under way. */
  async stop(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.running;
  }

  /** Changes that did not take effect on the next request. */
  misses(): KeyChangeOutcome[] {
    return this.outcomes.filter((o) => o.status !== o.expected);
  }

  private async cycle(n: number): Promise<void> {
    // A restart under way would cut the check's request, a failover of the store answer it 503: wait them out.
    while (this.servers.restarting || this.servers.storeFaulted) await new Promise((r) => setTimeout(r, 100));
    const server = n % this.serverCount;
    try {
      const t0 = performance.now();
      const issued = JSON.parse(
        await this.keys('create', '--tier', 'pro', '--org', `changes-${this.run}`, '--user', `k${n}`),
      ) as { id: string; key: string };
      await this.check('create', performance.now() - t0, server, issued.key, 200);
      const t1 = performance.now();
      await this.keys('revoke', issued.id);
      await this.check('revoke', performance.now() - t1, server, issued.key, 401);
    } catch (error) {
      this.failures.push(`key change ${n}: ${(error as Error).message}`);
    }
  }

  /** Run the keys command to its end; its stdout (JSON). */
  private keys(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'scripts/keys.ts', ...args, ...this.storeArgs, '--json'],
        { cwd: ROOT, encoding: 'utf8' },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`keys ${args[0]}: ${stderr || error.message}`));
          else resolve(stdout);
        },
      );
    });
  }

  private async check(
    change: KeyChangeOutcome['change'],
    commandMs: number,
    server: number,
    key: string,
    expected: number,
  ): Promise<void> {
    const t0 = performance.now();
    const reply = await get(this.servers.port(server), ROUTE, key);
    const outcome = { change, commandMs, status: reply.status, expected, answerMs: performance.now() - t0 };
    this.outcomes.push(outcome);
    if (reply.status !== expected)
      this.failures.push(
        `key ${change}: the next request answered ${reply.status}, not ${expected}: ` +
          reply.body.toString().slice(0, 120),
      );
  }
}
