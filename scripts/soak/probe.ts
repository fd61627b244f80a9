/**
 * The stall probe: /healthz answers at once unless the event loop is held, so asking every
 * 100 ms shows how long a server ever stalled (quota compactions, rebuild switches, key file
 * rereads and the like), and apart, how long while attackers were held.
 */
import { get } from './client.ts';
import type { SoakServers } from './servers.ts';

export class StallProbe {
  readonly healthz: number[] = [];
  readonly attacked: number[] = [];

  constructor(
    private readonly servers: SoakServers,
    private readonly attacking: () => boolean,
  ) {}

  async run(deadline: number): Promise<void> {
    while (Date.now() < deadline) {
      const started = performance.now();
      const underAttack = this.attacking();
      try {
        await get(this.servers.port(0), '/healthz', '');
        // Answers that straddled a kill measure the restart, not a stall.
        if (!this.servers.restarting) this.healthz.push(performance.now() - started);
        if (!this.servers.restarting && underAttack && this.attacking())
          this.attacked.push(performance.now() - started);
      } catch {
        // a kill; counted by the clients
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** `N answers: p50 .. ms, p99 .. ms, max .. ms`. */
export function quantiles(figures: number[]): string {
  const sorted = [...figures].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(1);
  return `${sorted.length} answers: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
}
