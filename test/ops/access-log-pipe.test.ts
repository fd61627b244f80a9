/** The access log on a real stdout pipe whose reader has stopped: bounded, counted, and said once it reads again. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/process.ts';
import { HANG_GUARD_MS, until } from '../helpers/wait.ts';

const pipe = suite('access log on a stalled stdout');

pipe('should hold no more than its bound while stdout is not read, count what it drops, and say so when read again', async () => {
  const backlog = 256 * 1024;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'test/helpers/access-log-writer.ts'), String(backlog), '200', '500'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  // Nobody reads stdout: once the pipe's kernel buffer is full, every write stays in the child.
  child.stdout.pause();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await until(() => stderr.includes('"offered"'), 'the writer reports', HANG_GUARD_MS, 50);
    const report = JSON.parse(stderr.split('\n').find((line) => line.includes('"offered"'))!) as { offered: number; peak: number; dropped: number; lines: number; growth: number };
    // Offered: about 40 times the bound. Held: the bound and one turn's lines (500 lines, about 160 KB).
    assert.ok(report.offered > backlog * 30, `offered ${report.offered} bytes`);
    assert.ok(report.peak < backlog * 2, `stdout held ${report.peak} bytes unwritten, bound ${backlog}`);
    // Without the bound the writer holds all it was offered (measured: growth = offered).
    assert.ok(report.growth < report.offered / 10, `the writer holds ${report.growth} bytes more after ${report.offered} offered`);
    assert.ok(report.dropped > report.lines / 2, `${report.dropped} of ${report.lines} lines dropped`);
    // Read again: the drain brings the notice, with the count.
    let read = 0;
    child.stdout.on('data', (chunk: Buffer) => (read += chunk.toString().split('\n').length - 1));
    child.stdout.resume();
    assert.is(await exited, 0);
    assert.match(stderr, `access log: ${report.dropped} lines dropped`);
    assert.is(read + report.dropped, report.lines, 'every line was written or counted as dropped');
  } finally {
    child.kill();
  }
});

pipe.run();
