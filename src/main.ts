/**
 * The server's command line: `node dist/server.mjs [flags]` (see `--help`).
 * Prints `listening on http://HOST:PORT` once ready; exits 0 after a graceful shutdown on
 * SIGTERM or SIGINT; refuses to start with a message: exit 2 on bad flags, 1 on bad state.
 */
import { resolveOptions, usage } from './config.ts';
import { FORMATS } from './formats.ts';
import { MANIFEST_FORMAT } from './shared/manifest.ts';
import { PROGRAM, VERSION, versionLine } from './shared/version.ts';
import { UsageError } from './shared/flags.ts';
import { startServer, type RunningServer } from './start.ts';
import { keepTickShape } from './lib/tick-shape.ts';

/** `started` runs once the server listens, before the `listening on` line (which callers wait for). */
export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  started?: (running: RunningServer) => void,
): Promise<void> {
  let options;
  try {
    options = resolveOptions(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    console.log(usage());
    return;
  }
  if (options === 'version') {
    console.log(versionLine(FORMATS));
    return;
  }
  // So that an idle spell does not leave node's tick entries on V8's slow path for good: see tick-shape.ts.
  keepTickShape();
  let running;
  try {
    running = await startServer(options);
  } catch (error) {
    // Exit now, whatever is still scheduled: a supervisor (systemd's Restart=) acts only on an exit.
    console.error(`cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
  const stop = (signal: string) => {
    console.log(`${signal}: finishing in-flight requests`);
    void running.close().then(() => process.exit(0));
  };
  // Before the `listening on` line: a supervisor that signals as soon as it reads the line must
  // find the handlers in place, or the signal's default action kills the process mid-write.
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  console.log(
    `${PROGRAM} ${VERSION} serving snapshot ${running.snapshots.current.buildId} (format ${MANIFEST_FORMAT})`,
  );
  started?.(running);
  console.log(`listening on ${running.url}`);
}
