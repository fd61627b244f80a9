/**
 * The node:http floor: a bare server sending nginx's bodies, the most any node:http server reaches
 * here, in each form node:http allows for one answer (FLOOR_FORMS). The comparison measures every
 * form on the list page and keeps the fastest as the floor of every row (compare.ts, floorForm).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstAnswer, track } from './processes.ts';

/**
 * How the floor writes an answer's head and body:
 * - object: `res.writeHead(200, {...})`, which node:http validates and flattens on every answer;
 * - flat: `res.writeHead(200, [name, value, ...])`, taken as it is (our server's form);
 * - corked: the same between `res.cork()` and `res.uncork()`, head and body in one write;
 * - deferred: flat, each answer held to the end of its event-loop turn (one setImmediate a turn)
 *   and the turn's answers written there one after the other, as our server sends its data
 *   answers (src/lib/turn-end.ts). Found on the 29th: 1.26-1.59x flat's rps on the list page
 *   at c=16 and 1.11-1.47x at c=64 (alternating 5 s runs), so the floor without it understated
 *   node:http.
 */
export const FLOOR_FORMS = ['object', 'flat', 'corked', 'deferred'] as const;
export type FloorForm = (typeof FLOOR_FORMS)[number];

/**
 * The fields our server sends with a br body, in its order (src/exchange.ts, answerBody), as the
 * floor's source writes them (`body` is the body).
 */
const FLOOR_FIELDS =
  `['X-Platform-Tier', 'commercial', 'X-RateLimit-Limit', 1000000000, 'X-RateLimit-Remaining', 999999999, ` +
  `'X-RateLimit-Reset', 1795000000, 'Content-Type', 'application/json; charset=utf-8', ` +
  `'ETag', '"0123456789abcdef.br"', 'Vary', 'Accept-Encoding', 'Cache-Control', 'private, max-age=300', ` +
  `'Content-Encoding', 'br', 'Content-Length', body.length]`;

/**
 * What node:http itself reaches on this machine: no key, no quota, no journal, the body of a
 * path taken from a map (the br files of nginx's root, read at start) and sent with the same
 * headers our server sends. Our server can approach this, not pass it, so it tells how much of
 * the gap to nginx is ours and how much is the platform's, scenario by scenario.
 */
const FLOOR_SERVER = `import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const [root, port, form] = process.argv.slice(2);
const fieldsOf = (body) => ${FLOOR_FIELDS};
const objectOf = (fields) => {
  const object = {};
  for (let i = 0; i < fields.length; i += 2) object[fields[i]] = fields[i + 1];
  return object;
};
const answers = new Map();
for (const file of readdirSync(root, { recursive: true })) {
  if (!file.endsWith('.br')) continue;
  const body = readFileSync(join(root, file));
  const fields = fieldsOf(body);
  answers.set('/' + file.slice(0, -3), [form === 'object' ? objectOf(fields) : fields, body]);
}
// object and flat differ in the head they were given above, not in how they send it.
const plain = (res, [head, body]) => {
  res.writeHead(200, head);
  res.end(body);
};
const corked = (res, [head, body]) => {
  res.cork();
  res.writeHead(200, head);
  res.end(body);
  res.uncork();
};
// The turn's answers, written when its reads are all done.
let held = [];
const writeHeld = () => {
  const answers = held;
  held = [];
  for (const [res, found] of answers) plain(res, found);
};
const deferred = (res, found) => {
  if (held.push([res, found]) === 1) setImmediate(writeHeld);
};
const answer = { object: plain, flat: plain, corked, deferred }[form];
createServer((req, res) => {
  const found = answers.get(req.url);
  if (!found) return res.writeHead(404).end();
  answer(res, found);
}).listen(Number(port), '127.0.0.1');
`;

/** The floor's source, written into `work`: run it as `node SCRIPT DOCROOT PORT FORM`. */
export function writeFloorScript(work: string): string {
  const script = join(work, 'floor.mjs');
  writeFileSync(script, FLOOR_SERVER);
  return script;
}

/** Start the floor in one form on nginx's root; it answers once it has read every body. */
export async function startFloor(
  work: string,
  docroot: string,
  probePath: string,
  port: number,
  form: FloorForm,
): Promise<ChildProcess> {
  const script = writeFloorScript(work);
  const child = track(
    spawn(process.execPath, [script, docroot, String(port), form], { stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  await firstAnswer(port, probePath, {}, performance.now(), child);
  return child;
}
