/**
 * The soak's bundled servers: started on port 0 (restarts may move them, so callers ask `port`),
 * killed with SIGKILL and restarted, their resident memory watched and their output kept.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { watchResident } from '../attackers.ts';
import { spawnServer } from '../processes.ts';

export interface ServerPlace {
  bundlePath: string;
  snapshot: string;
  state: string;
  /** --store as given to the soak. */
  store: string;
}

export class SoakServers {
  private readonly ports: number[] = [];
  readonly children: ChildProcess[] = [];
  /** Each server's stdout (its access log): read and thrown away, except while the slow-log attacker holds it. */
  readonly accessLogs: Readable[] = [];
  /** Resident memory of every server process started, restarts included. */
  private readonly residents: ReturnType<typeof watchResident>[] = [];
  /**
   * Every server's own output (stderr included), restarts included: the access log's drop notices
   * are counted there.
   */
  private readonly outputs: (() => string)[] = [];
  /** Milliseconds from spawn to `listening on`, each start in order (the first ones read the seeded state). */
  readonly startMs: number[] = [];
  /** True from a kill until shortly after the restart: requests cut meanwhile are the kill's, not failures. */
  restarting = false;
  /** True while a failover of the store lasts (scripts/soak/store-faults.ts): 503s meanwhile are expected. */
  storeFaulted = false;
  kills = 0;

  constructor(private readonly place: ServerPlace) {}

  port(n: number): number {
    return this.ports[n]!;
  }

  async start(n: number): Promise<ChildProcess> {
    const { bundlePath, snapshot, state, store } = this.place;
    const spawned = performance.now();
    const server = await spawnServer(
      ['--port', '0', '--snapshot', snapshot, '--state', state, '--store', store],
      [bundlePath],
    );
    this.startMs.push(performance.now() - spawned);
    this.ports[n] = server.port;
    this.children[n] = server.child;
    this.residents.push(watchResident(server.child.pid!, 200));
    // spawnServer keeps what it reads (to find the `listening on` line); the access log is not kept.
    const stdout = server.child.stdout!;
    stdout.removeAllListeners('data');
    stdout.on('data', () => {});
    this.accessLogs[n] = stdout;
    this.outputs.push(server.output);
    return server.child;
  }

  /** SIGKILL server `n` and start it again on the same folders. */
  async killAndRestart(n: number): Promise<void> {
    this.restarting = true;
    const victim = this.children[n]!;
    const exited = new Promise((r) => victim.once('exit', r));
    victim.kill('SIGKILL');
    await exited;
    this.kills++;
    await this.start(n);
    // Requests cut by the kill fail within moments; after that a failure is a failure.
    setTimeout(() => (this.restarting = false), 500);
  }

  /** The peak resident memory of any server so far, in MB; stops watching. */
  stopWatching(): number {
    return Math.max(...this.residents.map((r) => r.stop())) / 1024 / 1024;
  }

  /** The access log's notices of lines it dropped, from every server's output. */
  dropNotices(): string[] {
    return this.outputs.flatMap((output) => output().match(/access log: \d+ lines? dropped/g) ?? []);
  }

  signalAll(signal: NodeJS.Signals): void {
    for (const child of this.children) child.kill(signal);
  }
}
