/**
 * `npm test`: type-check, then run every `test/**\/*.test.ts` file with uvu, a few at a time:
 * the unit files (test/unit/, pure functions and in-process objects) all in one process, as
 * `npm run test:unit` runs them (scripts/test-unit.ts), and every other file (the black-box
 * ones: real servers on loopback, child processes, builds) in a process of its own, so a crash
 * or hang in one cannot take the others down. The last line is always `N passed, N failed`,
 * the type check counting as one test, with `, N skipped` after it when a test could not run
 * here (it says why in its output).
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
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const UNIT_DIR = join(ROOT, 'test/unit/');
/** What test/helpers/sample.ts reads the shared sample's folder from (its SAMPLE_ENV). */
const SAMPLE_ENV = 'BDA_TEST_SAMPLE';
/** What test/helpers/small-build.ts reads the shared small build's folder from (its SMALL_ENV). */
const SMALL_ENV = 'BDA_TEST_SMALL';
/** What test/helpers/staged-bundle.ts reads the staged bundle's folder from (its BUNDLE_ENV). */
const BUNDLE_ENV = 'BDA_TEST_BUNDLE';
/**
 * A hang guard, not a performance check: a file (or the unit run) still going after this long
 * is stuck, and is killed and counted as failed. Far above what any file takes on a busy
 * machine; how fast things are is for `npm run bench` and `npm run soak`, not for this.
 */
const FILE_TIMEOUT_MS = 10 * 60_000;

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

interface Outcome {
  passed: number;
  failed: number;
  skipped: number;
  output: string;
}

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? findTests(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    )
    .sort();
}

/** The test processes running now: stopped when the runner ends, however it ends. */
const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));
// Interrupted: stop them and remove this run's temporary folders on the way out.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

function run(command: string, args: string[]): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      children.delete(child);
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** uvu ends its report with `Total: N` and `Passed: N`; anything else (a crash) is a failure. */
function parseUvu(output: string, code: number | null, timedOut: boolean): Omit<Outcome, 'output'> {
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
  if (timedOut || Number.isNaN(total) || Number.isNaN(passed))
    return { passed: Number.isNaN(passed) ? 0 : passed, failed: 1, skipped: 0 };
  const failed = total - passed; // uvu counts skipped tests outside its total
  return { passed, failed: code !== 0 && failed === 0 ? 1 : failed, skipped };
}

async function typeCheck(): Promise<Outcome> {
  const { code, output } = await run(process.execPath, [
    join(ROOT, 'node_modules/typescript/bin/tsc'),
    '--noEmit',
    '-p',
    ROOT,
  ]);
  return {
    passed: code === 0 ? 1 : 0,
    failed: code === 0 ? 0 : 1,
    skipped: 0,
    output: code === 0 ? 'type check: ok\n' : `type check failed:\n${output}`,
  };
}

/** One uvu process: a test file, or scripts/test-unit.ts with the unit files. */
async function uvuProcess(label: string, args: string[]): Promise<Outcome> {
  const started = performance.now();
  const { code, output, timedOut } = await run(process.execPath, ['--import', 'tsx', ...args]);
  const outcome = parseUvu(output, code, timedOut);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const skipped = outcome.skipped ? `, ${outcome.skipped} skipped` : '';
  const status = timedOut
    ? `HUNG: killed after ${FILE_TIMEOUT_MS / 60_000} min (the hang guard)`
    : `${outcome.passed} passed, ${outcome.failed} failed${skipped}, ${seconds} s`;
  const reasons = outcome.skipped
    ? output
        .split('\n')
        .filter((line) => line.startsWith('skipped: '))
        .map((line) => `  ${line}\n`)
        .join('')
    : '';
  const show = outcome.failed > 0 ? output : reasons;
  return { ...outcome, output: `${label}: ${status}\n${show}` };
}

/**
 * Every entry below a folder with its type, size, time of change and link target: what a test file
 * might have changed.
 */
function treeState(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const name = join(prefix, entry.name);
      const stat = lstatSync(join(dir, name));
      const line =
        `${name} ${stat.mode} ${stat.size} ${stat.mtimeMs} ` +
        `${stat.ctimeMs}${entry.isSymbolicLink() ? ` -> ${readlinkSync(join(dir, name))}` : ''}`;
      return [line, ...(entry.isDirectory() ? treeState(dir, name) : [])];
    });
}

