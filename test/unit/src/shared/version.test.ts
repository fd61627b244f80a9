import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FORMATS } from '../../../../src/formats.ts';
import { MANIFEST_FORMAT } from '../../../../src/shared/manifest.ts';
import { PROGRAM, VERSION, versionLine } from '../../../../src/shared/version.ts';

const version = suite('VERSION');

version('should be the version package.json gives, and CHANGELOG.md\'s newest', () => {
  const root = new URL('../../../../', import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { name: string; version: string };
  assert.is(VERSION, pkg.version);
  assert.is(PROGRAM, pkg.name);
  const newest = /^## (\d+\.\d+\.\d+)/m.exec(readFileSync(new URL('CHANGELOG.md', root), 'utf8'))?.[1];
  assert.is(newest, VERSION, 'CHANGELOG.md opens with this version');
});

version('should name each format in the version line', () => {
  assert.is(versionLine({ snapshot: 3 }), `benchmark-data-api ${VERSION} (snapshot format 3)`);
  assert.is(versionLine({ keys_file: 2, quota_counts: 3 }), `benchmark-data-api ${VERSION} (keys file format 2, quota counts format 3)`);
  assert.is(versionLine({}), `benchmark-data-api ${VERSION}`);
  assert.is(FORMATS.snapshot, MANIFEST_FORMAT);
});

version.run();
