import { BlockList, isIP } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AddressSet, ipv4Word, ipWords } from '../../../../src/lib/address-set.ts';
import { seededRandom } from '../../../helpers/random.ts';
import { throwsWith } from '../../../helpers/throws.ts';

const words = suite('ipWords: an address as four 32-bit words');

words('should read IPv4 as its IPv4-mapped IPv6 form, the same words as that form written out', () => {
  assert.equal(ipWords('127.0.0.1'), [0, 0, 0xffff, 0x7f000001]);
  assert.equal(ipWords('::ffff:127.0.0.1'), [0, 0, 0xffff, 0x7f000001], 'as a dual-stack socket reports it');
  assert.equal(ipWords('::FFFF:7f00:1'), [0, 0, 0xffff, 0x7f000001], 'in hex groups');
  assert.equal(ipWords('255.255.255.255'), [0, 0, 0xffff, 0xffffffff]);
  assert.is(ipv4Word('10.0.0.1'), 0x0a000001);
});

words('should read IPv6 with and without ::, an IPv4 tail and a zone', () => {
  assert.equal(ipWords('::'), [0, 0, 0, 0]);
  assert.equal(ipWords('::1'), [0, 0, 0, 1]);
  assert.equal(ipWords('2001:db8::'), [0x20010db8, 0, 0, 0]);
  assert.equal(ipWords('2001:DB8:0:0:1:2:3:4'), [0x20010db8, 0, 0x00010002, 0x00030004]);
  assert.equal(ipWords('1:2:3:4:5:6:7::'), [0x00010002, 0x00030004, 0x00050006, 0x00070000]);
  assert.equal(ipWords('64:ff9b::192.0.2.1'), [0x0064ff9b, 0, 0, 0xc0000201]);
  assert.equal(ipWords('fe80::1%eth0'), [0xfe800000, 0, 0, 1]);
});

words('should refuse what is not an address', () => {
  const junk = ['', ' ', 'unknown', '_hidden', 'localhost', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.2.3.4', '1..2.3',
    '1.2.3.4 ', '1.2.3.4:80', '[::1]', ':1', '1:', '1:::2', '1::2::3', '12345::', 'gggg::', '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:1.2.3.4', '::1.2.3', 'fe80::1%', '%eth0', '::ffff:1.2.3.256'];
  for (const text of junk) assert.is(ipWords(text), null, JSON.stringify(text));
});

words('should take exactly the texts node:net takes, on many random ones', () => {
  const next = seededRandom(51);
  const alphabet = '0123456789abcdefABCDEF:::...%z';
  for (let i = 0; i < 50_000; i++) {
    let text = '';
    for (let length = Math.floor(next() * 20); length > 0; length--) text += alphabet[Math.floor(next() * alphabet.length)];
    assert.is(ipWords(text) !== null, isIP(text) !== 0, JSON.stringify(text));
  }
});

words('should give the address node:net reads, compressed any way', () => {
  const next = seededRandom(52);
  const hex = (words: readonly number[]) => words.flatMap((w) => [w >>> 16, w & 0xffff]).map((g) => g.toString(16)).join(':');
  for (let i = 0; i < 2000; i++) {
    const groups = Array.from({ length: 8 }, () => (next() < 0.3 ? '0' : Math.floor(next() * 65536).toString(16)));
    const from = Math.floor(next() * 8);
    const to = from + 1 + Math.floor(next() * (8 - from));
    const text = next() < 0.5 ? groups.join(':') : `${groups.slice(0, from).join(':')}::${groups.slice(to).join(':')}`;
    const read = ipWords(text);
    assert.ok(read, text);
    const list = new BlockList();
    list.addAddress(text, 'ipv6');
    assert.ok(list.check(hex(read), 'ipv6'), `${text} read as ${hex(read)}`);
  }
});

words.run();

const set = suite('AddressSet: the blocks --trust-proxy names');

