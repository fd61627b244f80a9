/**
 * A server run under callgrind, counted only around the requests measured. Wall-clock time on a
 * shared machine moves by a quarter from run to run (an A/A of one bare node:http server read
 * 7,375 to 21,948 rps); the instructions a request executes move by 0.05% (the same server,
 * 1,500 requests, twice: 1,330.78 M and 1,331.36 M in all). So a change of a few percent shows here
 * when no load test can show it.
 *
 * The server starts with instrumentation off (a start under full instrumentation takes minutes),
 * which `callgrind_control` then switches on; the counts are zeroed after a warm-up and dumped after
 * the requests measured, within one run: separate runs differ at the start (our server's
 * background check of the build varies by some 140 M instructions from one start to the next).
 *
 * Only the main thread, the event loop's, is counted (`--separate-threads=yes`, its dumps end in
 * `-01`): V8's helper threads (parallel scavenges, TurboFan compiling in the background) made the
 * counts of one server under one load move from 92k to 146k instructions a request, where the
 * main thread's stayed within 3%.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { track } from './processes.ts';

const run = promisify(execFile);

export interface Counted {
  child: ChildProcess;
  /** Where callgrind writes: each dump is this path with `.N-T` after it (T: the thread, 01 the main one). */
  outFile: string;
}

/** `node ...nodeArgs` under callgrind, instrumentation off until `instrument` is called. */
export function startCounted(outFile: string, nodeArgs: string[]): Counted {
  const tool = ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes'];
  const args = [...tool, `--callgrind-out-file=${outFile}`, process.execPath];
  const child = track(spawn('valgrind', [...args, ...nodeArgs], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let said = '';
  child.stderr!.on('data', (piece: Buffer) => (said = (said + piece.toString()).slice(-4000)));
  child.on('exit', (code) => {
    if (code) console.error(`callgrind exited with ${code}:\n${said}`);
  });
  return { child, outFile };
}

/**
 * One callgrind_control command (`-i on`, `-z`, `-d`), taken at once: it goes through valgrind's
 * gdbserver, whose vgdb wakes a server blocked in epoll_wait (ptrace) rather than wait for it to run.
 */
export async function command(counted: Counted, flag: string[]): Promise<void> {
  await run('callgrind_control', [...flag, String(counted.child.pid)], { timeout: 600_000 });
}

/** The main thread's dumps written so far (`NAME.N-01`), oldest first. */
function dumps(counted: Counted): string[] {
  const folder = dirname(counted.outFile);
  const prefix = `${basename(counted.outFile)}.`;
  const numberOf = (name: string) => Number(/^(\d+)-01$/.exec(name.slice(prefix.length))?.[1] ?? NaN);
  return readdirSync(folder)
    .filter((name) => name.startsWith(prefix) && Number.isInteger(numberOf(name)))
    .sort((a, b) => numberOf(a) - numberOf(b))
    .map((name) => join(folder, name));
}

/** The main thread's last dump and its total instructions (callgrind's `totals:` line). */
export function lastDump(counted: Counted): { file: string; instructions: number } {
  const file = dumps(counted).at(-1);
  if (!file) throw new Error(`callgrind wrote no dump beside ${counted.outFile}`);
  const totals = /^(?:totals|summary):\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!totals) throw new Error(`${file} has no totals`);
  return { file, instructions: Number(totals[1]) };
}

/** The functions that executed the most instructions themselves in a dump, as callgrind_annotate reads them. */
export async function topFunctions(file: string, count: number): Promise<string[]> {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=no', `--threshold=100`, file], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return topOfAnnotation(stdout, count);
}

/** The first `count` function lines of callgrind_annotate's report (they follow its `file:function` header). */
export function topOfAnnotation(report: string, count: number): string[] {
  const lines = report.split('\n');
  const header = lines.findIndex((line) => /file:function/.test(line));
  if (header < 0) return [];
  return lines
    .slice(header + 1)
    .filter((line) => /^\s*[\d,]+ /.test(line))
    .slice(0, count);
}
