/**
 * The soak's attackers, every 20 s at one server at a time: 300 connections pipelining 50
 * requests each and one pipelining 1,400 in one write, none of them reading; 20 CritPt posts of
 * 4 MB at once and 200 more trickling at 10 bytes a second; 404s with an 8,100-character path
 * segment (the "did you mean" search's worst case); all held for 5 s. Every other round the
 * server's stdout (its access log) goes unread until the next.
 */
import { pipelineFlood, trickleFlood, uploadFlood } from '../attackers.ts';
import { get } from './client.ts';
import type { SoakServers } from './servers.ts';

const ATTACK_EVERY_MS = 20_000;
const ATTACK_HOLD_MS = 5_000;

export class Attackers {
  rounds = 0;
  /** True while the floods are held open (the stall probe reports those answers apart). */
  attacking = false;

  constructor(
    private readonly servers: SoakServers,
    private readonly serverCount: number,
    /** The upload attacker's key, approved for CritPt. */
    private readonly uploader: string,
  ) {}

  async run(deadline: number): Promise<void> {
    while (Date.now() + ATTACK_EVERY_MS < deadline) {
      await new Promise((r) => setTimeout(r, ATTACK_EVERY_MS - ATTACK_HOLD_MS));
      const target = this.rounds++ % this.serverCount;
      const port = this.servers.port(target);
      const upload = { port, path: '/api/v2/critpt/evaluate', headers: { 'x-api-key': this.uploader } };
      const floods = await Promise.all([
        pipelineFlood({ port, path: '/api/v2/openapi.json', sockets: 300, requests: 50 }),
        pipelineFlood({
          port,
          path: '/api/v2/language/models/free',
          sockets: 1,
          requests: 1400,
          headers: { 'x-api-key': 'bdk_not_a_key' },
        }),
        trickleFlood({ ...upload, sockets: 200, bytes: 1_000_000, bytesPerSecond: 10 }),
      ]);
      this.attacking = true;
      // The slow log: every other round the server's stdout is left unread until the next round
      // (some 20 s of lines, more than the access log may hold back), then read again.
      if (this.rounds % 2 === 1) this.servers.accessLogs[target]!.pause();
      else for (const log of this.servers.accessLogs) log.resume();
      const posts = uploadFlood({ ...upload, sockets: 20, bytes: 4 * 1024 * 1024 });
      const longSegment = `/api/v2/media/${'c'.repeat(8_100)}/models`;
      const until = Date.now() + ATTACK_HOLD_MS;
      while (Date.now() < until) await get(port, longSegment, '').catch(() => {});
      await posts;
      this.attacking = false;
      for (const flood of floods) flood.close();
    }
  }
}
