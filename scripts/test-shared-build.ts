/**
 * A build shared by the test files of one `npm test` run (scripts/test.ts): built once by a job of
 * its own, its path handed to the files in an environment variable, and checked after the run, so a
 * file that changed it fails the run.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, timeSpent, type Outcome } from './test-runs.ts';

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
export class SharedBuild {
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
    const { code, output, timedOut, cpuSeconds } = await run(process.execPath, [
      '--import',
      'tsx',
      this.script,
      this.outDir,
    ]);
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
      ? {
          passed: 0,
          failed: 0,
          skipped: 0,
          output: `${this.what} built once for ${files}, ${timeSpent(started, cpuSeconds)}\n`,
        }
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