set('should hold the addresses of its blocks, IPv4 in either form, and nothing else', () => {
  const trusted = AddressSet.parse('10.0.0.0/8, 192.168.1.7,2001:db8::/32');
  for (const inside of ['10.0.0.1', '10.255.255.255', '::ffff:10.1.2.3', '192.168.1.7', '::ffff:192.168.1.7', '2001:db8::1', '2001:db8:ffff::'])
    assert.ok(trusted.has(inside), inside);
  for (const outside of ['11.0.0.1', '9.255.255.255', '192.168.1.8', '::ffff:192.168.1.6', '2001:db9::1', '::1', '127.0.0.1', 'unknown', '', '10.0.0.1:80'])
    assert.not.ok(trusted.has(outside), outside);
  assert.equal(trusted.written, ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32']);
});

set('should take loopback for 127.0.0.0/8 and ::1', () => {
  const loopback = AddressSet.parse('loopback');
  for (const inside of ['127.0.0.1', '127.1.2.3', '::ffff:127.0.0.1', '::1']) assert.ok(loopback.has(inside), inside);
  for (const outside of ['128.0.0.1', '::2', '::', '10.0.0.1']) assert.not.ok(loopback.has(outside), outside);
});

set('should drop the bits past a prefix, and take /0 and an IPv4-mapped block', () => {
  assert.ok(AddressSet.parse('10.1.2.3/8').has('10.200.0.1'));
  assert.ok(AddressSet.parse('0.0.0.0/0').has('203.0.113.9'));
  assert.not.ok(AddressSet.parse('0.0.0.0/0').has('2001:db8::1'), 'every IPv4 address, no IPv6 one');
  assert.ok(AddressSet.parse('::/0').has('203.0.113.9'), 'every address');
  assert.ok(AddressSet.parse('::ffff:10.0.0.0/104').has('10.9.9.9'), 'the mapped form of 10.0.0.0/8');
});

set('should refuse what is not an address, a block or loopback, naming it', () => {
  throwsWith(() => AddressSet.parse(''), Error, /at least one/);
  throwsWith(() => AddressSet.parse(' , '), Error, /at least one/);
  throwsWith(() => AddressSet.parse('10.0.0.0/8,nginx.internal'), Error, /^"nginx\.internal" is not an IP address, a CIDR block or loopback$/);
  throwsWith(() => AddressSet.parse('10.0.0.0/33'), Error, /"10\.0\.0\.0\/33": the prefix length must be 0 to 32/);
  throwsWith(() => AddressSet.parse('::/129'), Error, /0 to 128/);
  throwsWith(() => AddressSet.parse('10.0.0.0/'), Error, /prefix length/);
  throwsWith(() => AddressSet.parse('10.0.0.0/8/8'), Error, /prefix length/);
  throwsWith(() => AddressSet.parse('10.0.0.0/-1'), Error, /prefix length/);
});

set("should agree with node:net's BlockList on random addresses", () => {
  const next = seededRandom(53);
  const blocks: [string, number, 'ipv4' | 'ipv6'][] = [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.0.2.128', 25, 'ipv4'], ['2001:db8::', 32, 'ipv6'], ['fd00::', 8, 'ipv6'], ['2001:db8:1:2::', 64, 'ipv6']];
  const trusted = AddressSet.parse(blocks.map(([address, bits]) => `${address}/${bits}`).join(','));
  const list = new BlockList();
  for (const [address, bits, type] of blocks) list.addSubnet(address, bits, type);
  const byte = () => Math.floor(next() * 256);
  const group = () => Math.floor(next() * 65536).toString(16);
  const near = <T>(choices: T[]) => choices[Math.floor(next() * choices.length)];
  for (let i = 0; i < 20_000; i++) {
    const ipv4 = [near([10, 172, 192, byte()]), near([0, 16, 31, 32, byte()]), near([0, 2, byte()]), byte()].join('.');
    const ipv6 = [near(['2001', 'fd00', 'fdff', 'fe00', group()]), near(['db8', 'db9', group()]), near(['1', group()]), near(['2', group()]), group(), group(), group(), group()].join(':');
    for (const [address, type] of [[ipv4, 'ipv4'], [`::ffff:${ipv4}`, 'ipv6'], [ipv6, 'ipv6']] as const)
      assert.is(trusted.has(address), list.check(address, type), address);
  }
});

set.run();
