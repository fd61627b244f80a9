/**
 * Reading the quota counters from the state folder: the counts file (`quota.json`) and the
 * journals after it, replayed line by line. Only reads: the server at start (journal.ts),
 * the keys command's usage, beside a running server (src/key-admin/usage.ts), and keys migrate
 * (readWindows).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCounts, QuotaStateError, COUNTS_FILE } from './counts-file.ts';
import { counterId } from './counter-ids.ts';
import { WindowCounts, type Window } from './window.ts';
import type { QuotaKind } from '../state/quota-counter.ts';

export { QuotaStateError, COUNTS_FILE } from './counts-file.ts';

/** The number of a journal file (`quota.journal.12`), or null for any other name (`quota.journal.1e3`). */
export function journalNumber(name: string): number | null {
  const match = /^quota\.journal\.([1-9]\d{0,15})$/.exec(name);
  return match ? Number(match[1]) : null;
}

/**
 * Read the counts file and replay the journals after it; returns the number of the last journal.
 * Only reads: the server (at start) and the keys command's usage (beside a running server) use it.
 */
export function replayQuotaState(
  stateDir: string,
  log: (line: string) => void,
  restore: (counter: string, window: Window, served: number) => void,
  apply: Apply,
): number {
  const text = readCountsText(stateDir);
  /** The first journal not yet folded into quota.json. */
  const nextJournal = text === null ? 1 : parseCounts(join(stateDir, COUNTS_FILE), text, restore);

  const journals = readdirSync(stateDir)
    .flatMap((name) => {
      const number = journalNumber(name);
      return number === null ? [] : [{ name, number }];
    })
    .sort((a, b) => a.number - b.number);
  for (const journal of journals) {
    if (journal.number < nextJournal) continue; // already folded into the counts file
    replayJournal(join(stateDir, journal.name), log, apply);
  }
  return Math.max(nextJournal - 1, journals.at(-1)?.number ?? 0);
}

/** The text of quota.json, or null when there is none yet. */
export function readCountsText(stateDir: string): string | null {
  const path = join(stateDir, COUNTS_FILE);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new QuotaStateError(`cannot read ${path}: ${(error as Error).message}`);
    return null;
  }
}

/** What a journal line says: `requests` counted (0 for a served mark) and, when it notes them, the answers served. */
type Apply = (kind: QuotaKind, scope: string, at: number, requests: number, served?: number) => void;

function replayJournal(path: string, log: (line: string) => void, apply: Apply): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new QuotaStateError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const lines = text.split('\n');
  const endsClean = text.length === 0 || text.endsWith('\n');
  lines.forEach((line, i) => {
    if (line === '') return;
    const last = i === lines.length - 1 && !endsClean;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = undefined;
    }
    if (!isJournalEntry(entry)) {
      // A crash mid-write, or a write that failed and could not be taken back, can tear only a
      // journal's final line; that request was never answered with data (its response waits
      // for the write), so dropping it loses nothing.
      if (last) {
        log(`quota journal ${path}: ignored a torn last line (${line.length} bytes) left by a crash`);
        return;
      }
      throw new QuotaStateError(`quota journal ${path} line ${i + 1} is corrupt: ${JSON.stringify(line.slice(0, 80))}`);
    }
    apply(entry[0], entry[1], entry[2], entry[3] ?? 1, entry[4]);
  });
}

const isCount = (value: unknown, least: number) => Number.isSafeInteger(value) && (value as number) >= least;

/**
 * `[kind, scope, at]`, one request; `[kind, scope, at, n]`, a lease of n requests; `[kind, scope,
 * at, n, served]`, a lease noting the answers served in the window so far, or with n 0 a served mark.
 */
function isJournalEntry(value: unknown): value is [QuotaKind, string, number, number?, number?] {
  return (
    Array.isArray(value) &&
    (value.length === 3 ||
      (value.length === 4 && isCount(value[3], 1)) ||
      (value.length === 5 && isCount(value[3], 0) && isCount(value[4], 0))) &&
    (value[0] === 'data' || value[0] === 'critpt') &&
    typeof value[1] === 'string' &&
    Number.isSafeInteger(value[2])
  );
}

/** Attempts at a consistent read while the server compacts (it rewrites quota.json, then deletes journals). */
const READ_ATTEMPTS = 10;

/**
 * The counters as a running server holds them, read without writing or locking (keys usage and
 * migrate; by default a torn last line, the server's write under way, is not reported). A
 * compaction between reading quota.json and the
 * journals could make the read miss a journal, so the read is repeated until quota.json is the
 * same before and after it and every journal listed could be read.
 */
export function readCounts(stateDir: string, log: (line: string) => void = () => {}): WindowCounts {
  return readAs(stateDir, log, true);
}

/** The same as a server starting now would count them: every lease in full (keys migrate). */
export function readLeases(stateDir: string, log: (line: string) => void = () => {}): WindowCounts {
  return readAs(stateDir, log, false);
}

function readAs(stateDir: string, log: (line: string) => void, served: boolean): WindowCounts {
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = readCountsText(stateDir);
    const counts = new WindowCounts();
    try {
      replayQuotaState(
        stateDir,
        log,
        (counter, window, answers) => counts.set(counter, window, served ? answers : window.count),
        (kind, scope, at, requests, answers) =>
          counts.apply(counterId(kind, scope), at, requests, served ? answers : undefined),
      );
    } catch (error) {
      const missing =
        error instanceof QuotaStateError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
      if (!missing) throw error;
      lastError = error as Error;
      continue;
    }
    if (readCountsText(stateDir) === before) return counts;
  }
  throw new QuotaStateError(
    `the quota state in ${stateDir} kept changing while it was read ` +
      `(${lastError?.message ?? 'compactions under way'}); try again`,
  );
}

/**
 * The windows open at `now` in a state folder, by counter, read without writing to it (keys
 * migrate): each as a server starting now would count it, leases in full, so never below what was served.
 */
export function readWindows(stateDir: string, now: number, log: (line: string) => void): Record<string, Window> {
  const counts = readLeases(stateDir, log);
  counts.expire(now);
  return counts.toRecord();
}
