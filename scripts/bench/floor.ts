/** The node:http floor: a bare server sending one body, the most any node:http server reaches here. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstAnswer, track } from './processes.ts';

/**
 * What node:http itself reaches on this machine: no key, no quota, no lookup, one fixed body
 * with the same headers our server sends. Our server can approach this, not pass it, so it
 * tells how much of the gap to nginx is ours and how much is the platform's.
 */
const FLOOR_SERVER = `import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const body = readFileSync(process.argv[2]);
const headers = { 'Content-Type': 'application/json; charset=utf-8', ETag: '"0123456789abcdef.br"', Vary: 'Accept-Encoding', 'Cache-Control': 'private, max-age=300', 'Content-Encoding': 'br', 'X-Platform-Tier': 'commercial', 'X-RateLimit-Limit': 1000000000, 'X-RateLimit-Remaining': 999999999, 'X-RateLimit-Reset': 1795000000, 'Content-Length': body.length };
createServer((req, res) => { res.writeHead(200, headers); res.end(body); }).listen(Number(process.argv[3]), '127.0.0.1');
`;

export async function startFloor(work: string, bodyPath: string, port: number): Promise<ChildProcess> {
  const script = join(work, 'floor.mjs');
  writeFileSync(script, FLOOR_SERVER);
  const child = track(spawn(process.execPath, [script, bodyPath, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] }));
  await firstAnswer(port, '/', {}, performance.now(), child);
  return child;
}
