/** Every Redis key (a name in Redis's keyspace) this server writes starts so, to share a Redis with other programs. */
export const REDIS_PREFIX = 'bda:';
