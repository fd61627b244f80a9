import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readsToParse, requestHeads, type HeldRead } from '../../../../src/http/first-read.ts';

const heads = suite('requestHeads');

const get = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

heads('should count each request head ended by an empty line', () => {
  assert.is(requestHeads(Buffer.from(get), 100), 1);
  assert.is(requestHeads(Buffer.from(get.repeat(50)), 100), 50);
});

heads('should count a head not yet ended as none, and a body after a head as nothing more', () => {
  assert.is(requestHeads(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n'), 100), 0);
  assert.is(requestHeads(Buffer.from('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'), 100), 1);
});

heads('should stop counting at the bound', () => {
  assert.is(requestHeads(Buffer.from(get.repeat(50)), 5), 5);
});

heads.run();

const parse = suite('readsToParse');

const limits = { firstReadBudget: 100, firstReadWaitMs: 1000 };
const NOW = 10_000;
const read = (heads: number, since = NOW): HeldRead => ({ heads, since });

parse('should parse nothing in a turn that accepted a connection, but what has waited its longest', () => {
  assert.is(readsToParse([read(50), read(50)], true, NOW, limits), 0);
  assert.is(readsToParse([read(50, NOW - 1000), read(50, NOW - 999)], true, NOW, limits), 1);
});

parse('should parse the oldest up to the budget of request heads once no connection came in', () => {
  assert.is(readsToParse([read(50), read(50), read(50)], false, NOW, limits), 2);
  assert.is(readsToParse([read(40), read(70)], false, NOW, limits), 1);
});

parse('should parse one read a turn however many heads it holds, and none of an empty list', () => {
  assert.is(readsToParse([read(1000), read(1)], false, NOW, limits), 1);
  assert.is(readsToParse([], false, NOW, limits), 0);
});

parse.run();
