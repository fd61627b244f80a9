/**
 * `npm test`: type-check, then run every `test/**\/*.test.ts` file with uvu, a few at a time:
 * the unit files (test/unit/, pure functions and in-process objects) all in one process, as
 * `npm run test:unit` runs them (scripts/test-unit.ts), and every other file (the black-box
 * ones: real servers on loopback, child processes, builds) in a process of its own, so a crash
 * or hang in one cannot take the others down. The last line is always `N passed, N failed`,
 * the type check counting as one test, with `, N skipped` after it when a test could not run
 * here (it says why in its output).
 *
 * The black-box files run bundled (scripts/test-files-bundle.ts says why): each file's process
 * runs its bundle with plain node instead of loading every module through tsx.
 *
 * `npm test -- PATTERN` runs only the test files whose path in the repository contains PATTERN (the checkout's
 * own folder name is not matched).
 *
 * The full committed sample (data/) is built once per run, by the first free worker, into a
 * temporary folder of this run, for the files that use test/helpers/sample.ts (found by that
 * name in their text; they start once it is built, the others at once). Its path goes to them
 * in BDA_TEST_SAMPLE; the folder is removed at the end, and a run in which a test file changed
 * it fails. Two runs at the same time build a sample each, so neither sees the other's.
 *
 * The small fixture (test/fixtures/sample-small) is built once per run the same way, for the
 * files that start a test server or build that fixture through test/helpers/server.ts (found by
 * `startTestServer`, `buildFixture`, `builtTree` or `helpers/redis-servers.ts` in their text), which copy it
 * instead of building it each (test/helpers/small-build.ts, BDA_TEST_SMALL); and the bundle
 * (dist/server.mjs, dist/keys.mjs) once, world-readable, for the files that use
 * test/helpers/staged-bundle.ts, or start the server or the keys command as a process through
 * `spawnServer` or `keysProcess`, which run it (BDA_TEST_BUNDLE).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { bundleTestFiles } from './test-files-bundle.ts';
import { cpuSpent, ROOT, run, timeSpent, uvuProcess, type Outcome } from './test-runs.ts';
import { SharedBuild } from './test-shared-build.ts';

const UNIT_DIR = join(ROOT, 'test/unit/');
/** What test/helpers/sample.ts reads the shared sample's folder from (its SAMPLE_ENV). */
const SAMPLE_ENV = 'BDA_TEST_SAMPLE';
/** What test/helpers/small-build.ts reads the shared small build's folder from (its SMALL_ENV). */
const SMALL_ENV = 'BDA_TEST_SMALL';
/** What test/helpers/staged-bundle.ts reads the staged bundle's folder from (its BUNDLE_ENV). */
const BUNDLE_ENV = 'BDA_TEST_BUNDLE';
/**
 * The slowest files, slowest first (by their times with the shared builds, quiet and busy): started
 * before the rest, so no long file starts last while the other worker sits idle. The Redis
 * failover files mostly wait (on timeouts and elections), the others mostly compute.
 */
const SLOWEST = [
  'state/redis-failover.test.ts',
  // Forty seconds, most of them waiting on polls and a slowed origin: begun early, it overlaps the rest.
  'ops/snapshot-pull.test.ts',
  'build/pipeline.test.ts',
  'state/redis-sentinel.test.ts',
  'ops/readme.test.ts',
  'state/crash.test.ts',
  'ops/redis-keys-cli.test.ts',
  'build/check.test.ts',
  'state/quota-compaction.test.ts',
  'ops/keys-cli.test.ts',
  'build/import-legacy.test.ts',
  'http/no-key-answers.test.ts',
  // The MCP clients are fetched by npm the first time (the SDK's install, the Inspector's npx).
  'http/mcp.test.ts',
  'build/dataset-errors.test.ts',
  'state/redis-health.test.ts',
  'build/repository.test.ts',
  'http/linger.test.ts',
  'ops/start.test.ts',
  'ops/help.test.ts',
];

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? findTests(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    )
    .sort();
}

async function typeCheck(): Promise<Outcome> {
  const started = performance.now();
  const { code, output, cpuSeconds } = await run(process.execPath, [
    join(ROOT, 'node_modules/typescript/bin/tsc'),
    '--noEmit',
    '-p',
    ROOT,
  ]);
  return {
    passed: code === 0 ? 1 : 0,
    failed: code === 0 ? 0 : 1,
    skipped: 0,
    output: code === 0 ? `type check: ok, ${timeSpent(started, cpuSeconds)}\n` : `type check failed:\n${output}`,
  };
}

interface Job {
  run: () => Promise<Outcome>;
  /** The shared builds it waits for. */
  needs: SharedBuild[];
}

