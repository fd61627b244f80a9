/** How a Redis command fails: the connection (it may or may not have run), or Redis's own error reply. */

/** The connection is down or a reply did not come in time: the command may or may not have run. */
export class RedisUnavailable extends Error {}
/** Redis answered the command with an error. */
export class RedisCommandError extends Error {}
