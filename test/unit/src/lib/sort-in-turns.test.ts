import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sortInTurns } from '../../../../src/lib/sort-in-turns.ts';

const sorting = suite('sortInTurns');

const random = (n: number, seed = 7) => {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return `user:org${x % 997}/u${x % 100_003}`;
  });
};

sorting('sorts as Array.prototype.sort does, at every size around its runs', async () => {
  for (const n of [0, 1, 1023, 1024, 1025, 4096, 12_289, 40_000]) {
    const items = random(n, n + 1);
    assert.equal(await sortInTurns(items.slice()), items.slice().sort(), `${n} strings`);
  }
});

sorting('sorts by a comparison as Array.prototype.sort does, stable: equal items keep their order', async () => {
  const items = random(30_000).map((scope, i) => ({ scope, org: scope.slice(0, scope.indexOf('/')), i }));
  const byOrg = (a: { org: string }, b: { org: string }) => (a.org < b.org ? -1 : a.org > b.org ? 1 : 0);
  assert.equal(await sortInTurns(items.slice(), byOrg), items.slice().sort(byOrg));
});

sorting('gives the loop back between runs and merges, once its slice has gone by', async () => {
  let pauses = 0;
  const pause = () => {
    pauses++;
    return Promise.resolve();
  };
  await sortInTurns(random(100_000), undefined, { pause, sliceMs: 0 });
  assert.ok(pauses > 10, `${pauses} pauses`);
});

sorting.run();
