/** nginx with one worker serving the very same precompressed bodies, the bench's reference. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { DEFAULT_LEVELS } from '../../build/pack/pack.ts';
import { firstAnswer, track } from './processes.ts';
import { BROTLI_MODULE } from './tools.ts';

function nginxConfig(prefix: string, docroot: string, port: number): string {
  return `load_module ${BROTLI_MODULE};
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  gzip_static on;
  brotli_static on;
  types { application/json json; }
  default_type application/json;
  client_body_temp_path ${prefix}/tmp;
  proxy_temp_path ${prefix}/tmp;
  fastcgi_temp_path ${prefix}/tmp;
  uwsgi_temp_path ${prefix}/tmp;
  scgi_temp_path ${prefix}/tmp;
  server {
    listen 127.0.0.1:${port};
    root ${docroot};
    location / { add_header Cache-Control "private, max-age=300"; add_header Vary "Accept-Encoding"; }
  }
}
`;
}

export async function startNginx(
  work: string,
  docroot: string,
  port: number,
): Promise<{ child: ChildProcess; workerPid: () => number }> {
  const prefix = join(work, 'nginx');
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  writeFileSync(join(prefix, 'nginx.conf'), nginxConfig(prefix, docroot, port));
  const child = track(
    spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] }),
    'SIGTERM',
  );
  await firstAnswer(port, '/free.json', {}, performance.now(), child);
  const workerPid = () =>
    Number(
      execFileSync('pgrep', ['-P', String(child.pid)])
        .toString()
        .trim()
        .split('\n')[0],
    );
  return { child, workerPid };
}

/** Write a body as nginx serves it: identity, .gz and .br side by side. */
export function exportBody(path: string, identity: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, identity);
  writeFileSync(`${path}.gz`, gzipSync(identity, { level: DEFAULT_LEVELS.gzip }));
  writeFileSync(
    `${path}.br`,
    brotliCompressSync(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: DEFAULT_LEVELS.brotli,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
  );
}
