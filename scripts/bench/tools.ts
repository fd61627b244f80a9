/**
 * wrk, nginx with brotli_static, redis-server and valgrind: the bench's outside tools, installed from
 * Debian when missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';

export const BROTLI_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';
const DEBIAN_PACKAGES = ['wrk', 'nginx-light', 'libnginx-mod-http-brotli-static'];

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** wrk and nginx (with brotli_static) from Debian: install them as root, or say exactly what to run. */
export function ensureTools(): void {
  const missing = !has('wrk') || !has('nginx') || !exists(BROTLI_MODULE);
  if (!missing) return;
  if (process.getuid?.() !== 0) {
    console.error(
      'bench needs wrk and nginx with brotli_static. Install them with:\n' +
        `  sudo apt-get install -y ${DEBIAN_PACKAGES.join(' ')}`,
    );
    process.exit(1);
  }
  install(DEBIAN_PACKAGES);
}

/**
 * redis-server for the shared-store rounds: installed as root when missing. Optional, unlike wrk
 * and nginx: without it (and not root) the bench says so and leaves those rounds out.
 */
export function ensureRedis(): boolean {
  if (has('redis-server')) return true;
  if (process.getuid?.() !== 0) return false;
  install(['redis-server']);
  return has('redis-server');
}

/** valgrind (callgrind, callgrind_control) for the instruction counts: installed as root, else what to run is said. */
export function ensureValgrind(): void {
  if (has('valgrind') && has('callgrind_control')) return;
  if (process.getuid?.() !== 0) {
    console.error('the instruction counts need valgrind. Install it with:\n  sudo apt-get install -y valgrind');
    process.exit(1);
  }
  install(['valgrind']);
}

function install(packages: string[]): void {
  console.log(`installing ${packages.join(', ')} from Debian's packages...`);
  execFileSync('apt-get', ['install', '-y', ...packages], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
