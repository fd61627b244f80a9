/**
 * Which Redis the servers may count on, from what the listed sentinels say: pure, so every
 * disagreement is tested without processes (src/redis/sentinel-watch.ts asks and listens).
 *
 * The rule, Raft's in small: a sentinel's view of the primary carries its configuration epoch,
 * which every failover raises. The primary is the one the newest view names, and only once a
 * majority of the listed sentinels (not of those that answer: two silent sentinels of three
 * leave no majority) name it. Anything else stops counting:
 *
 * - a failover that has not yet promoted a replica, reported by a sentinel (its failover-state)
 *   or announced on its events (`+try-failover` ... `+failover-state-wait-promotion`): from the
 *   moment the replica is promoted, a count on the old primary is lost, so counting stops before;
 * - fewer than a majority answering;
 * - a newer view than the majority's (a switch not yet spread, or a sentinel that lies): the
 *   majority may be stale, and the old primary still answers `ROLE master` for seconds after it
 *   was replaced (until a sentinel converts it);
 * - sentinels at the newest epoch naming different primaries.
 *
 * An older view that disagrees (a sentinel cut off, or one that lies about the past) does not
 * stop counting: it is named in a warning.
 */
import { endpointLabel, type Endpoint } from './address.ts';
import { RespError, type Reply } from './resp.ts';

/** What one sentinel says of the monitored primary. */
export interface SentinelAnswer {
  /** The primary it names (GET-MASTER-ADDR-BY-NAME: the promoted replica once a failover has promoted it). */
  primary: Endpoint;
  /** Its configuration epoch for that primary (SENTINEL MASTER's config-epoch): the higher, the newer. */
  epoch: number;
  /** The state of a failover it runs that has not promoted a replica yet, or null. */
  deciding: string | null;
}

/** One listed sentinel: its last answer or why it gave none, and a failover it announced since. */
export interface SentinelReport {
  /** `host:port`. */
  sentinel: string;
  said: SentinelAnswer | string;
  /** The event announcing a failover (`+try-failover`, ...) heard since its last answer, or null. */
  announced: string | null;
}

export type Verdict =
  | {
      primary: Endpoint;
      epoch: number;
      /** Sentinels that disagree or did not answer, each with what it said: a warning, not a stop. */
      dissent: string[];
    }
  | { problem: string };

/**
 * The failover states before a replica is promoted (sentinel.c's sentinelFailoverStateStr). From
 * `reconf_slaves` on, the promoted replica is the primary and GET-MASTER-ADDR-BY-NAME names it.
 */
const DECIDING_STATES = new Set(['wait_start', 'select_slave', 'send_slaveof_noone', 'wait_promotion']);

/** The events a sentinel publishes while a failover has not promoted a replica yet. */
export const DECIDING_EVENTS: readonly string[] = [
  '+try-failover',
  '+elected-leader',
  '+failover-state-select-slave',
  '+selected-slave',
  '+failover-state-send-slaveof-noone',
  '+failover-state-wait-promotion',
];

/** The events after which a sentinel's view has changed: ask it again at once. */
export const CHANGE_EVENTS: readonly string[] = [
  '+promoted-slave',
  '+failover-state-reconf-slaves',
  '+failover-end',
  '+failover-end-for-timeout',
  '+switch-master',
  '+config-update-from',
  '+convert-to-slave',
  '-failover-abort-not-elected',
  '-failover-abort-no-good-slave',
  '-failover-abort-slave-timeout',
  '+odown',
  '-odown',
];

/** A flat `field, value, ...` reply (SENTINEL MASTER) as a map. */
function fields(reply: Reply): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(reply))
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), String(reply[i + 1]));
  return map;
}

/**
 * A sentinel's replies to `SENTINEL GET-MASTER-ADDR-BY-NAME name` and `SENTINEL MASTER name`:
 * its answer, or what was wrong with them.
 */
