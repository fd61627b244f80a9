import { spawnSync } from 'node:child_process';
import { createHook } from 'node:async_hooks';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tickShaped } from '../../../../src/lib/tick-shape.ts';

const shape = suite('tickShaped');

/** A real entry of process.nextTick's queue, as node hands it to an async hook. */
function realTickEntry(): object {
  let entry: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') entry = resource;
    },
  }).enable();
  process.nextTick(() => {});
  hook.disable();
  assert.ok(entry, 'an async hook sees the tick entry');
  return entry!;
}

const description = (key: string | symbol) => (typeof key === 'symbol' ? `symbol ${key.description}` : key);

shape(
  'should have the keys of a real tick entry, the same symbols, in the same order, with values of the same kinds',
  () => {
    const kept = tickShaped();
    assert.ok(kept, "this node's AsyncResource carries the two id symbols");
    const real = realTickEntry();
    assert.equal(Reflect.ownKeys(kept!).map(description), Reflect.ownKeys(real).map(description));
    for (const key of Reflect.ownKeys(real)) {
      assert.ok(Reflect.ownKeys(kept!).includes(key), `${description(key)} is node's own key, not a look-alike`);
      const [ours, node] = [Reflect.get(kept!, key), Reflect.get(real, key)];
      assert.is(typeof ours, typeof node, `${description(key)}: the same kind of value`);
    }
  },
);

shape('should be made on the very hidden class of tick entries (V8 says so with --allow-natives-syntax)', () => {
  // %HaveSameMap is V8's own answer; it needs a flag this process was not started with.
  const source = [
    "import { createHook } from 'node:async_hooks';",
    `import { tickShaped } from '${new URL('../../../../src/lib/tick-shape.ts', import.meta.url).href}';`,
    'let entry;',
    'const hook = createHook({',
    "  init(id, type, trigger, resource) { if (type === 'TickObject') entry = resource; },",
    '}).enable();',
    'process.nextTick(() => {});',
    'hook.disable();',
    'console.log(JSON.stringify({ same: %HaveSameMap(tickShaped(), entry) }));',
  ].join('\n');
  const run = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '--eval', source],
    { encoding: 'utf8' },
  );
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout.trim().split('\n').at(-1)!), { same: true });
});

shape.run();
