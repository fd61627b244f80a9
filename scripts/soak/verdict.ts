/**
 * The soak's verdict: every scope's quota counter against the 200 answers it was sent, and the
 * lines printed at the end (the first one says PASS or FAIL).
 */
import { leaseSize } from '../../src/quota/window.ts';
import { get } from './client.ts';
import type { KeyChangeOutcome } from './key-changes.ts';
import type { Load } from './load.ts';
import { quantiles } from './probe.ts';
import type { SoakServers } from './servers.ts';
import type { LoadKey } from './soak-keys.ts';

/** What a scope's count may differ from its 200s by. */
export interface CountBounds {
  /** On the state folder: a lease's unused part may be charged at each kill. */
  leased: boolean;
  /** 200s a scope may have lost in failovers (0: none may; --store-replicas below the replica count allows a few). */
  lossAllowed: (answered: number) => number;
}

/**
 * Every scope's counter now (limit - remaining, read with HEAD, never counted) against the 200
 * answers it was sent, give or take the requests of that scope a kill cut in flight and the 503s
 * of a failover (those may or may not have counted), on the state folder a lease's unused part a
 * kill (a scope may be charged up to one lease beyond its answers each time its server dies),
 * and the 200s a failover may lose under the setting (bounds.lossAllowed); one line per scope
 * that is off, and the totals delivered and counted.
 */
export async function quotaMismatches(servers: SoakServers, keys: LoadKey[], load: Load, bounds: CountBounds) {
  const mismatches: string[] = [];
  const scopes = [...new Set(keys.map((k) => k.scope))];
  let delivered = 0;
  let counted = 0;
  let lost = 0;
  for (const scope of scopes) {
    const key = keys.find((k) => k.scope === scope)!;
    const reply = await get(servers.port(0), '/api/v2/language/models/free', key.key, 'HEAD');
    const count = Number(reply.limit) - Number(reply.remaining);
    const sent = load.answered.get(scope) ?? 0;
    const cut = load.cut.get(scope) ?? 0;
    const refused = load.unavailable.get(scope) ?? 0;
    const leases = bounds.leased ? servers.kills * leaseSize(Number(reply.limit)) : 0;
    delivered += sent;
    counted += count;
    lost += Math.max(0, sent - count);
    if (count < sent - bounds.lossAllowed(sent) || count > sent + cut + refused + leases) {
      mismatches.push(
        `${scope}: counted ${count}, answered 200 ${sent}, cut ${cut}, 503 in failovers ${refused}, ` +
          `leases unused at kills up to ${leases}`,
      );
    }
  }
  return { scopes: scopes.length, mismatches, delivered, counted, lost };
}

export interface Verdict {
  ok: boolean;
  headline: string;
  seeded: string;
  /** On Sentinel: each failover, and the 200s delivered against those counted; else null. */
  failovers: string | null;
  keyChanges: KeyChangeOutcome[];
  healthz: number[];
  attacked: number[];
  attackRounds: number;
  peakMb: number;
  residentLimitMb: number;
  droppedLines: number;
  dropNotices: number;
  failures: string[];
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

function keyChangeLine(outcomes: KeyChangeOutcome[]): string {
  if (outcomes.length === 0) return 'none (the run was shorter than the first change at 30 s)';
  const of = (change: KeyChangeOutcome['change']) => {
    const done = outcomes.filter((o) => o.change === change);
    const took = done.filter((o) => o.status === o.expected).length;
    const worst = (pick: (o: KeyChangeOutcome) => number) => ms(Math.max(...done.map(pick)));
    const [verb, status] = change === 'create' ? ['created', '200'] : ['revoked', '401'];
    return (
      `${done.length} ${verb} (${took} of ${done.length} took effect on the next request, ${status}; ` +
      `keys command up to ${worst((o) => o.commandMs)}, that request up to ${worst((o) => o.answerMs)})`
    );
  };
  return `${of('create')}, ${of('revoke')}`;
}

export function printVerdict(v: Verdict): void {
  console.log(`soak: ${v.ok ? 'PASS' : 'FAIL'} ${v.headline}`);
  console.log(`  seeded state: ${v.seeded}`);
  if (v.failovers) console.log(`  failovers: ${v.failovers}`);
  console.log(`  key changes: ${keyChangeLine(v.keyChanges)}`);
  console.log(
    `  stall probe: /healthz every 100 ms, ${quantiles(v.healthz)}; ` +
      `while attackers were held, ${quantiles(v.attacked)}`,
  );
  console.log(
    `  attackers: ${v.attackRounds} rounds of 300 connections x 50 unread pipelined requests and 1 x 1,400, ` +
      '20 CritPt posts of 4 MB and 200 trickling at 10 B/s, 404s with an 8,100-character segment, ' +
      'stdout unread every other round; ' +
      `peak resident memory of a server ${v.peakMb.toFixed(0)} MB (limit ${v.residentLimitMb})`,
  );
  console.log(
    `  access log: ${v.droppedLines} lines dropped while stdout went unread, said in ${v.dropNotices} notices`,
  );
  for (const f of v.failures.slice(0, 10)) console.log(`  failure: ${f}`);
}
