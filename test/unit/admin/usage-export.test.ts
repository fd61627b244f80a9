import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { csvField, csvRows, exportText } from '../../../src/admin/usage-export.ts';
import type { UsageRow } from '../../../src/quota/usage-day.ts';

const csv = suite('usage export');

csv('plain fields stay as they are', () => {
  assert.is(csvField('user:acme/pat'), 'user:acme/pat');
  assert.is(csvField('user:a.b@c+d/e-f'), 'user:a.b@c+d/e-f');
});

csv('a field a spreadsheet would run as a formula gets a leading quote, and is quoted', () => {
  for (const start of ['=', '+', '-', '@', '\t', '\r']) assert.is(csvField(`${start}SUM(A1)`), `"'${start}SUM(A1)"`);
  assert.is(csvField('=1+"2"'), `"'=1+""2"""`);
});

csv('commas, quotes and line breaks are quoted, quotes doubled', () => {
  assert.is(csvField('a,b'), '"a,b"');
  assert.is(csvField('say "hi"'), '"say ""hi"""');
  assert.is(csvField('a\nb'), '"a\nb"');
});

const ROWS: UsageRow[] = [
  { day: '2026-11-21', kind: 'data', scope: 'user:acme/pat', served: 3 },
  { day: '2026-11-21', kind: 'data', scope: 'user:zeta/zed', served: 1 },
];

async function* pieces(...list: UsageRow[][]): AsyncGenerator<UsageRow[]> {
  yield* list;
}

async function text(iterable: AsyncIterable<string>): Promise<string> {
  let all = '';
  for await (const piece of iterable) all += piece;
  return all;
}

csv('JSON in pieces is what JSON.stringify writes, filtered', async () => {
  const range = { from: '2026-11-21', to: '2026-11-22' };
  const json = await text(exportText('json', range, pieces([ROWS[0]!], [], [ROWS[1]!]), () => true));
  assert.is(json, JSON.stringify({ ...range, data: ROWS }));
  const none = await text(exportText('json', range, pieces(ROWS), (row) => row.scope.includes('nobody')));
  assert.is(none, JSON.stringify({ ...range, data: [] }));
});

csv('CSV is a header and a line a row', async () => {
  const range = { from: '2026-11-21', to: '2026-11-21' };
  const all = await text(exportText('csv', range, pieces(ROWS), () => true));
  assert.is(all, `day,kind,scope,served\r\n${csvRows(ROWS)}`);
  assert.is(csvRows([ROWS[0]!]), '2026-11-21,data,user:acme/pat,3\r\n');
});

csv.run();
