import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evictionPolicyProblem } from '../../../../src/redis/health.ts';
import { parseInfo } from '../../../../src/redis/info.ts';

const health = suite('Redis health: INFO and the eviction policy');

// As redis-server 7 answers INFO memory (shortened), with its \r\n line ends.
const INFO = ['# Memory', 'used_memory:1083904', 'used_memory_human:1.03M', 'maxmemory:0', 'maxmemory_human:0B', 'maxmemory_policy:noeviction', 'mem_allocator:jemalloc-5.3.0', ''].join('\r\n');

health('should read INFO fields, skipping section headers and blank lines, keeping colons in values', () => {
  const fields = parseInfo(`${INFO}\r\n# Server\r\nexecutable:/usr/bin/redis-server\r\nconfig_file:\r\nlist:a:b\r\n`);
  assert.is(fields.get('maxmemory_policy'), 'noeviction');
  assert.is(fields.get('used_memory'), '1083904');
  assert.is(fields.get('config_file'), '');
  assert.is(fields.get('list'), 'a:b');
  assert.not.ok(fields.has('# Memory'));
  assert.not.ok(fields.has(''));
  assert.is(parseInfo('maxmemory_policy:allkeys-lru\n').get('maxmemory_policy'), 'allkeys-lru', 'bare \\n line ends too');
});

health('should accept noeviction and refuse every other policy, naming it and the fix', () => {
  assert.is(evictionPolicyProblem(parseInfo(INFO), '10.0.0.9:6379/0'), null);
  for (const policy of ['volatile-lru', 'allkeys-lru', 'volatile-ttl', 'allkeys-random', 'volatile-lfu']) {
    const problem = evictionPolicyProblem(parseInfo(INFO.replace('noeviction', policy)), '10.0.0.9:6379/0');
    assert.ok(problem, policy);
    assert.match(problem!, `Redis at 10.0.0.9:6379/0 has maxmemory-policy ${policy}`);
    assert.match(problem!, '`CONFIG SET maxmemory-policy noeviction`');
    assert.match(problem!, '`maxmemory-policy noeviction` in its redis.conf');
  }
});

health('should refuse a Redis that does not report its policy', () => {
  const problem = evictionPolicyProblem(parseInfo('# Memory\r\nused_memory:1\r\n'), 'r:6379/0');
  assert.match(problem!, /did not report maxmemory_policy/);
  assert.match(problem!, /CONFIG SET maxmemory-policy noeviction/);
});

health.run();
