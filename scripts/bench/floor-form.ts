/**
 * Which form of the floor is fastest here (floor.ts, FLOOR_FORMS): every form loaded on the list
 * page in alternating rounds of their own at each connection count; the fastest (the highest
 * geometric mean over the connection counts of its rounds' rps over the object form's) is the
 * floor of every row, the others are stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../processes.ts';
import { FLOOR_FORMS, startFloor, type FloorForm } from './floor.ts';
import { placeServer } from './pinning.ts';
import { stop } from './processes.ts';
import { roundRatio, runRounds, type RoundOptions } from './rounds.ts';

/** One form's figures at one connection count, and against the object form in the same rounds. */
export interface FloorFormRun {
  form: FloorForm;
  connections: number;
  rps: number;
  p99Ms: number;
  /** Its rounds' rps over the object form's, and p99 (the medians of the rounds' own ratios). */
  rpsOfObject: number;
  p99OfObject: number;
}

export interface FastestFloor {
  form: FloorForm;
  port: number;
  child: ChildProcess;
  runs: FloorFormRun[];
}

const geometricMean = (values: number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);

export async function fastestFloor(
  work: string,
  docroot: string,
  path: string,
  headers: Record<string, string>,
  connections: readonly number[],
  options: Omit<RoundOptions, 'connections'>,
): Promise<FastestFloor> {
  const floors = new Map<FloorForm, { port: number; child: ChildProcess }>();
  for (const form of FLOOR_FORMS) {
    const port = await freePort();
    const child = await startFloor(work, docroot, path, port, form);
    placeServer(options.placement, child.pid!);
    floors.set(form, { port, child });
  }
  const contenders = [...floors].map(([form, { port }]) => ({
    name: form,
    base: `http://127.0.0.1:${port}`,
    paths: [path],
    headers,
  }));
  const runs: FloorFormRun[] = [];
  for (const c of connections) {
    const summaries = runRounds(contenders, { ...options, connections: c }, 'floor forms, list page (br)');
    const object = summaries.get('object')!;
    for (const form of FLOOR_FORMS) {
      const summary = summaries.get(form)!;
      runs.push({
        form,
        connections: c,
        rps: summary.rps,
        p99Ms: summary.p99Ms,
        rpsOfObject: roundRatio(summary, object, 'rps')!,
        p99OfObject: roundRatio(summary, object, 'p99Ms')!,
      });
    }
  }
  const score = (form: FloorForm) => geometricMean(runs.filter((r) => r.form === form).map((r) => r.rpsOfObject));
  const form = [...FLOOR_FORMS].sort((a, b) => score(b) - score(a))[0]!;
  for (const [other, { child }] of floors) if (other !== form) await stop(child);
  return { form, ...floors.get(form)!, runs };
}

const formFigures = (r: FloorFormRun) =>
  `${r.form} ${r.rps.toFixed(0)} rps, p99 ${r.p99Ms.toFixed(2)} ms ` +
  `(${r.rpsOfObject.toFixed(2)}x, p99 ${r.p99OfObject.toFixed(2)}x)`;

/** BENCHMARKS.md's lines on the floor's form: which was kept, and every form's figures against the object form's. */
export function floorFormLines(floorForm: { form: FloorForm; runs: FloorFormRun[] } | undefined): string[] {
  if (!floorForm) return [];
  const byConnections = new Map<number, FloorFormRun[]>();
  for (const run of floorForm.runs)
    byConnections.set(run.connections, [...(byConnections.get(run.connections) ?? []), run]);
  const atEach = [...byConnections].map(([c, runs]) => `at c=${c} ` + runs.map(formFigures).join('; '));
  return [
    `The floor's form: \`${floorForm.form}\`, the fastest of the forms node:http allows for one answer ` +
      "(`object`: `writeHead(200, {...})`; `flat`: `writeHead(200, [name, value, ...])`, our server's; `corked`: " +
      'the same between `cork()` and `uncork()`; `deferred`: flat, held to the end of the event-loop turn and ' +
      "written with the turn's others, as our server sends its data answers), loaded on the list page in rounds " +
      'of their own; ' +
      `each form's rps and p99, and over the object form's in the same rounds: ${atEach.join('; ')}.`,
    '',
  ];
}
