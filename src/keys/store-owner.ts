/**
 * Whose the key store's files are, kept by the keys command. The server reads `keys.json` as its
 * own user (the systemd unit's `User=`): a rewrite by root must give the new file back to that
 * user before it replaces the old one, or the server can no longer read its keys; and a user who
 * could not give it that owner must not rewrite it at all.
 */
import { describeUser, ownershipOf, processOwner, userArgument, type Ownership } from '../shared/file-owner.ts';
import type { Keep } from '../shared/state-files.ts';
import { KeyStoreError, keysPath } from './record.ts';

/**
 * The owner and mode the store's files keep: `keys.json`'s, else the state folder's (mode 0600
 * then); null for a store not made yet.
 */
export function storeOwnership(stateDir: string): Ownership | null {
  const file = ownershipOf(keysPath(stateDir));
  if (file) return file;
  const folder = ownershipOf(stateDir);
  return folder && { ...folder, mode: 0o600 };
}

/**
 * The store's owner as this process can see it: a user who cannot look inside the folder finds the
 * folder's; null when not even that.
 */
function visibleOwnership(stateDir: string): Ownership | null {
  try {
    return storeOwnership(stateDir);
  } catch {
    try {
      return ownershipOf(stateDir);
    } catch {
      return null; // the write that follows fails and says why
    }
  }
}

/**
 * What the files this process writes into the store must keep (owner, mode), decided before
 * anything is written. Throws KeyStoreError naming the user to run as when this process cannot
 * give them the store's owner: only root gives files away.
 */
export function keepForWrites(stateDir: string): Keep {
  const me = processOwner();
  const owned = visibleOwnership(stateDir);
  if (!me || !owned) return {}; // a new store is the writer's
  const keep: Keep = { mode: owned.mode & 0o777 };
  if (owned.uid === me.uid && owned.gid === me.gid) return keep;
  if (me.uid !== 0 && owned.uid !== me.uid) {
    const user = userArgument(owned.uid);
    throw new KeyStoreError(
      `the key store in ${stateDir} belongs to ${describeUser(owned.uid)}, and this keys command runs as ` +
        `${describeUser(me.uid)}, ` +
        `who cannot give the files it rewrites that owner (the server reads them as it); nothing was changed. ` +
        `Run the keys command as ${user}: runuser -u ${user} -- <the same command>, or sudo -u ${user} <the same ` +
        `command>`,
    );
  }
  // Root gives any owner; the owner itself may only keep a group it is in (chown refuses otherwise).
  return { ...keep, owner: { uid: owned.uid, gid: owned.gid } };
}
