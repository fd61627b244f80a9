import type { IncomingMessage } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { forwardedClient, forwardedHttps, hopOf, MOST_HOPS, proxiesOf } from '../../../../src/http/forwarded.ts';
import { AddressSet } from '../../../../src/lib/address-set.ts';

const PROXIES = AddressSet.parse('loopback,10.0.0.0/8');
const client = (peer: string, header: string | string[] | undefined) => forwardedClient(peer, header, PROXIES);

const walk = suite('forwardedClient: the client behind trusted proxies');

walk('should be the peer when the peer is not a trusted proxy, whatever the header says', () => {
  assert.is(client('203.0.113.9', '198.51.100.1'), '203.0.113.9');
  assert.is(client('203.0.113.9', '10.0.0.1'), '203.0.113.9');
  assert.is(client('203.0.113.9', undefined), '203.0.113.9');
});

walk('should be the peer when a trusted proxy sends no header', () => {
  assert.is(client('127.0.0.1', undefined), '127.0.0.1');
  assert.is(client('::ffff:127.0.0.1', undefined), '::ffff:127.0.0.1');
});

walk('should be the right-most hop that is not a trusted proxy', () => {
  assert.is(client('127.0.0.1', '198.51.100.1'), '198.51.100.1');
  assert.is(client('::ffff:127.0.0.1', '198.51.100.1'), '198.51.100.1', 'a dual-stack socket\'s peer');
  assert.is(client('::1', '2001:db8::7'), '2001:db8::7');
  // A client's own forged entry is left of the address nginx appended: never reached.
  assert.is(client('127.0.0.1', '6.6.6.6, 198.51.100.1'), '198.51.100.1');
  assert.is(client('127.0.0.1', '6.6.6.6, 198.51.100.1, 10.0.0.2'), '198.51.100.1', 'through two proxies');
});

walk('should be the left-most hop when every hop is a trusted proxy', () => {
  assert.is(client('127.0.0.1', '10.0.0.3, 10.0.0.2'), '10.0.0.3');
});

walk('should stop at a hop that is no address, at the last address a trusted proxy vouched for', () => {
  assert.is(client('127.0.0.1', 'unknown'), '127.0.0.1');
  assert.is(client('127.0.0.1', '198.51.100.1, unknown'), '127.0.0.1', 'nothing left of junk is believed');
  assert.is(client('127.0.0.1', '198.51.100.1, _hidden, 10.0.0.2'), '10.0.0.2');
  for (const junk of ['<script>', 'a'.repeat(5000), '1.2.3.4.5', '999.1.1.1', '"1.2.3.4"', '1.2.3.4:x', '[1.2.3.4]', '[::1', '[::1]x', '::1]'])
    assert.is(client('127.0.0.1', junk), '127.0.0.1', junk.slice(0, 40));
});

walk('should read ports, brackets, space and empty elements, and several headers joined in order', () => {
  assert.is(client('127.0.0.1', '198.51.100.1:4711'), '198.51.100.1');
  assert.is(client('127.0.0.1', '[2001:db8::7]:443'), '2001:db8::7');
  assert.is(client('127.0.0.1', '[2001:db8::7]'), '2001:db8::7');
  assert.is(client('127.0.0.1', ' 198.51.100.1 ,, '), '198.51.100.1');
  assert.is(client('127.0.0.1', ''), '127.0.0.1');
  assert.is(client('127.0.0.1', ',,,'), '127.0.0.1');
  assert.is(client('127.0.0.1', ['6.6.6.6', '198.51.100.1, 10.0.0.2']), '198.51.100.1', 'RFC 9110: one list, in order');
});

walk(`should look at ${MOST_HOPS} elements at most, however long the chain of trusted hops`, () => {
  const trustedChain = Array.from({ length: 2000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
  assert.is(client('127.0.0.1', trustedChain.join(', ')), trustedChain[2000 - MOST_HOPS]);
  assert.is(client('127.0.0.1', `198.51.100.1${','.repeat(5000)}`), '127.0.0.1', 'commas count too');
});

walk.run();

const hops = suite('hopOf and forwardedHttps');

hops('should read an element as an address, without its port or brackets', () => {
  assert.is(hopOf('198.51.100.1')?.address, '198.51.100.1');
  assert.is(hopOf('198.51.100.1:80')?.address, '198.51.100.1');
  assert.is(hopOf('2001:db8::1')?.address, '2001:db8::1');
  assert.is(hopOf('[2001:db8::1]:8080')?.address, '2001:db8::1');
  for (const junk of ['', 'unknown', '1.2.3.4:', '1.2.3.4:123456', '[1.2.3.4]:80', '[]', '[::1]:', 'example.com:80']) assert.is(hopOf(junk), null, junk);
});

hops('should say https only when the last X-Forwarded-Proto value is https', () => {
  assert.ok(forwardedHttps('https'));
  assert.ok(forwardedHttps(' HTTPS '));
  assert.ok(forwardedHttps('http, https'));
  assert.ok(forwardedHttps(['http', 'https']));
  for (const value of [undefined, '', 'http', 'https, http', 'wss', 'https1']) assert.not.ok(forwardedHttps(value), String(value));
});

hops.run();

const readings = suite('proxiesOf: what a listener reads of a request');

function req(peer: string | undefined, headers: Record<string, string> = {}, encrypted = false): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

readings('should read no header without --trust-proxy', () => {
  const { clientOf, overHttps } = proxiesOf(null);
  const forged = { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' };
  assert.is(clientOf(req('127.0.0.1', forged)), '127.0.0.1');
  assert.not.ok(overHttps(req('127.0.0.1', forged)));
  assert.ok(overHttps(req('127.0.0.1', {}, true)), 'a TLS socket speaks HTTPS');
  assert.is(clientOf(req(undefined)), 'unknown', 'a socket already gone');
});

readings('should believe a trusted peer, and only a trusted peer, about the client and its scheme', () => {
  const { clientOf, overHttps } = proxiesOf(PROXIES);
  const sent = { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' };
  assert.is(clientOf(req('127.0.0.1', sent)), '198.51.100.1');
  assert.ok(overHttps(req('127.0.0.1', sent)));
  assert.is(clientOf(req('203.0.113.9', sent)), '203.0.113.9');
  assert.not.ok(overHttps(req('203.0.113.9', sent)));
  assert.not.ok(overHttps(req('127.0.0.1', { 'x-forwarded-proto': 'http' })));
});

readings.run();
