/**
 * Run the server as a real child process (tsx source or the bundle) and wait for its
 * `listening on` line, as an operator would see it. The helpers are shared with the bench and
 * the soak (scripts/processes.ts).
 */
export { ROOT, spawnServer, stopProcess, type ServerProcess } from '../../scripts/processes.ts';