export function readAnswer(masterName: string, address: Reply, master: Reply): SentinelAnswer | string {
  for (const reply of [address, master]) if (reply instanceof RespError) return `refused: ${reply.message}`;
  if (address === null) return `monitors no primary named ${masterName}`;
  if (!Array.isArray(address) || address.length !== 2 || typeof address[0] !== 'string' || !(Number(address[1]) > 0))
    return `named no primary (${JSON.stringify(address).slice(0, 80)})`;
  const info = fields(master);
  const epoch = Number(info.get('config-epoch'));
  if (!Number.isSafeInteger(epoch) || epoch < 0) return `gave no config-epoch for ${masterName}`;
  const inProgress = (info.get('flags') ?? '').split(',').includes('failover_in_progress');
  const state = info.get('failover-state') ?? '';
  return {
    primary: { host: address[0], port: Number(address[1]) },
    epoch,
    deciding: inProgress && DECIDING_STATES.has(state) ? state : null,
  };
}

/**
 * The master name an event's payload is about: `+switch-master NAME ...`, an instance's
 * `TYPE NAME IP PORT @ MASTER IP PORT`, or a master's own `master NAME IP PORT`.
 */
export function eventMaster(channel: string, payload: string): string | null {
  const words = payload.split(' ');
  if (channel === '+switch-master') return words[0] ?? null;
  const at = words.indexOf('@');
  return at >= 0 ? (words[at + 1] ?? null) : (words[1] ?? null);
}

function describe(report: SentinelReport): string {
  const { sentinel, said, announced } = report;
  const state = typeof said !== 'string' && said.deciding ? `, failover-state ${said.deciding}` : '';
  const answer = typeof said === 'string' ? said : `names ${endpointLabel(said.primary)} (epoch ${said.epoch}${state})`;
  return `${sentinel} ${answer}${announced ? `, announced ${announced}` : ''}`;
}

/** The primary to count on, or why none: see the file's comment for the rule. */
export function judge(masterName: string, reports: readonly SentinelReport[]): Verdict {
  const all = reports.map(describe).join('; ');
  const stop = (why: string): Verdict => ({ problem: `${why} (sentinels: ${all})` });
  const majority = Math.floor(reports.length / 2) + 1;
  const deciding = reports.find(
    (r) => r.announced !== null || (typeof r.said !== 'string' && r.said.deciding !== null),
  );
  if (deciding)
    return stop(
      `a failover of ${masterName} is under way at sentinel ${deciding.sentinel}; ` +
        'counting resumes once a majority names the promoted replica',
    );
  const answers = reports.flatMap((r) => (typeof r.said === 'string' ? [] : [{ sentinel: r.sentinel, ...r.said }]));
  if (answers.length < majority)
    return stop(`only ${answers.length} of ${reports.length} sentinels answered, fewer than a majority (${majority})`);
  const newest = Math.max(...answers.map((a) => a.epoch));
  const named = new Set(answers.filter((a) => a.epoch === newest).map((a) => endpointLabel(a.primary)));
  if (named.size > 1)
    return stop(`sentinels at the same epoch ${newest} name different primaries (${[...named].join(', ')})`);
  const [label] = named;
  const backing = answers.filter((a) => endpointLabel(a.primary) === label);
  if (backing.length < majority)
    return stop(
      `${label} is named at the newest epoch ${newest} by ${backing.length} of ${reports.length} sentinels, ` +
        `fewer than a majority (${majority})`,
    );
  const dissent = reports
    .filter((r) => typeof r.said === 'string' || endpointLabel(r.said.primary) !== label)
    .map(describe);
  return { primary: backing[0].primary, epoch: newest, dissent };
}

/** The warning dissent makes beside a usable verdict, or null when every sentinel agrees. */
export function dissentWarning(masterName: string, verdict: Verdict, listed: number): string | null {
  if ('problem' in verdict || verdict.dissent.length === 0) return null;
  const agree = listed - verdict.dissent.length;
  return (
    `${agree} of ${listed} sentinels name ${endpointLabel(verdict.primary)} as primary of ${masterName} ` +
    `(epoch ${verdict.epoch}), counted on; the others disagree or did not answer: ${verdict.dissent.join('; ')}`
  );
}
