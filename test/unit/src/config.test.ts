import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveOptions, type ServerOptions } from '../../../src/config.ts';
import { UsageError } from '../../../src/shared/flags.ts';

const config = suite('upload options');
const MIB = 1024 * 1024;

config('should resolve the upload budget, rate and grace from flags and the environment', () => {
  const options = resolveOptions(['--critpt-upload-budget-mb', '40', '--critpt-upload-min-rate', '4'], { CRITPT_USER_UPLOAD_MB: '20', CRITPT_UPLOAD_GRACE: '5' }) as ServerOptions;
  assert.is(options.critptUploadBudgetBytes, 40 * MIB);
  assert.is(options.critptUserUploadBytes, 20 * MIB);
  assert.is(options.critptMinUploadBytesPerSecond, 4 * 1024);
  assert.is(options.critptUploadGraceSeconds, 5);
});

config('should refuse a budget smaller than the largest body it must hold', () => {
  assert.throws(() => resolveOptions(['--critpt-user-upload-mb', '8'], {}), (error: unknown) => error instanceof UsageError && /at least --critpt-max-body-mb \(16\)/.test(error.message));
  assert.ok(resolveOptions(['--critpt-user-upload-mb', '8', '--critpt-max-body-mb', '8'], {}) !== 'help');
});

config.run();
