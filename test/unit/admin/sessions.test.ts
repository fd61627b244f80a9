import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AdminSessions, SESSION_ID_PATTERN } from '../../../src/admin/sessions.ts';

const IDLE = 30 * 60_000;
const LIFETIME = 12 * 3_600_000;

function sessions(most = 1000) {
  const clock = { t: Date.UTC(2026, 10, 21, 12), now() { return this.t; } };
  return { clock, sessions: new AdminSessions(clock, { idleMs: IDLE, lifetimeMs: LIFETIME, most }) };
}

const test = suite('AdminSessions');

test('should make a random 43-character base64url id for each session, and find it by that id', () => {
  const { sessions: s } = sessions();
  const ids = new Set(Array.from({ length: 100 }, () => s.open('adm_0123456789ab')));
  assert.is(ids.size, 100);
  for (const id of ids) {
    assert.match(id, SESSION_ID_PATTERN);
    assert.is(Buffer.from(id, 'base64url').length, 32, '256 bits');
    assert.is(s.use(id)?.tokenId, 'adm_0123456789ab');
  }
});

test("should keep the id's SHA-256, never the id", () => {
  const { sessions: s } = sessions();
  const id = s.open('adm_0123456789ab');
  const held = JSON.stringify([...(s as unknown as { live: Map<string, unknown> }).live]);
  assert.not.ok(held.includes(id));
  assert.ok(held.includes(createHash('sha256').update(id).digest('base64url')));
  assert.is(s.use(id)?.digest, createHash('sha256').update(id).digest('base64url'));
});

test('should find nothing for an id never made, a malformed one or none', () => {
  const { sessions: s } = sessions();
  s.open('adm_0123456789ab');
  for (const id of [null, '', 'x', 'A'.repeat(43), 'A'.repeat(44), `bdat_${'A'.repeat(43)}`, `${'A'.repeat(42)}=`]) assert.is(s.use(id), null, String(id));
});

test('should end a session unused for the idle time, and start its idle time again at each use', () => {
  const { clock, sessions: s } = sessions();
  const id = s.open('adm_0123456789ab');
  clock.t += IDLE - 1;
  assert.ok(s.use(id));
  clock.t += IDLE - 1;
  assert.ok(s.use(id));
  clock.t += IDLE;
  assert.is(s.use(id), null);
  assert.is(s.size, 0, 'and forgets it');
  clock.t -= IDLE;
  assert.is(s.use(id), null, 'ended for good, even if the clock steps back');
});

test('should end a session at its lifetime however often it is used', () => {
  const { clock, sessions: s } = sessions();
  const id = s.open('adm_0123456789ab');
  for (let at = IDLE / 2; at < LIFETIME; at += IDLE / 2) {
    clock.t += IDLE / 2;
    assert.ok(s.use(id), `at ${at}`);
  }
  clock.t += IDLE / 2;
  assert.is(s.use(id), null);
});

test('should end one session at sign-out and every session of a token at its revocation', () => {
  const { sessions: s } = sessions();
  const [a, b, c] = [s.open('adm_aaaaaaaaaaaa'), s.open('adm_aaaaaaaaaaaa'), s.open('adm_bbbbbbbbbbbb')];
  s.end(a);
  assert.is(s.use(a), null);
  assert.ok(s.use(b));
  s.endToken('adm_aaaaaaaaaaaa');
  assert.is(s.use(b), null);
  assert.ok(s.use(c), "another token's session stays");
  s.end(null);
  s.end('junk');
  assert.is(s.size, 1);
});

test('should hold at most its cap, ending the least recently used first', () => {
  const { clock, sessions: s } = sessions(3);
  const [a, b, c] = [s.open('adm_0123456789ab'), s.open('adm_0123456789ab'), s.open('adm_0123456789ab')];
  clock.t += 1000;
  assert.ok(s.use(a), 'a is now the most recently used');
  const d = s.open('adm_0123456789ab');
  assert.is(s.size, 3);
  assert.is(s.use(b), null, 'b, the least recently used, ended');
  for (const id of [a, c, d]) assert.ok(s.use(id));
});

test('should sweep sessions past their time when one is made, and once an idle time has passed', () => {
  const { clock, sessions: s } = sessions();
  for (let i = 0; i < 50; i++) s.open('adm_0123456789ab');
  clock.t += IDLE;
  const kept = s.open('adm_0123456789ab');
  assert.is(s.size, 1, 'the 50 idle ones swept when one more was made');
  for (let i = 0; i < 50; i++) s.open('adm_0123456789ab');
  clock.t += IDLE - 1;
  assert.ok(s.use(kept));
  clock.t += 1;
  s.use('A'.repeat(43));
  assert.is(s.size, 1, 'swept on a use after an idle time');
});

test.run();
