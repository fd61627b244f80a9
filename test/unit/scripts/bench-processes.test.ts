import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { killAll, track } from '../../../scripts/bench/processes.ts';

const register = suite('the bench register of children');

/** A child that reports the SIGTERM it is sent (as nginx's master passes it on to its workers) and then exits. */
async function child(): Promise<{ child: ChildProcess; output: () => string }> {
  const source = "process.on('SIGTERM', () => { console.log('TERM received'); process.exit(0); }); console.log('ready'); setInterval(() => {}, 1000);";
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  while (!output.includes('ready')) await once(child.stdout!, 'data');
  return { child, output: () => output };
}

register('should send each child the signal it was tracked with, SIGKILL unless told otherwise', async () => {
  const passesOn = await child();
  const plain = await child();
  track(passesOn.child, 'SIGTERM');
  track(plain.child);
  const exits = [once(passesOn.child, 'exit'), once(plain.child, 'exit')];
  killAll();
  const [[termCode], [, killSignal]] = await Promise.all(exits);
  assert.is(termCode, 0, 'the SIGTERM child ran its handler and exited');
  assert.match(passesOn.output(), 'TERM received');
  assert.is(killSignal, 'SIGKILL');
  assert.not.match(plain.output(), 'TERM received');
});

register.run();
