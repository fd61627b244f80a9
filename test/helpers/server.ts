/**
 * Start the real server for a test: build a fixture tree into a temporary snapshot folder,
 * create keys in a temporary state folder, listen on port 0 on loopback.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild, type BuildSummary } from '../../build/build.ts';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/config.ts';
import { createKey } from '../../src/keys/changes.ts';
import type { NewKey } from '../../src/keys/record.ts';
import { startServer, type RunningServer, type StartHooks } from '../../src/start.ts';
import { SMALL_FIXTURE, SMALL_PAGE_SIZE, smallBuild } from './small-build.ts';

export const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public t = Date.UTC(2026, 10, 21, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface BuiltFixture {
  dataDir: string;
  snapshotDir: string;
  rebuild: (force?: boolean) => Promise<BuildSummary>;
}

/**
 * Copy a fixture tree (a name under test/fixtures, or an absolute path) into a temp folder and build it.
 * The default fixture at the default page size is built once per run (test/helpers/small-build.ts)
 * and its snapshot copied here: the build is deterministic, so the copy holds the bytes a build
 * here would write. `rebuild` builds here, as ever.
 */
export async function buildFixture(
  root: string,
  fixture = SMALL_FIXTURE,
  pageSize = SMALL_PAGE_SIZE,
): Promise<BuiltFixture> {
  const dataDir = join(root, 'data');
  const snapshotDir = join(root, 'snapshot');
  cpSync(isAbsolute(fixture) ? fixture : join(FIXTURES, fixture), dataDir, { recursive: true });
  const rebuild = (force = true) =>
    runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir, outDir: snapshotDir, pageSize, force, levels: { gzip: 1, brotli: 1 }, log: () => {} });
  if (fixture === SMALL_FIXTURE && pageSize === SMALL_PAGE_SIZE) {
    // Symlinks as they are: `current` names its build relatively, so the copy's names the copy's.
    cpSync((await smallBuild()).snapshotDir, snapshotDir, { recursive: true, verbatimSymlinks: true });
  } else await rebuild();
  return { dataDir, snapshotDir, rebuild };
}

export interface TestServer extends BuiltFixture {
  root: string;
  url: string;
  stateDir: string;
  clock: TestClock;
  running: RunningServer;
  errors: string[];
  /** Access log lines, parsed. */
  accessLog: Record<string, unknown>[];
  /** Plain keys by name. */
  keys: Record<string, string>;
  keyIds: Record<string, string>;
  addKey: (name: string, input: NewKey) => string;
  close: () => Promise<void>;
}

export const STANDARD_KEYS: Record<string, NewKey> = {
  free: { tier: 'free', org: 'acme', user: 'fran' },
  pro: { tier: 'pro', org: 'acme', user: 'pat' },
  commercial: { tier: 'commercial', org: 'bigco', user: 'cora', critpt: true },
};

export async function startTestServer(
  options: {
    fixture?: string;
    pageSize?: number;
    server?: Partial<ServerOptions>;
    keys?: Record<string, NewKey>;
    counter?: StartHooks['counter'];
    httpLimits?: StartHooks['httpLimits'];
    capTimes?: StartHooks['capTimes'];
    /** Runs between the build and the start (a test that damages the build first). */
    beforeStart?: (built: BuiltFixture) => void;
  } = {},
): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'server-test-'));
  const built = await buildFixture(root, options.fixture, options.pageSize);
  options.beforeStart?.(built);
  const stateDir = join(root, 'state');
  const clock = new TestClock();
  const keys: Record<string, string> = {};
  const keyIds: Record<string, string> = {};
  const addKey = (name: string, input: NewKey) => {
    const issued = createKey(stateDir, input);
    keys[name] = issued.key;
    keyIds[name] = issued.record.id;
    return issued.key;
  };
  for (const [name, input] of Object.entries(options.keys ?? STANDARD_KEYS)) addKey(name, input);
  const errors: string[] = [];
  const accessLog: Record<string, unknown>[] = [];
  const running = await startServer(
    { ...DEFAULT_OPTIONS, port: 0, host: '127.0.0.1', snapshotDir: built.snapshotDir, stateDir, ...options.server },
    {
      clock,
      counter: options.counter,
      httpLimits: options.httpLimits,
      capTimes: options.capTimes,
      log: () => {},
      logError: (line) => errors.push(line),
      accessLog: (text) => accessLog.push(...text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)),
    },
  );
  return {
    ...built,
    root,
    url: running.url,
    stateDir,
    clock,
    running,
    errors,
    accessLog,
    keys,
    keyIds,
    addKey,
    close: async () => {
      await running.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
