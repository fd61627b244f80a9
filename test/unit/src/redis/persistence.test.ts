import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisCommandError } from '../../../../src/redis/client.ts';
import { parseInfo } from '../../../../src/redis/info.ts';
import { persistenceProblem } from '../../../../src/redis/persistence.ts';

const persistence = suite('Redis persistence: INFO persistence and the save points');

// As redis-server 7 answers INFO persistence (shortened).
const info = (aof: '0' | '1') => parseInfo(['# Persistence', 'loading:0', 'rdb_changes_since_last_save:3', `aof_enabled:${aof}`, 'aof_rewrite_in_progress:0', ''].join('\r\n'));
const LABEL = '10.0.0.9:6379/0';

persistence('should say nothing with AOF on, whatever the save points, or with save points and AOF off', () => {
  assert.is(persistenceProblem(info('1'), '', LABEL), null);
  assert.is(persistenceProblem(info('1'), new RedisCommandError('redis CONFIG: NOPERM no'), LABEL), null);
  assert.is(persistenceProblem(info('0'), '3600 1 300 100 60 10000', LABEL), null);
});

persistence('should report AOF off and no save points, naming what a restart loses and the fix', () => {
  const problem = persistenceProblem(info('0'), '', LABEL);
  assert.match(problem!, `Redis at ${LABEL} keeps nothing on disk (appendonly no, no save points): a restart loses every key and quota window`);
  assert.match(problem!, '`appendonly yes`');
  assert.is(persistenceProblem(info('0'), ' ', LABEL), problem, 'blank save points are none');
});

persistence('should say it cannot tell, not guess, when CONFIG GET save is refused and AOF is off', () => {
  const problem = persistenceProblem(info('0'), new RedisCommandError("redis CONFIG: NOPERM this user has no permissions to run the 'config|get' command"), LABEL);
  assert.match(problem!, `cannot tell whether Redis at ${LABEL} keeps its data across a restart: AOF is off and it refused CONFIG GET save (NOPERM this user`);
  assert.not.match(problem!, 'keeps nothing on disk');
});

persistence.run();
