/**
 * One request whose body trickles in: `npx tsx scripts/bench/trickle.ts PORT [PATH] [KEY] [METHOD]`
 * (default a keyless POST to the CritPt route) declares a 100 MB body, sends a byte a second
 * whatever the server answers, and prints the status, when the answer came, when the server's
 * FIN came and when the connection was closed (ms from the start). What a connection answered
 * before its body costs the server: docs/operating.md, "Upload budgets".
 */
import { connect } from 'node:net';

// With --head, the head itself trickles (it never ends): what node:http answers 408 on its own.
const slowHead = process.argv.includes('--head');
const [port, path = '/api/v2/critpt/evaluate', key = '', method = 'POST'] = process.argv
  .slice(2)
  .filter((a) => a !== '--head');
if (!port) {
  console.error('usage: npx tsx scripts/bench/trickle.ts PORT [PATH] [KEY] [METHOD] [--head]');
  process.exit(2);
}
const started = performance.now();
const since = () => Math.round(performance.now() - started);
const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
let received = '';
let answeredMs: number | null = null;
let finMs: number | null = null;
socket.setEncoding('latin1');
socket.on('data', (text: string) => {
  received += text;
  if (answeredMs === null && received.includes('\r\n\r\n')) answeredMs = since();
});
const head = `${method} ${path} HTTP/1.1\r\nHost: trickle\r\n${key ? `x-api-key: ${key}\r\n` : ''}`;
socket.write(
  slowHead ? `${head}X-Slow: ` : `${head}Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n`,
);
const trickle = setInterval(() => socket.writable && socket.write('x'), 1000);
const done = (how: string) => {
  clearInterval(trickle);
  const connection = /\r\nconnection: *([\w-]+)/i.exec(received)?.[1] ?? null;
  console.log(
    JSON.stringify({
      status: Number(received.slice(9, 12)) || null,
      connection,
      answered_ms: answeredMs,
      fin_ms: finMs,
      closed_ms: since(),
      closed_by: how,
    }),
  );
  process.exit(0);
};
socket.on('end', () => (finMs = since()));
socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
socket.on('close', () => done('close'));
