/**
 * Redis refusing commands it is sent (a read-only replica, a failed save, an ACL, memory full):
 * each refusal becomes a named condition (src/lib/conditions.ts), so /readyz answers 503 naming
 * it and the log gets one line when it begins and one when it ends, however many requests meet
 * it. The requests themselves are answered 503 by their callers (StoreUnavailable).
 *
 * When a refusal ends matters as much as when it begins. Redis may refuse one command and run
 * another: on a replica, or with memory full, the key lookup (reads only) succeeds while the
 * count (writes) is refused, every request. Were any success to end the refusal, the log would
 * get two lines a request again. So a refusal is held per command (`quota take` is not
 * `key lookup`) and ends only when that same command succeeds again, or when a whole probe round
 * (src/redis/health.ts: a script run by EVALSHA and a write, as this server's user) shows that
 * the cause is gone. The probe matters when no request comes: a server a load balancer stopped
 * sending to because it was not ready must still become ready once Redis is fixed.
 */
import type { Conditions } from '../lib/conditions.ts';
import type { RedisCommandError } from './client.ts';

/** What the store modules tell about each command's outcome (src/keys/redis-keys.ts, src/quota/redis-quota.ts). */
export interface RefusalWatch {
  /** Redis answered this command (a name such as `quota take`) with an error. */
  refused(command: string, error: RedisCommandError): void;
  /** Redis ran this command: on the request path, so it costs a size check while nothing is refused. */
  answered(command: string): void;
}

/** For the keys command, which reports Redis's refusals as its own failures. */
export const UNWATCHED: RefusalWatch = { refused: () => {}, answered: () => {} };

/**
 * The error codes a successful probe round proves gone: it wrote (READONLY, MISCONF, OOM), ran a
 * script by EVALSHA, or by EVAL after NOSCRIPT (NOSCRIPT, NOPERM: the ACL is per command, not per
 * key we use), and got answers at all (BUSY, LOADING, MASTERDOWN); its write is confirmed on as many replicas
 * as the counts are (NOREPLICAS: --store-replicas, or Redis's min-replicas-to-write). Any other error (WRONGTYPE, a
 * plain ERR) may belong to the refused command's own keys or arguments, which the probe does not
 * touch: it ends only when that command succeeds again.
 */
const PROBE_PROVES_GONE = new Set([
  'READONLY',
  'MISCONF',
  'OOM',
  'NOSCRIPT',
  'NOPERM',
  'BUSY',
  'LOADING',
  'MASTERDOWN',
  'NOREPLICAS',
]);

/** Why each code refuses, and what the operator does about it. */
const EXPLANATIONS: Record<string, string> = {
  READONLY: 'it is a read-only replica; point --store at the primary',
  MISCONF: 'it cannot save to disk and stops writes until it can; see its log',
  OOM: 'it is out of memory (maxmemory reached); raise maxmemory or free memory',
  NOPERM: 'its ACL denies this server a command or key it needs; grant them to the user in --store',
  NOSCRIPT: "it does not run the server's Lua scripts",
  BUSY: 'a script is running too long; it answers nothing else until it ends',
  LOADING: 'it is loading its data set',
  MASTERDOWN: 'it is a replica that lost its primary',
  NOREPLICAS:
    'fewer of its replicas than required (--store-replicas, or its min-replicas-to-write) acknowledged the write in ' +
    'time, so a failover could lose it; see its replicas (INFO replication)',
};

/**
 * The error code of a Redis error (`redis EVALSHA: OOM command not allowed ...` -> `OOM`). A
 * refusal inside a script (Redis 6 words it `ERR Error running script ...: -READONLY ...`)
 * is classed by the code it quotes; anything else by its first word.
 */
export function refusalCode(message: string): string {
  const text = message.replace(/^redis [A-Z]+: /, '');
  const quoted = /(?:^|\W)-?(READONLY|MISCONF|OOM|NOSCRIPT|NOPERM|BUSY|LOADING|MASTERDOWN|NOREPLICAS)\b/.exec(text);
  if (quoted) return quoted[1];
  return /^[A-Z]+\b/.exec(text)?.[0] ?? 'ERR';
}

/** The condition's reason: which Redis, the code, what it means, what it said, for which command. */
export function refusalReason(label: string, code: string, command: string, message: string): string {
  const said = message.replace(/^redis [A-Z]+: /, '');
  const meaning = EXPLANATIONS[code] ?? 'it answers with an error';
  return `Redis at ${label} refuses commands (${code}): ${meaning} (${command}: ${said})`;
}

export function provenGoneByProbe(code: string): boolean {
  return PROBE_PROVES_GONE.has(code);
}

/** The refusals that hold, each a condition named by its code, ended per command as above. */
export class Refusals implements RefusalWatch {
  /** Refused commands (by name) and the code each was refused with. */
  private readonly refusedCommands = new Map<string, string>();

  constructor(
    private readonly conditions: Conditions,
    private readonly label: string,
  ) {}

  refused(command: string, error: RedisCommandError): void {
    const code = refusalCode(error.message);
    const before = this.refusedCommands.get(command);
    this.refusedCommands.set(command, code);
    if (before === code) return;
    if (before !== undefined) this.endIfUnused(before);
    // The first refusal's words stay the reason: /readyz does not change with every request.
    const name = conditionName(code);
    if (!this.conditions.has(name))
      this.conditions.begin(name, refusalReason(this.label, code, command, error.message));
  }

  answered(command: string): void {
    if (this.refusedCommands.size === 0) return;
    const code = this.refusedCommands.get(command);
    if (code === undefined) return;
    this.refusedCommands.delete(command);
    this.endIfUnused(code);
  }

  /** A whole probe round succeeded: the refusals it proves gone end (see PROBE_PROVES_GONE). */
  probeSucceeded(): void {
    for (const [command, code] of this.refusedCommands) {
      if (!provenGoneByProbe(code)) continue;
      this.refusedCommands.delete(command);
      this.endIfUnused(code);
    }
  }

  /** The codes refused right now (for tests and messages). */
  codes(): string[] {
    return [...new Set(this.refusedCommands.values())];
  }

  /** A code's condition ends when no command is refused with it any more. */
  private endIfUnused(code: string): void {
    for (const other of this.refusedCommands.values()) if (other === code) return;
    this.conditions.end(conditionName(code));
  }
}

export function conditionName(code: string): string {
  return `redis refuses ${code}`;
}
