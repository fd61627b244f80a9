import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RespError } from '../../../../src/redis/resp.ts';
import { dissentWarning, eventMaster, judge, readAnswer, type SentinelAnswer, type SentinelReport } from '../../../../src/redis/sentinel-verdict.ts';

const A = { host: '10.0.0.11', port: 6379 };
const B = { host: '10.0.0.12', port: 6379 };
const X = { host: '10.9.9.9', port: 6379 };

const names = (primary: { host: string; port: number }, epoch: number, deciding: string | null = null): SentinelAnswer => ({ primary, epoch, deciding });
const report = (n: number, said: SentinelAnswer | string, announced: string | null = null): SentinelReport => ({ sentinel: `10.0.0.2${n}:26379`, said, announced });
function problem(verdict: ReturnType<typeof judge>): string {
  if ('problem' in verdict) return verdict.problem;
  throw new Error(`expected a stop, got a primary: ${JSON.stringify(verdict)}`);
}

const rule = suite('judge: the primary a majority names at the newest epoch');

rule('should count on the primary every sentinel names, with nothing to warn of', () => {
  const verdict = judge('bda', [report(1, names(A, 3)), report(2, names(A, 3)), report(3, names(A, 3))]);
  assert.equal(verdict, { primary: A, epoch: 3, dissent: [] });
  assert.is(dissentWarning('bda', verdict, 3), null);
});

rule('should count on the majority past a silent sentinel, and warn naming it and what went wrong', () => {
  const verdict = judge('bda', [report(1, 'no answer within 1000 ms'), report(2, names(A, 3)), report(3, names(A, 3))]);
  assert.equal(verdict, { primary: A, epoch: 3, dissent: ['10.0.0.21:26379 no answer within 1000 ms'] });
  assert.is(dissentWarning('bda', verdict, 3), '2 of 3 sentinels name 10.0.0.11:6379 as primary of bda (epoch 3), counted on; the others disagree or did not answer: 10.0.0.21:26379 no answer within 1000 ms');
});

rule('should count on the majority past a sentinel with an older view (cut off, or lying about the past), naming it', () => {
  const verdict = judge('bda', [report(1, names(X, 2)), report(2, names(B, 3)), report(3, names(B, 3))]);
  assert.equal(verdict, { primary: B, epoch: 3, dissent: ['10.0.0.21:26379 names 10.9.9.9:6379 (epoch 2)'] });
});

rule('should count on a primary named by a majority at mixed epochs when the newest names it too', () => {
  // After a fail-back: one sentinel learnt the newest epoch first, another still has the old one with the same primary.
  assert.equal(judge('bda', [report(1, names(A, 5)), report(2, names(A, 3)), report(3, names(B, 4))]), { primary: A, epoch: 5, dissent: ['10.0.0.23:26379 names 10.0.0.12:6379 (epoch 4)'] });
});

rule('should stop when a newer view than the majority\'s names another primary (a switch not yet spread, or a liar)', () => {
  const text = problem(judge('bda', [report(1, names(X, 9)), report(2, names(A, 3)), report(3, names(A, 3))]));
  assert.match(text, /^10\.9\.9\.9:6379 is named at the newest epoch 9 by 1 of 3 sentinels, fewer than a majority \(2\)/);
  // Each sentinel and what it said.
  assert.match(text, /\(sentinels: 10\.0\.0\.21:26379 names 10\.9\.9\.9:6379 \(epoch 9\); 10\.0\.0\.22:26379 names 10\.0\.0\.11:6379 \(epoch 3\); 10\.0\.0\.23:26379 names 10\.0\.0\.11:6379 \(epoch 3\)\)$/);
});

rule('should stop when sentinels at the same epoch name different primaries', () => {
  assert.match(problem(judge('bda', [report(1, names(A, 3)), report(2, names(B, 3)), report(3, 'connection closed before an answer')])), /^sentinels at the same epoch 3 name different primaries \(10\.0\.0\.11:6379, 10\.0\.0\.12:6379\)/);
});

