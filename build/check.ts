/**
 * `npm run build -- --check`: everything a build checks, nothing it writes. The data folder is
 * read and validated (every problem of every file, as a build reports them), the answers are
 * shaped and each is held to its route's schema, and the summary says what was checked. No lock,
 * no snapshot folder: it can run beside a build, or where the data is kept and nothing is served.
 */
import { readDataFiles } from './load/data-files.ts';
import { parseDataset } from './load/datasets.ts';
import { produceBodies } from './shape/bodies.ts';
import { BodyChecker } from './check-bodies.ts';
import { buildIdOf } from '../src/shared/build-id.ts';
import { readCurrentManifest } from './pack/snapshot-dir.ts';
import type { BuildOptions } from './build-options.ts';
import { inputDigest } from './input-digest.ts';
import { shapingContext } from './shaping-context.ts';
import { nextHistory } from './history/stored.ts';
import { changeSummary } from './history/summary.ts';

export interface CheckSummary {
  files: number;
  models: number;
  providers: number;
  /** Answers held to their schemas (bodies, assembled measurements, empty pages, examples). */
  answers: number;
  /** The id a build of these inputs would carry. */
  buildId: string;
  seconds: number;
}

/** Throws what a build would (DatasetError, BodySchemaError); returns what passed. */
export function checkData(options: BuildOptions): CheckSummary {
  const started = performance.now();
  const { log } = options;
  const { files, problems } = readDataFiles(options.dataDir);
  const dataset = parseDataset(files, problems);
  const digest = inputDigest(files, options);
  const { ctx } = shapingContext(dataset, options, (at) => buildIdOf(at, digest));
  const { buildId } = ctx;
  const checker = new BodyChecker();
  for (const produced of produceBodies(ctx)) checker.check(produced, ctx);
  checker.throwFailures();
  const summary = {
    files: files.length,
    models: dataset.models.length,
    providers: dataset.providers.length,
    answers: checker.checked,
    buildId,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  };
  log(
    `check passed: ${summary.files} files, ${summary.models} models, ${summary.providers} providers, ` +
      `${summary.answers} answers held to their schemas; a build would be ${buildId}; ` +
      `nothing written (${summary.seconds} s)`,
  );
  // What a build would change against the current one (its history's last lists).
  const current = readCurrentManifest(options.outDir);
  const { record } = nextHistory(current, ctx, options.historyBuilds, log);
  for (const line of changeSummary(record)) log(`a build would say: ${line.trimStart()}`);
  return summary;
}
