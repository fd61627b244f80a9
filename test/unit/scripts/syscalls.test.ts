import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { kernelText, medianCounts, parsePerfStat, perRequest } from '../../../scripts/bench/syscalls.ts';

const counts = suite('the kernel counts of scripts/bench/syscalls.ts');

/** What `perf stat -x , -e ... -p PID -o FILE` wrote on this machine, one line an event. */
const WRITTEN = `# started on Sun Nov 29 21:57:00 2026

152007,,raw_syscalls:sys_enter,4997671042,100.00,,
5837,,syscalls:sys_enter_epoll_pwait,4997726385,100.00,,
1409,,context-switches,4997945686,100.00,,
`;

counts("reads perf stat's CSV by event name, and a count perf could not make as not a number", () => {
  assert.equal(parsePerfStat(WRITTEN), { 'system calls': 152007, 'loop waits': 5837, 'context switches': 1409 });
  const missing = parsePerfStat('<not counted>,,raw_syscalls:sys_enter,0,0.00,,\n12,,context-switches,1,100.00,,\n');
  assert.ok(Number.isNaN(missing['system calls']) && Number.isNaN(missing['loop waits']));
  assert.is(missing['context switches'], 12);
});

counts('divides by the requests, takes the median of each count over loads, and prints them in a fixed order', () => {
  const each = perRequest(parsePerfStat(WRITTEN), 1000);
  assert.equal(each, { 'system calls': 152.007, 'loop waits': 5.837, 'context switches': 1.409 });
  const loads = [each, { 'system calls': 1, 'loop waits': 9, 'context switches': 2 }, { 'system calls': 3, 'loop waits': 4, 'context switches': 0.5 }];
  assert.equal(medianCounts(loads), { 'system calls': 3, 'loop waits': 5.837, 'context switches': 1.409 });
  assert.is(kernelText(medianCounts(loads)), '3.000 system calls, 5.837 loop waits, 1.409 context switches');
});

counts.run();
