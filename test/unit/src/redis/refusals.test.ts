import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Conditions } from '../../../../src/lib/conditions.ts';
import { RedisCommandError } from '../../../../src/redis/client.ts';
import { conditionName, provenGoneByProbe, refusalCode, Refusals } from '../../../../src/redis/refusals.ts';

const classify = suite('Redis refusals: classifying');
const held = suite('Redis refusals: held per command, reported once');

classify('should class an error by its code, and a refusal inside a script by the code it quotes', () => {
  const cases: [string, string][] = [
    ["redis EVALSHA: READONLY You can't write against a read only replica. script: 1cdb7e, on @user_script:1.", 'READONLY'],
    ["redis SET: READONLY You can't write against a read only replica.", 'READONLY'],
    ['redis EVALSHA: MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.', 'MISCONF'],
    ["redis EVALSHA: OOM command not allowed when used memory > 'maxmemory'. script: a74fc5, on @user_script:10.", 'OOM'],
    ["redis EVAL: NOPERM User bda has no permissions to run the 'eval' command", 'NOPERM'],
    ['redis EVALSHA: NOSCRIPT No matching script. Please use EVAL.', 'NOSCRIPT'],
    ['redis EVALSHA: BUSY Redis is busy running a script.', 'BUSY'],
    // Redis 6 wraps a refusal inside a script in an ERR.
    ["redis EVALSHA: ERR Error running script (call to f_1cdb7e): @user_script:3: @user_script: 3: -READONLY You can't write against a read only replica.", 'READONLY'],
    ['redis EVALSHA: WRONGTYPE Operation against a key holding the wrong kind of value', 'WRONGTYPE'],
    ['redis INCR: ERR value is not an integer or out of range', 'ERR'],
    ['redis GET: something without a code', 'ERR'],
  ];
  for (const [message, code] of cases) assert.is(refusalCode(message), code, message);
});

classify('should let a probe round end what it proves gone, and nothing tied to a command\'s own keys', () => {
  for (const code of ['READONLY', 'MISCONF', 'OOM', 'NOPERM', 'NOSCRIPT', 'BUSY', 'LOADING']) assert.ok(provenGoneByProbe(code), code);
  for (const code of ['WRONGTYPE', 'ERR']) assert.not.ok(provenGoneByProbe(code), code);
});

function watched(): { lines: string[]; conditions: Conditions; refusals: Refusals } {
  const lines: string[] = [];
  const conditions = new Conditions({ begins: (line) => lines.push(`begins ${line}`), ends: (line) => lines.push(`ends ${line}`) });
  return { lines, conditions, refusals: new Refusals(conditions, 'r:6379/0') };
}

const readOnly = (command = 'EVALSHA') => new RedisCommandError(`redis ${command}: READONLY You can't write against a read only replica.`);
const oom = new RedisCommandError("redis EVALSHA: OOM command not allowed when used memory > 'maxmemory'.");

held('should begin once however many requests are refused, and not end while other commands succeed', () => {
  const { lines, conditions, refusals } = watched();
  for (let i = 0; i < 1000; i++) {
    refusals.answered('key lookup');
    refusals.refused('quota status', readOnly());
  }
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^begins not ready: Redis at r:6379\/0 refuses commands \(READONLY\): it is a read-only replica; point --store at the primary \(quota status: READONLY You can't write/);
  assert.equal(conditions.reasons().length, 1);
  assert.ok(conditions.has(conditionName('READONLY')));
  refusals.answered('quota status');
  assert.is(lines.length, 2);
  assert.match(lines[1], /^ends no longer: Redis at r:6379\/0 refuses commands \(READONLY\)/);
  assert.equal(conditions.reasons(), []);
});

held('should end a refusal only when every command refused with its code has succeeded, or a probe proves it gone', () => {
  const { lines, conditions, refusals } = watched();
  refusals.refused('quota take', oom);
  refusals.refused('probe write', new RedisCommandError("redis SET: OOM command not allowed when used memory > 'maxmemory'."));
  refusals.answered('quota take');
  assert.ok(conditions.has(conditionName('OOM')), 'the probe is still refused');
  refusals.refused('quota take', oom);
  refusals.probeSucceeded();
  assert.not.ok(conditions.has(conditionName('OOM')));
  assert.equal(refusals.codes(), []);
  assert.is(lines.length, 2);
});

held('should keep a refusal a probe cannot speak for until its own command succeeds', () => {
  const { conditions, refusals } = watched();
  refusals.refused('quota take', new RedisCommandError('redis EVALSHA: WRONGTYPE Operation against a key holding the wrong kind of value'));
  refusals.refused('key lookup', readOnly());
  refusals.probeSucceeded();
  assert.equal(refusals.codes(), ['WRONGTYPE']);
  assert.ok(conditions.has(conditionName('WRONGTYPE')));
  refusals.answered('quota take');
  assert.equal(conditions.reasons(), []);
});

held('should report each code as its own condition, and move a command from one code to another', () => {
  const { conditions, refusals } = watched();
  refusals.refused('quota take', oom);
  refusals.refused('key lookup', readOnly());
  assert.is(conditions.reasons().length, 2);
  refusals.refused('quota take', readOnly());
  assert.not.ok(conditions.has(conditionName('OOM')), 'no command is refused with OOM any more');
  assert.ok(conditions.has(conditionName('READONLY')));
});

classify.run();
held.run();
