import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TurnMemo } from '../../../../src/lib/turn-memo.ts';

const memo = suite('TurnMemo');

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

memo('should compute a value once in a turn, null included, and again in the next turn', async () => {
  const computed: string[] = [];
  const lengths = new TurnMemo((text) => {
    computed.push(text);
    return text.startsWith('x') ? null : text.length;
  });
  assert.is(lengths.get('abc'), 3);
  assert.is(lengths.get('abc'), 3);
  assert.is(lengths.get('xyz'), null);
  assert.is(lengths.get('xyz'), null);
  assert.equal(computed, ['abc', 'xyz'], 'each text once in the turn, a null remembered as well');
  await nextTurn();
  assert.is(lengths.get('abc'), 3);
  assert.equal(computed, ['abc', 'xyz', 'abc'], 'forgotten at the turn`s end');
});

memo('should hold nothing past the turn, however many texts it was given', async () => {
  const memoized = new TurnMemo((text) => text.toUpperCase());
  for (let i = 0; i < 10_000; i++) memoized.get(`key-${i}`);
  assert.is(memoized.size, 10_000);
  await nextTurn();
  assert.is(memoized.size, 0);
});

memo.run();
