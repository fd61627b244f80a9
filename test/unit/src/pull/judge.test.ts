import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expiredReason, judgeRelease, type Holding } from '../../../../src/pull/judge.ts';
import { RELEASE_FORMAT, ReleaseRefused, type Release } from '../../../../src/shared/release.ts';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const FORMAT = 4;

function aRelease(version: number, buildId: string, over: Partial<Release> = {}): Release {
  return {
    release_format: RELEASE_FORMAT,
    snapshot_format: FORMAT,
    build_id: buildId,
    version,
    published_at: '2026-11-27T10:00:00.000Z',
    expires: '2026-12-11T10:00:00.000Z',
    files: [{ path: 'manifest.json', size: 1, sha256: 'a'.repeat(64), chunks: [['a'.repeat(64), 1, 0]] }],
    ...over,
  };
}

/** What judgeRelease throws: its kind and message (it must throw ReleaseRefused). */
function refused(release: Release, holding: Holding): { kind: string; message: string } {
  try {
    judgeRelease(release, holding, NOW, FORMAT);
  } catch (error) {
    assert.instance(error, ReleaseRefused);
    return { kind: (error as ReleaseRefused).kind, message: (error as Error).message };
  }
  return assert.unreachable('the release was taken') as never;
}

const CURRENT = aRelease(5, 'b1');
const HOLDING: Holding = { current: CURRENT, highest: 5 };

const judge = suite('judgeRelease');

judge('should pull a first release into a server that holds none, or only a build of its own', () => {
  assert.is(judgeRelease(aRelease(1, 'b1'), { current: null, highest: 0 }, NOW, FORMAT), 'pull');
  assert.is(judgeRelease(aRelease(9, 'b9'), { current: null, highest: 8 }, NOW, FORMAT), 'pull');
});

judge('should pull a later release of another build', () => {
  assert.is(judgeRelease(aRelease(6, 'b2'), HOLDING, NOW, FORMAT), 'pull');
});

judge('should renew the served build signed again with a later version', () => {
  assert.is(judgeRelease(aRelease(6, 'b1', { expires: '2027-01-01T00:00:00Z' }), HOLDING, NOW, FORMAT), 'renew');
});

judge('should find nothing new in the release being served, whatever else is true of it now', () => {
  assert.is(judgeRelease(CURRENT, HOLDING, NOW, FORMAT), 'none');
  assert.is(judgeRelease(aRelease(5, 'b1', { expires: '2020-01-01T00:00:00Z' }), HOLDING, NOW, FORMAT), 'none');
  assert.is(judgeRelease(CURRENT, HOLDING, NOW, FORMAT + 1), 'none');
});

judge('should refuse a release of another snapshot format, naming both formats', () => {
  const { kind, message } = refused(aRelease(6, 'b2', { snapshot_format: FORMAT + 1 }), HOLDING);
  assert.is(kind, 'format');
  assert.match(message, `release 6 (build b2) is of snapshot format ${FORMAT + 1}`);
  assert.match(message, `this server reads format ${FORMAT}`);
});

judge('should refuse a release expired, or expiring this very moment, or with no expiry it can read', () => {
  const expired = refused(aRelease(6, 'b2', { expires: '2026-11-27T11:59:59Z' }), HOLDING);
  assert.is(expired.kind, 'expired');
  assert.is(expired.message, 'release 6 (build b2) expired at 2026-11-27T11:59:59Z');
  assert.is(refused(aRelease(6, 'b2', { expires: new Date(NOW).toISOString() }), HOLDING).kind, 'expired');
  assert.is(refused(aRelease(6, 'b2', { expires: 'soon' }), HOLDING).kind, 'expired');
  assert.is(
    judgeRelease(aRelease(6, 'b2', { expires: new Date(NOW + 1).toISOString() }), HOLDING, NOW, FORMAT),
    'pull',
  );
});

judge('should refuse a release not newer than the highest taken: a rollback, or a replay', () => {
  const below = refused(aRelease(4, 'b0'), HOLDING);
  assert.is(below.kind, 'rollback');
  assert.match(below.message, 'release 4 (build b0) is not newer than release 5');
  assert.is(refused(aRelease(5, 'b2'), HOLDING).kind, 'rollback', 'the same version of another build');
  assert.is(refused(aRelease(6, 'b1'), { current: CURRENT, highest: 7 }).kind, 'rollback', 'below one taken since');
  assert.is(refused(aRelease(3, 'b3'), { current: null, highest: 3 }).kind, 'rollback', 'no build served');
});

judge('should check the format first, then the expiry, then the order', () => {
  const stale = '2020-01-01T00:00:00Z';
  assert.is(refused(aRelease(1, 'b0', { snapshot_format: 1, expires: stale }), HOLDING).kind, 'format');
  assert.is(refused(aRelease(1, 'b0', { expires: stale }), HOLDING).kind, 'expired');
});

const reason = suite('expiredReason');

reason('should say nothing of a build made here, or of a release still fresh', () => {
  assert.is(expiredReason(null, NOW), null);
  assert.is(expiredReason(CURRENT, NOW), null);
  assert.is(expiredReason(aRelease(5, 'b1', { expires: new Date(NOW + 1).toISOString() }), NOW), null);
});

reason('should say which build expired when, and what to do, from the moment it expires', () => {
  const expires = new Date(NOW).toISOString();
  const text = expiredReason(aRelease(5, 'b1', { expires }), NOW);
  assert.is(
    text,
    `the release of the served build b1 (release 5) expired at ${expires}, and the origin offers no newer one: ` +
      'publish again',
  );
  assert.ok(expiredReason(aRelease(5, 'b1', { expires: '2020-01-01T00:00:00Z' }), NOW));
});

judge.run();
reason.run();
