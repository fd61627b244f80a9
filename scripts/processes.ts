/**
 * Running the server (and other programs) as child processes, shared by the tests, the bench
 * and the soak: spawn and wait for the `listening on` line (so port 0 works and the real port
 * is learned), find a free port for programs that cannot take port 0, and stop a child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const ROOT = new URL('../', import.meta.url).pathname;

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string | null>;
}

/**
 * Start the server (source through tsx, or a bundle) and wait for its `listening on` line.
 * `runAs` is a command that runs it as another user and then becomes it (`setpriv ...`, which
 * execs, so the child is the server itself and signals reach it).
 */
export function spawnServer(
  args: string[],
  entry: string[] = ['--import', 'tsx', 'src/bin.ts'],
  timeoutMs = 20_000,
  runAs: readonly string[] = [],
): Promise<ServerProcess> {
  const [command, ...before] = [...runAs, process.execPath];
  const child = spawn(command, [...before, ...entry, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], port: Number(new URL(match[1]).port), output: () => output, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${output}`));
    });
  });
}

/** A port free on loopback right now, for programs that cannot listen on port 0 (nginx). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Stop a child (SIGTERM unless told otherwise) and wait until it has exited. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}
