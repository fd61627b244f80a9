import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRedisUrl } from '../../../../src/redis/client.ts';
import { encodeCommand, RespError, RespParser, RespProtocolError, type Reply } from '../../../../src/redis/resp.ts';

/** Feed the bytes in the given pieces; every reply parsed, in order. */
function parse(...chunks: (string | Buffer)[]): Reply[] {
  const replies: Reply[] = [];
  const parser = new RespParser((reply) => replies.push(reply));
  for (const chunk of chunks) parser.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return replies;
}

/** Every byte on its own: any reply must survive being split anywhere. */
function byteByByte(text: string): Reply[] {
  const bytes = Buffer.from(text);
  return parse(...Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
}

const encode = suite('encodeCommand');

encode('should send every argument as a bulk string with its length in bytes', () => {
  assert.is(encodeCommand(['SET', 'k', 'é€', 12]), '*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\né€\r\n$2\r\n12\r\n');
  assert.is(encodeCommand(['GET', '']), '*2\r\n$3\r\nGET\r\n$0\r\n\r\n');
});

encode.run();

const parser = suite('RespParser');

parser('should read simple strings, integers, bulk strings and errors', () => {
  assert.equal(parse('+OK\r\n:42\r\n:-3\r\n$5\r\nhello\r\n-ERR wrong type\r\n'), ['OK', 42, -3, 'hello', new RespError('ERR wrong type')]);
});

parser('should read null bulk strings and null arrays as null, and empty ones as empty', () => {
  assert.equal(parse('$-1\r\n*-1\r\n$0\r\n\r\n*0\r\n'), [null, null, '', []]);
});

parser('should read nested arrays with an error and a null inside, leaving the neighbours intact', () => {
  const text = '*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n-NOSCRIPT No matching script\r\n';
  assert.equal(parse(text), [[1, ['a', null], new RespError('NOSCRIPT No matching script')]]);
});

parser('should wait for the rest of a reply split anywhere, even inside CRLF or a multi-byte character', () => {
  const text = '*2\r\n$6\r\nnaïve\r\n:7\r\n+PONG\r\n';
  assert.equal(byteByByte(text), [['naïve', 7], 'PONG']);
  assert.equal(parse('$10\r\n01234', '56789\r', '\n'), ['0123456789']);
  assert.equal(parse('*2\r\n:1\r\n'), [], 'half an array is not a reply yet');
});

parser('should keep bulk strings that contain CRLF whole', () => {
  assert.equal(parse('$4\r\na\r\nb\r\n'), ['a\r\nb']);
});

parser('should hand over several replies that came in one chunk, in order', () => {
  const many = Array.from({ length: 100 }, (_, i) => `:${i}\r\n`).join('');
  assert.equal(parse(many), Array.from({ length: 100 }, (_, i) => i));
});

parser('should refuse bytes that are not RESP', () => {
  assert.throws(() => parse('?what\r\n'), (error: unknown) => error instanceof RespProtocolError);
  assert.throws(() => parse('$abc\r\n'), (error: unknown) => error instanceof RespProtocolError);
  for (const bad of [':\r\n', ':-\r\n', ':12x\r\n', '*1 \r\n', ':1\r:2\r\n', ':--1\r\n'])
    assert.throws(() => parse(bad), (error: unknown) => error instanceof RespProtocolError && error.message.startsWith('bad length'), JSON.stringify(bad));
  assert.equal(parse(':12x'), [], 'a bad integer is told once its line is whole, as any line');
});

parser('should read integers of any sign and size as Number reads their text', () => {
  const texts = ['0', '-0', '7', '-42', '007', '9007199254740991', '9007199254740993', '-123456789012345678', '18446744073709551615'];
  assert.equal(parse(...texts.map((t) => `:${t}\r\n`)), texts.map(Number));
  assert.equal(byteByByte(':-9007199254740993\r\n*1\r\n:12\r\n'), [-9007199254740993, [12]]);
});

parser('should read a long array in many small chunks whole, in order, its nested arrays and long strings too', () => {
  const items: [string, string[]][] = Array.from({ length: 20_000 }, (_, i) => [`${i}-0`, ['n', String(i), 'id', `key_${i}`]]);
  const long = 'x'.repeat(300_000);
  let text = `*${items.length}\r\n`;
  for (const [at, fields] of items) text += `*2\r\n$${at.length}\r\n${at}\r\n*4\r\n${fields.map((f) => `$${f.length}\r\n${f}\r\n`).join('')}`;
  text += `$${long.length}\r\n${long}\r\n:5\r\n`;
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 1000) chunks.push(bytes.subarray(at, at + 1000));
  const replies = parse(...chunks);
  assert.is(replies.length, 3);
  assert.equal(replies[0], items);
  assert.ok(replies[1] === long, 'the long string, whole');
  assert.is(replies[2], 5);
});

parser('should forget a partial reply on reset', () => {
  const replies: Reply[] = [];
  const p = new RespParser((reply) => replies.push(reply));
  p.push(Buffer.from('$5\r\nhel'));
  p.reset();
  p.push(Buffer.from(':1\r\n'));
  p.push(Buffer.from('*3\r\n:1\r\n*2\r\n:2\r\n'));
  p.reset();
  p.push(Buffer.from('*1\r\n:3\r\n'));
  assert.equal(replies, [1, [3]], 'an array half read is forgotten too');
});

parser.run();

const url = suite('parseRedisUrl');

url('should read host, port, database and credentials, and keep the password out of the label', () => {
  assert.equal(parseRedisUrl('redis://10.0.0.5:6380/2'), { host: '10.0.0.5', port: 6380, db: 2, username: null, password: null, tls: null, label: '10.0.0.5:6380/2' });
  const secret = parseRedisUrl('redis://app:s%40cret@cache.internal');
  assert.equal([secret.username, secret.password, secret.port, secret.db], ['app', 's@cret', 6379, 0]);
  assert.not.ok(secret.label.includes('cret'));
  assert.is(parseRedisUrl('redis://[::1]:7000').label, '[::1]:7000/0');
});

url('should read rediss:// as TLS with the files given (none: the system roots), the label the same as for redis://', () => {
  const files = { ca: Buffer.from('ca'), cert: null, key: null };
  const tls = parseRedisUrl('rediss://:pw@10.0.0.5:6380/2', files);
  assert.equal([tls.host, tls.port, tls.db, tls.password, tls.label], ['10.0.0.5', 6380, 2, 'pw', '10.0.0.5:6380/2']);
  assert.is(tls.tls, files);
  assert.equal(parseRedisUrl('rediss://cache.internal').tls, { ca: null, cert: null, key: null });
  assert.is(parseRedisUrl('redis://cache.internal', files).tls, null, 'redis:// is plain TCP whatever is given');
});

url('should refuse what is not a Redis URL, saying why', () => {
  assert.throws(() => parseRedisUrl('localhost:6379'), /redis:\/\//);
  assert.throws(() => parseRedisUrl('http://localhost:6379'), /starts with redis:\/\/ \(or rediss:\/\/ for TLS\)/);
  assert.throws(() => parseRedisUrl('redis://localhost/db1'), /database is a number/);
  assert.throws(() => parseRedisUrl('redis://localhost/1?x=y'), /no query/);
});

url.run();
