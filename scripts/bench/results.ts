/** The shapes of bench/results.json and bench/scale.json, shared by the runs that write them and BENCHMARKS.md that reads them. */
import type { Load } from './wrk.ts';

export interface Row {
  scenario: string;
  connections: number;
  server: Load;
  nginx: Load | null;
  rpsRatio: number | null;
  p99Ratio: number | null;
}

export interface ScaleRow {
  scale: number;
  models: number;
  records: number;
  buildSeconds: number;
  packMB: number;
  entries: number;
  startupMs: number;
  rssMb: number;
  rps: number;
}
