/**
 * A plain HTTP client for tests: node:http, so the test sees exactly what the server sent
 * (fetch would decode compressed bodies by itself).
 */
import { connect } from 'node:net';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { HANG_GUARD_MS } from './wait.ts';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json: () => any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export function request(base: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** GET with an API key. */
export function get(base: string, path: string, key?: string, headers: Record<string, string> = {}): Promise<Reply> {
  return request(base, path, { headers: key === undefined ? headers : { 'x-api-key': key, ...headers } });
}

/**
 * Send raw bytes to the server at `base` on a fresh connection; everything it writes until it
 * closes the connection (the requests that use this are answered with a close; the timer is a
 * hang guard). `latin1` keeps binary bodies byte for byte (one character a byte).
 */
export function rawExchange(base: string, text: string, encoding: BufferEncoding = 'utf8'): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let got = '';
    const timer = setTimeout(() => socket.destroy(), HANG_GUARD_MS);
    socket.on('data', (chunk: Buffer) => (got += chunk.toString(encoding)));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', reject);
  });
}