/** A build shared by the files of this run that use it: built by a job of its own, then handed to them. */
class SharedBuild {
  readonly root: string;
  readonly outDir: string;
  private state: string[] = [];
  ready = false;
  readonly built: Promise<boolean>;
  private resolve!: (ok: boolean) => void;

  /**
   * `what` names it in the report, `env` is the variable its path goes to the files in, `script`
   * builds it (`node --import tsx SCRIPT OUT_DIR`), `users` counts the files that use it;
   * `folder` is OUT_DIR's name in this run's temporary folder, which `forAnyUser` opens to every
   * user (mode 0755: the bundle, which tests run as another user).
   */
  constructor(
    private readonly what: string,
    private readonly env: string,
    private readonly script: string,
    private readonly users: number,
    folder = 'snapshot',
    forAnyUser = false,
  ) {
    this.root = mkdtempSync(join(tmpdir(), `bda-test-${env.toLowerCase().replace(/^bda_test_/, '')}-`));
    if (forAnyUser) chmodSync(this.root, 0o755);
    this.outDir = join(this.root, folder);
    this.built = new Promise((resolve) => (this.resolve = resolve));
    process.on('exit', () => rmSync(this.root, { recursive: true, force: true }));
  }

  async build(): Promise<Outcome> {
    const started = performance.now();
    const { code, output, timedOut } = await run(process.execPath, ['--import', 'tsx', this.script, this.outDir]);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const ok = code === 0 && !timedOut;
    if (ok) {
      this.state = treeState(this.outDir);
      process.env[this.env] = this.outDir;
    }
    this.ready = true;
    this.resolve(ok);
    // Counted only when it fails (the files that need it then build it themselves, and say how they fail).
    const files = `${this.users} file${this.users === 1 ? '' : 's'}`;
    return ok
      ? { passed: 0, failed: 0, skipped: 0, output: `${this.what} built once for ${files}, ${seconds} s\n` }
      : {
          passed: 0,
          failed: 1,
          skipped: 0,
          output: `${this.what} could not be built for the files that share it${timedOut ? ' (hung)' : ''}:\n${output}`,
        };
  }

  /** After the run: a failure if a test file changed the shared folder. */
  check(): Outcome | null {
    if (!this.state.length) return null;
    const now = treeState(this.outDir);
    if (now.join('\n') === this.state.join('\n')) return null;
    const before = new Set(this.state);
    const after = new Set(now);
    const changed = [
      ...[...before].filter((line) => !after.has(line)).map((line) => `  was: ${line}`),
      ...[...after].filter((line) => !before.has(line)).map((line) => `  now: ${line}`),
    ];
    const what = `the shared ${this.what} at ${this.outDir} was changed by a test file (it is read-only: copy it)`;
    return { passed: 0, failed: 1, skipped: 0, output: `${what}:\n${changed.slice(0, 20).join('\n')}\n` };
  }
}

interface Job {
  run: () => Promise<Outcome>;
  /** The shared builds it waits for. */
  needs: SharedBuild[];
}

async function main(): Promise<void> {
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
          'scripts/test-unit.ts',
          ...unit,
        ]),
      needs: [],
    });
  // Longest first, so no long file starts last while the other workers sit idle.
  const rank = (file: string) => SLOWEST.findIndex((slow) => file.endsWith(slow));
  const order = (file: string) => (rank(file) < 0 ? SLOWEST.length : rank(file));
  blackBox.sort((a, b) => order(a) - order(b));
  for (const file of blackBox) {
    const needs = [
      usesSample.includes(file) ? sample : null,
      usesSmall.includes(file) ? small : null,
      usesBundle.includes(file) ? staged : null,
    ];
    const waits = needs.filter((build): build is SharedBuild => build !== null);
    jobs.push({ run: () => uvuProcess(relative(ROOT, file), [file]), needs: waits });
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
  const workers = Array.from({ length: Math.max(2, availableParallelism()) + 1 }, async () => {
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
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
