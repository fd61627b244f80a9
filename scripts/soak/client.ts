/**
 * The soak's one HTTP request: a fresh connection each (so a kill cuts only requests in flight),
 * the answer read whole.
 */
import { request } from 'node:http';

export interface Reply {
  status: number;
  etag?: string;
  body: Buffer;
  remaining?: string;
  limit?: string;
}

export function get(port: number, path: string, key: string, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, headers: { 'x-api-key': key }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            etag: res.headers.etag,
            body: Buffer.concat(chunks),
            remaining: res.headers['x-ratelimit-remaining'] as string,
            limit: res.headers['x-ratelimit-limit'] as string,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
