/**
 * The soak's mixed load: clients that each cycle through the keys and their tier's routes,
 * one request at a time, and the tally the verdict is made from.
 */
import { contentHash } from '../../src/shared/manifest.ts';
import { get } from './client.ts';
import type { SoakServers } from './servers.ts';
import type { SoakKeys } from './soak-keys.ts';

export class Load {
  /** 200 answers by quota scope. */
  readonly answered = new Map<string, number>();
  /** Requests a kill cut, by quota scope (each may or may not have been counted). */
  readonly cut = new Map<string, number>();
  /** 503s while a failover of the store lasted, by quota scope (each may or may not have been counted). */
  readonly unavailable = new Map<string, number>();
  readonly statuses = new Map<number, number>();
  /** Bodies whose hash is not the ETag they came with: wrong, or mixed from two snapshots. */
  mixed = 0;
  /** 503s for stored bytes that failed their checksum: honest refusals, not failures. */
  refusedCorrupt = 0;
  requests = 0;

  constructor(
    private readonly servers: SoakServers,
    private readonly serverCount: number,
    private readonly keys: SoakKeys,
    private readonly failures: string[],
  ) {}

  /** Client `n`: requests until the deadline, spread over the keys, routes and servers. */
  async client(n: number, deadline: number): Promise<void> {
    for (let i = n; Date.now() < deadline; i++) {
      const key = this.keys.load[i % this.keys.load.length]!;
      const routes = this.keys.routesOf[key.record.tier];
      const path = routes[(i * 7 + n) % routes.length]!;
      this.requests++;
      try {
        const reply = await get(this.servers.port((i + n) % this.serverCount), path, key.key);
        this.statuses.set(reply.status, (this.statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 200) {
          this.answered.set(key.scope, (this.answered.get(key.scope) ?? 0) + 1);
          if (reply.etag !== `"${contentHash(reply.body)}"`) this.mixed++;
        } else if (reply.status === 503 && reply.body.toString().includes('integrity check')) this.refusedCorrupt++;
        else if (reply.status === 503 && this.servers.storeFaulted)
          this.unavailable.set(key.scope, (this.unavailable.get(key.scope) ?? 0) + 1);
        else if (![403, 429].includes(reply.status))
          this.failures.push(`${reply.status} ${path}: ${reply.body.toString().slice(0, 120)}`);
      } catch (error) {
        // Only a kill may cut a request; anything else is a failure.
        if (this.servers.restarting) this.cut.set(key.scope, (this.cut.get(key.scope) ?? 0) + 1);
        else this.failures.push(`${path}: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  cutTotal(): number {
    return [...this.cut.values()].reduce((a, b) => a + b, 0);
  }

  unavailableTotal(): number {
    return [...this.unavailable.values()].reduce((a, b) => a + b, 0);
  }

  /** Answers by status, e.g. `1200x200 30x429`. */
  statusSummary(): string {
    return [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${n}x${s}`)
      .join(' ');
  }
}
