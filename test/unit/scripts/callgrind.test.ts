import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { lastDump, topOfAnnotation, type Counted } from '../../../scripts/bench/callgrind.ts';

const dumps = suite('callgrind dumps');

dumps("should read the main thread's last dump by its number, not its name, and its totals", () => {
  const folder = mkdtempSync(join(tmpdir(), 'callgrind-'));
  try {
    const counted = { outFile: join(folder, 'ours.cg') } as Counted;
    assert.throws(() => lastDump(counted), /wrote no dump/);
    writeFileSync(join(folder, 'ours.cg.2-01'), 'events: Ir\nsummary: 200\n');
    writeFileSync(join(folder, 'ours.cg.10-01'), 'events: Ir\nfn=main\n1 5\ntotals: 1000\n');
    writeFileSync(join(folder, 'ours.cg.10-02'), 'totals: 5\n');
    writeFileSync(join(folder, 'ours.cg.12-03'), 'totals: 6\n');
    writeFileSync(join(folder, 'ours.cg.10-01.tmp'), 'totals: 7\n');
    writeFileSync(join(folder, 'floor.cg.11-01'), 'totals: 9\n');
    assert.equal(lastDump(counted), { file: join(folder, 'ours.cg.10-01'), instructions: 1000 });
    writeFileSync(join(folder, 'ours.cg.11-01'), 'events: Ir\n');
    assert.throws(() => lastDump(counted), /ours\.cg\.11-01 has no totals/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

dumps("should take the function lines after callgrind_annotate's header, and none without one", () => {
  const report = [
    '--------------------------------------------------------------------------------',
    'Ir',
    '--------------------------------------------------------------------------------',
    '1,000,000 (100.0%)  PROGRAM TOTALS',
    '',
    '--------------------------------------------------------------------------------',
    'Ir                 file:function',
    '--------------------------------------------------------------------------------',
    '  600,000 (60.00%)  ???:Builtins_LoadIC [/usr/bin/node]',
    '  300,000 (30.00%)  ???:llhttp__internal_execute [/usr/bin/node]',
    '  100,000 (10.00%)  ./malloc/malloc.c:malloc [/usr/lib/libc.so.6]',
    '',
  ].join('\n');
  assert.equal(topOfAnnotation(report, 2), [
    '  600,000 (60.00%)  ???:Builtins_LoadIC [/usr/bin/node]',
    '  300,000 (30.00%)  ???:llhttp__internal_execute [/usr/bin/node]',
  ]);
  assert.is(topOfAnnotation(report, 10).length, 3);
  assert.equal(topOfAnnotation('no report here', 5), []);
});

dumps.run();
