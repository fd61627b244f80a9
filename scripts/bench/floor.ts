/** The node:http floor: a bare server sending nginx's bodies, the most any node:http server reaches here. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstAnswer, track } from './processes.ts';

/** The headers our server sends with a br body, as the floor's source writes them (`body` is the body). */
const FLOOR_HEADERS =
  `({ 'Content-Type': 'application/json; charset=utf-8', ETag: '"0123456789abcdef.br"', Vary: 'Accept-Encoding', ` +
  `'Cache-Control': 'private, max-age=300', 'Content-Encoding': 'br', 'X-Platform-Tier': 'commercial', ` +
  `'X-RateLimit-Limit': 1000000000, 'X-RateLimit-Remaining': 999999999, 'X-RateLimit-Reset': 1795000000, ` +
  `'Content-Length': body.length })`;

/**
 * What node:http itself reaches on this machine: no key, no quota, no journal, the body of a
 * path taken from a map (the br files of nginx's root, read at start) and sent with the same
 * headers our server sends. Our server can approach this, not pass it, so it tells how much of
 * the gap to nginx is ours and how much is the platform's, scenario by scenario.
 */
const FLOOR_SERVER = `import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const [root, port] = process.argv.slice(2);
const headersOf = (body) => ${FLOOR_HEADERS};
const answers = new Map();
for (const file of readdirSync(root, { recursive: true })) {
  if (!file.endsWith('.br')) continue;
  const body = readFileSync(join(root, file));
  answers.set('/' + file.slice(0, -3), [headersOf(body), body]);
}
createServer((req, res) => {
  const answer = answers.get(req.url);
  if (!answer) return res.writeHead(404).end();
  res.writeHead(200, answer[0]);
  res.end(answer[1]);
}).listen(Number(port), '127.0.0.1');
`;

/** Start the floor on nginx's root; it answers once it has read every body. */
export async function startFloor(
  work: string,
  docroot: string,
  probePath: string,
  port: number,
): Promise<ChildProcess> {
  const script = join(work, 'floor.mjs');
  writeFileSync(script, FLOOR_SERVER);
  const child = track(
    spawn(process.execPath, [script, docroot, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  await firstAnswer(port, probePath, {}, performance.now(), child);
  return child;
}
