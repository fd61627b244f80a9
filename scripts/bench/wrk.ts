/** wrk, one thread, keep-alive, parsed into requests per second and latency percentiles. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { placed } from './pinning.ts';

export interface Load {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

/** A wrk Lua script asking for `paths` in turn, one a request. */
export function pathsScript(paths: readonly string[]): string {
  return [
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}`,
    'local i = 0',
    'request = function()',
    '  i = i + 1',
    '  return wrk.format("GET", paths[(i % #paths) + 1])',
    'end',
    '',
  ].join('\n');
}

/** The wrk command (and its arguments) of one run: `paths` round robin, on `cores` (a taskset list) when given. */
export function wrkCommand(
  base: string,
  paths: string[],
  headers: Record<string, string>,
  connections: number,
  seconds: number,
  work: string,
  cores?: string,
): [string, string[]] {
  const script = join(work, `paths-${paths.length}.lua`);
  writeFileSync(script, pathsScript(paths));
  return wrkScriptCommand(base, script, headers, connections, seconds, cores);
}

/** The wrk command of one run of a Lua script of the caller's (a POST's body, say), at `url`. */
export function wrkScriptCommand(
  url: string,
  script: string,
  headers: Record<string, string>,
  connections: number,
  seconds: number,
  cores?: string,
): [string, string[]] {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    script,
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    url,
  ];
  return placed(cores, 'wrk', args);
}

/** wrk's report (with --latency) as requests per second, latency percentiles and errors. */
export function parseWrk(out: string): Load {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50Ms = toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? '');
  const p99Ms = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '');
  const errors =
    Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) +
    Number(/Socket errors:.*?timeout (\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50Ms, p99Ms, errors };
}

/**
 * Load one URL (or a list of paths, round robin) with wrk, keep-alive, one thread (on `cores`
 * when given).
 */
export function wrk(
  base: string,
  paths: string[],
  headers: Record<string, string>,
  connections: number,
  seconds: number,
  work: string,
  cores?: string,
): Load {
  return runWrk(wrkCommand(base, paths, headers, connections, seconds, work, cores));
}

/** Run one wrk command (wrkCommand's, wrkScriptCommand's) and read its report. */
export function runWrk([command, args]: [string, string[]]): Load {
  return parseWrk(execFileSync(command, args, { encoding: 'utf8' }));
}
