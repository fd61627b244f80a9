import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FALLBACK_DESCRIPTOR_LIMIT, parseOpenFilesLimit, readDescriptorLimit } from '../../../../src/http/descriptor-limit.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63704                63704                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

const limit = suite('descriptor limit');

limit('should read the soft limit of open files, not the hard one', () => {
  assert.is(parseOpenFilesLimit(LIMITS), 1024);
});

limit('should find none where the line is missing or unlimited', () => {
  assert.is(parseOpenFilesLimit('Limit Soft Limit\n'), null);
  assert.is(parseOpenFilesLimit(LIMITS.replace('1024                 524288', 'unlimited            unlimited')), null);
});

limit('should fall back, saying why, where the file cannot be read or holds no limit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'limits-'));
  try {
    const missing = readDescriptorLimit(join(dir, 'none'));
    assert.is(missing.limit, FALLBACK_DESCRIPTOR_LIMIT);
    assert.match(missing.source, /fallback \(.*ENOENT\)/);
    writeFileSync(join(dir, 'limits'), LIMITS);
    assert.equal(readDescriptorLimit(join(dir, 'limits')), { limit: 1024, source: join(dir, 'limits') });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

limit.run();
