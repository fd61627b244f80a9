import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const waiting = suite('Waiting');

waiting('should give every command waiting for its reply one hidden class, however it is made and whatever it then holds (V8 says so with --allow-natives-syntax)', () => {
  // Made as literals spread from each command's own fields, they had a class of their own each,
  // which cost V8 a runtime call a field (src/redis/waiting.ts says the figure).
  const source = [
    `import { Waiting } from '${new URL('../../../../src/redis/waiting.ts', import.meta.url).href}';`,
    'const none = () => {};',
    'const made = [',
    "  new Waiting('EVALSHA', none, none, { args: ['EVALSHA', 'sha', 0], source: 'return 1' }, true),",
    "  new Waiting('SCRIPT', none, none),",
    "  new Waiting('GET', none, none, undefined, false),",
    "  new Waiting('WAIT', none, none),",
    "  new Waiting('EVAL', none, none, undefined, true),",
    '];',
    "made[0].reply = ['a', 1]; made[1].reply = 5; made[2].sentAt = 12.5; made[3].reply = null;",
    'console.log(JSON.stringify(made.map((w) => %HaveSameMap(w, made[0]))));',
  ].join('\n');
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '--eval', source], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout.trim().split('\n').at(-1)!), [true, true, true, true, true]);
});

waiting.run();
