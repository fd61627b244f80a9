/**
 * What the bytes alone cost: a bare node:http server (no key, no quota, no JSON-RPC) that answers a
 * GET with the route's answer and a POST, once its body is read, with a tool call's answer, each as
 * our server sent it (status, header fields in their order, body bytes), taken from our server by
 * `rawAnswer`. Against it the MCP bench tells how much of a call's time over the route's is its
 * answer's size (the body twice) and how much is our work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { firstAnswer, track } from './processes.ts';

/** One answer as it came: its status, its header fields as a flat list (name, value...), its body undecoded. */
export interface RawAnswer {
  status: number;
  fields: string[];
  body: Buffer;
}

/** Fields of the connection, not of the answer: the bare server's node:http writes its own. */
const CONNECTION_FIELDS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Ask our server once, and keep the answer's bytes as they were sent (not decompressed, as fetch would). */
export function rawAnswer(
  port: number,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const pieces: Buffer[] = [];
      res.on('data', (piece: Buffer) => pieces.push(piece));
      res.on('error', reject);
      res.on('end', () => {
        const fields: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (!CONNECTION_FIELDS.has(res.rawHeaders[i].toLowerCase())) fields.push(...res.rawHeaders.slice(i, i + 2));
        resolve({ status: res.statusCode ?? 0, fields, body: Buffer.concat(pieces) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const BYTES_SERVER = `import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const [file, port] = process.argv.slice(2);
const revive = ({ status, fields, body }) => ({ status, fields, body: Buffer.from(body, 'base64') });
const answers = JSON.parse(readFileSync(file, 'utf8'));
const get = revive(answers.get);
const post = revive(answers.post);
const send = (res, { status, fields, body }) => {
  res.writeHead(status, fields);
  res.end(body);
};
createServer((req, res) => {
  if (req.method !== 'POST') return send(res, get);
  req.on('data', () => {});
  req.on('end', () => send(res, post));
}).listen(Number(port), '127.0.0.1');
`;

/** Start the bare server on `port`, answering GETs with `get` and POSTs with `post`. */
export async function startBytesServer(
  work: string,
  port: number,
  answers: { get: RawAnswer; post: RawAnswer },
): Promise<ChildProcess> {
  const script = join(work, 'mcp-bytes.mjs');
  const file = join(work, 'mcp-bytes.json');
  writeFileSync(script, BYTES_SERVER);
  const stored = (a: RawAnswer) => ({ status: a.status, fields: a.fields, body: a.body.toString('base64') });
  writeFileSync(file, JSON.stringify({ get: stored(answers.get), post: stored(answers.post) }));
  const child = track(
    spawn(process.execPath, [script, file, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  await firstAnswer(port, '/', {}, performance.now(), child);
  return child;
}