async function main(): Promise<void> {
  const runStarted = performance.now();
  const cores = availableParallelism();
  const pattern = process.argv[2];
  const files = findTests(join(ROOT, 'test')).filter((f) => !pattern || relative(ROOT, f).includes(pattern));
  const unit = files.filter((f) => f.startsWith(UNIT_DIR));
  const blackBox = files.filter((f) => !f.startsWith(UNIT_DIR));
  const texts = new Map(blackBox.map((f) => [f, readFileSync(f, 'utf8')]));
  const usesSample = blackBox.filter((f) => texts.get(f)!.includes('helpers/sample.ts'));
  const usesSmall = blackBox.filter((f) =>
    /startTestServer|buildFixture|builtTree|helpers\/redis-servers\.ts/.test(texts.get(f)!),
  );
  // spawnServer (test/helpers/process.ts) and keysProcess (test/helpers/redis.ts) run the staged bundle too.
  const usesBundle = blackBox.filter((f) =>
    /helpers\/staged-bundle\.ts|spawnServer\(|keysProcess\(/.test(texts.get(f)!),
  );
  // Files run alone build their own; under this run only the ones built here are used.
  for (const env of [SAMPLE_ENV, SMALL_ENV, BUNDLE_ENV]) delete process.env[env];
  const share = (files: string[], what: string, env: string, script: string, folder?: string, forAnyUser?: boolean) =>
    files.length ? new SharedBuild(what, env, script, files.length, folder, forAnyUser) : null;
  const sample = share(usesSample, 'data/', SAMPLE_ENV, 'test/helpers/sample.ts');
  const small = share(usesSmall, 'test/fixtures/sample-small', SMALL_ENV, 'test/helpers/small-build.ts');
  const staged = share(usesBundle, 'the bundle', BUNDLE_ENV, 'test/helpers/staged-bundle.ts', 'dist', true);
  const shared = [sample, small, staged].filter((build): build is SharedBuild => build !== null);
  const jobs: Job[] = [];
  // The shared builds first: the small one, which most files wait for, beside the sample, the longest.
  if (small) jobs.push({ run: () => small.build(), needs: [] });
  if (sample) jobs.push({ run: () => sample.build(), needs: [] });
  if (staged) jobs.push({ run: () => staged.build(), needs: [] });
  if (unit.length)
    jobs.push({
      run: () =>
        uvuProcess(`test/unit (${unit.length} file${unit.length === 1 ? '' : 's'} in one process)`, [
          '--import',
          'tsx',
          'scripts/test-unit.ts',
          ...unit,
        ]),
      needs: [],
    });
  // Longest first, so no long file starts last while the other workers sit idle.
  const rank = (file: string) => SLOWEST.findIndex((slow) => file.endsWith(slow));
  const order = (file: string) => (rank(file) < 0 ? SLOWEST.length : rank(file));
  blackBox.sort((a, b) => order(a) - order(b));
  // Made while the shared builds and the unit files start; the first black-box file waits for it.
  const bundled = bundleTestFiles(blackBox, ROOT);
  void bundled.then(({ note }) => process.stdout.write(note));
  for (const file of blackBox) {
    const needs = [
      usesSample.includes(file) ? sample : null,
      usesSmall.includes(file) ? small : null,
      usesBundle.includes(file) ? staged : null,
    ];
    const waits = needs.filter((build): build is SharedBuild => build !== null);
    jobs.push({ run: async () => uvuProcess(relative(ROOT, file), (await bundled).nodeArgs(file)), needs: waits });
  }
  const results: Outcome[] = [];
  const tsc = typeCheck().then((r) => {
    process.stdout.write(r.output);
    results.push(r);
  });
  // Each worker takes the first job it can start; one that needs a shared build waits for it
  // only when nothing else is left.
  const next = async (): Promise<Job | undefined> => {
    const at = jobs.findIndex((job) => job.needs.every((build) => build.ready));
    if (at >= 0) return jobs.splice(at, 1)[0];
    if (jobs.length === 0) return undefined;
    await Promise.race(shared.filter((build) => !build.ready).map((build) => build.built));
    return next();
  };
  // One file more than the cores: most files spend their time waiting (a Redis failover, a
  // child's start, a timer), so a spare turn fills the idle core. On 2 cores the quiet .ci/run
  // went from 5 min 30 s (2 at once) to 5 min 7 s (3 at once), npm install included.
  const workers = Array.from({ length: Math.max(2, cores) + 1 }, async () => {
    for (let job = await next(); job; job = await next()) {
      const outcome = await job.run();
      process.stdout.write(outcome.output);
      results.push(outcome);
    }
  });
  await Promise.all([tsc, ...workers]);
  for (const build of shared) {
    const changed = build.check();
    if (changed) {
      process.stdout.write(changed.output);
      results.push(changed);
    }
  }
  // The suite's time on a small machine is its CPU: this says how much there was to share out.
  const elapsed = (performance.now() - runStarted) / 1000;
  process.stdout.write(`${cpuSpent.seconds.toFixed(0)} s of CPU in ${elapsed.toFixed(0)} s on ${cores} cores\n`);
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
