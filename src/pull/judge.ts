/**
 * Whether a release the origin offers is taken, pure: the checks of src/shared/release.ts's header
 * that are not the signature's (openRelease does that), against what this server holds. Throws
 * ReleaseRefused naming the check; otherwise says what taking it means.
 */
import { ReleaseRefused, type Release } from '../shared/release.ts';

export interface Holding {
  /** The release of the build being served, when it came from an origin (null: built here). */
  current: Release | null;
  /** The highest version of any release this server has taken: none below it is taken again. */
  highest: number;
}

/**
 * `pull`: a build not served yet; `renew`: the served build, signed again (a later version, a later
 * expiry); `none`: nothing new.
 */
export type Verdict = 'pull' | 'renew' | 'none';

export function judgeRelease(release: Release, holding: Holding, now: number, snapshotFormat: number): Verdict {
  const { current, highest } = holding;
  if (current && release.version === current.version && release.build_id === current.build_id) return 'none';
  const named = `release ${release.version} (build ${release.build_id})`;
  if (release.snapshot_format !== snapshotFormat)
    throw new ReleaseRefused(
      'format',
      `${named} is of snapshot format ${release.snapshot_format}; this server reads format ${snapshotFormat} ` +
        '(upgrade it, or publish with a build of its version)',
    );
  const expires = Date.parse(release.expires);
  if (!(expires > now)) throw new ReleaseRefused('expired', `${named} expired at ${release.expires}`);
  if (release.version <= highest)
    throw new ReleaseRefused(
      'rollback',
      `${named} is not newer than release ${highest}, which this server has taken already (a rollback, or a replay)`,
    );
  return current && release.build_id === current.build_id ? 'renew' : 'pull';
}

/** Why the served build's own release is no longer fresh, or null while it is (or the build was made here). */
export function expiredReason(current: Release | null, now: number): string | null {
  if (!current || Date.parse(current.expires) > now) return null;
  return (
    `the release of the served build ${current.build_id} (release ${current.version}) expired at ${current.expires}, ` +
    'and the origin offers no newer one: publish again'
  );
}