rule('should stop while a failover has not promoted a replica, reported or announced by any one sentinel', () => {
  const reported = problem(judge('bda', [report(1, names(A, 3)), report(2, names(A, 3)), report(3, names(A, 3, 'select_slave'))]));
  assert.match(reported, /^a failover of bda is under way at sentinel 10\.0\.0\.23:26379; counting resumes once a majority names the promoted replica/);
  assert.match(reported, /names 10\.0\.0\.11:6379 \(epoch 3, failover-state select_slave\)/);
  const announced = problem(judge('bda', [report(1, names(A, 3), '+try-failover'), report(2, names(A, 3)), report(3, names(A, 3))]));
  assert.match(announced, /under way at sentinel 10\.0\.0\.21:26379.*10\.0\.0\.21:26379 names 10\.0\.0\.11:6379 \(epoch 3\), announced \+try-failover/);
  // Announced by a sentinel that stopped answering: still a stop (the watch lets it lapse).
  assert.ok('problem' in judge('bda', [report(1, 'no answer within 1000 ms', '+selected-slave'), report(2, names(A, 3)), report(3, names(A, 3))]));
});

rule('should stop when fewer than a majority of the listed sentinels answer', () => {
  assert.match(problem(judge('bda', [report(1, names(A, 3)), report(2, 'connect ECONNREFUSED'), report(3, 'login refused: WRONGPASS')])), /^only 1 of 3 sentinels answered, fewer than a majority \(2\).*10\.0\.0\.23:26379 login refused: WRONGPASS\)$/);
  // Two listed: both must answer and agree.
  assert.ok('problem' in judge('bda', [report(1, names(A, 3)), report(2, 'no answer within 1000 ms')]));
  assert.ok('problem' in judge('bda', [report(1, names(A, 3)), report(2, names(B, 2))]));
});

rule('should count on the one sentinel listed, alone', () => {
  assert.equal(judge('bda', [report(1, names(A, 0))]), { primary: A, epoch: 0, dissent: [] });
  assert.ok('problem' in judge('bda', [report(1, 'connect ECONNREFUSED')]));
});

rule.run();

const replies = suite('readAnswer and eventMaster');

const master = (flags: string, epoch: number | string, state?: string) => ['name', 'bda', 'ip', '10.0.0.11', 'port', '6379', 'flags', flags, ...(state ? ['failover-state', state] : []), 'config-epoch', String(epoch), 'quorum', '2'];

replies('should read the primary, its epoch and a failover that has not promoted yet', () => {
  assert.equal(readAnswer('bda', ['10.0.0.11', '6379'], master('master', 4)), names(A, 4));
  assert.equal(readAnswer('bda', ['10.0.0.11', '6379'], master('master,failover_in_progress', 5, 'wait_promotion')), names(A, 5, 'wait_promotion'));
  // Promoted: the address is the promoted replica's, and the failover no longer stops counting.
  assert.equal(readAnswer('bda', ['10.0.0.12', '6379'], master('master,failover_in_progress', 5, 'reconf_slaves')), names(B, 5));
});

replies('should say what is wrong with replies it cannot use', () => {
  assert.is(readAnswer('bda', null, new RespError('ERR No such master with that name')), 'refused: ERR No such master with that name');
  assert.is(readAnswer('bda', null, master('master', 1)), 'monitors no primary named bda');
  assert.is(readAnswer('bda', new RespError('NOAUTH Authentication required.'), null), 'refused: NOAUTH Authentication required.');
  assert.match(String(readAnswer('bda', ['10.0.0.11', 'x'], master('master', 1))), /^named no primary/);
  assert.is(readAnswer('bda', ['10.0.0.11', '6379'], master('master', 'x')), 'gave no config-epoch for bda');
});

replies('should find the master an event is about, in each payload form', () => {
  assert.is(eventMaster('+switch-master', 'bda 10.0.0.11 6379 10.0.0.12 6379'), 'bda');
  assert.is(eventMaster('+try-failover', 'master bda 10.0.0.11 6379'), 'bda');
  assert.is(eventMaster('+selected-slave', 'slave 10.0.0.12:6379 10.0.0.12 6379 @ bda 10.0.0.11 6379'), 'bda');
  assert.is(eventMaster('+selected-slave', 'slave 10.0.0.12:6379 10.0.0.12 6379 @ other 10.0.0.11 6379'), 'other');
});

replies.run();
