import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodingsFor, etagMatches, rankEncodings } from '../../../../src/http/negotiate.ts';
import type { Encoding } from '../../../../src/shared/manifest.ts';

/** The encoding sent: the first acceptable one, or null when the client refuses all three. */
function chooseEncoding(header: string | undefined): Encoding | null {
  return rankEncodings(header)[0] ?? null;
}

const encoding = suite('rankEncodings: the encoding sent');

encoding('should prefer br over gzip over identity when all are equally welcome', () => {
  assert.is(chooseEncoding('gzip, deflate, br'), 'br');
  assert.is(chooseEncoding('gzip, deflate'), 'gzip');
  assert.is(chooseEncoding('deflate'), 'identity');
});

encoding('should send identity when the header is absent or empty', () => {
  assert.is(chooseEncoding(undefined), 'identity');
  assert.is(chooseEncoding(''), 'identity');
});

encoding('should follow q-values over the default preference', () => {
  assert.is(chooseEncoding('br;q=0.5, gzip;q=0.9'), 'gzip');
  assert.is(chooseEncoding('br;q=0.2, identity;q=0.9'), 'identity');
});

encoding('should never send an encoding rated q=0', () => {
  assert.is(chooseEncoding('br;q=0, gzip'), 'gzip');
  assert.is(chooseEncoding('br;q=0, gzip;q=0'), 'identity');
  assert.is(chooseEncoding('*;q=0, gzip;q=0.1'), 'gzip');
});

encoding('should keep the highest rating of an encoding named twice, whichever comes last', () => {
  assert.is(chooseEncoding('br;q=1, gzip;q=0.5, br;q=0'), 'br');
  assert.is(chooseEncoding('br;q=0, gzip;q=0.5, br;q=1'), 'br');
  assert.is(chooseEncoding('gzip;q=0.9, br;q=0.8, gzip;q=0.1'), 'gzip');
});

encoding('should give null when every encoding is refused', () => {
  assert.is(chooseEncoding('identity;q=0'), null);
  assert.is(chooseEncoding('*;q=0'), null);
});

encoding('should let * stand for the encodings not named', () => {
  assert.is(chooseEncoding('*'), 'br');
  assert.is(chooseEncoding('gzip;q=1, *;q=0.5'), 'gzip');
});

encoding('should read names case-insensitively and tolerate odd spacing and bad q', () => {
  assert.is(chooseEncoding(' GZIP ; Q=1 ,  BR;q=0.1'), 'gzip');
  assert.is(chooseEncoding('br;q=abc, gzip'), 'gzip');
});

encoding('should rank every acceptable encoding, the ones that stand in for a corrupt variant after the first', () => {
  assert.equal(rankEncodings('gzip, deflate, br'), ['br', 'gzip', 'identity']);
  assert.equal(rankEncodings('gzip;q=0.5, br;q=0.8'), ['br', 'gzip', 'identity']);
  assert.equal(rankEncodings('br, identity;q=0'), ['br']);
  assert.equal(rankEncodings('identity;q=1, gzip;q=0.5'), ['identity', 'gzip']);
  assert.equal(rankEncodings(undefined), ['identity']);
  assert.equal(rankEncodings('*;q=0'), []);
});

encoding.run();

const conditional = suite('etagMatches');

conditional('should match the same tag', () => {
  assert.ok(etagMatches('"abc-br"', '"abc-br"'));
});

conditional('should match any tag of a list', () => {
  assert.ok(etagMatches('"x", "abc-br" , "y"', '"abc-br"'));
});

conditional('should compare weakly (a W/ tag matches its strong twin)', () => {
  assert.ok(etagMatches('W/"abc-br"', '"abc-br"'));
});

conditional('should match * against anything', () => {
  assert.ok(etagMatches('*', '"abc"'));
});

conditional('should not match another variant of the same body', () => {
  assert.not.ok(etagMatches('"abc"', '"abc-br"'));
  assert.not.ok(etagMatches(undefined, '"abc"'));
});

conditional.run();

const remembered = suite('encodingsFor');

remembered('should choose as chooseEncoding does, for values seen once or many times', () => {
  for (const value of ['gzip, deflate, br', 'br;q=0, gzip', 'deflate', '*;q=0', 'identity;q=0, br;q=0', undefined, '']) {
    for (let i = 0; i < 3; i++) assert.equal(encodingsFor(value), rankEncodings(value), String(value));
  }
});

remembered('should still choose right past the bound of remembered values', () => {
  for (let i = 0; i < 1000; i++) assert.equal(encodingsFor(`x-${i}, gzip;q=0.${(i % 9) + 1}`), ['gzip', 'identity']);
  assert.equal(encodingsFor('br;q=0, gzip'), ['gzip', 'identity']);
  assert.equal(encodingsFor(`${'a'.repeat(300)}, br`), ['br', 'identity']);
});

remembered.run();
