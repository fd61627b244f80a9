import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { csvField, csvRows } from '../../../src/admin/usage-export.ts';
import { exportText } from '../../../src/admin/usage-export-text.ts';
import {
  usageKey,
  type DayLines,
  type HistoryPiece,
  type RowFilter,
  type UsageRow,
} from '../../../src/quota/usage-day.ts';
import { dayFileText } from '../../../src/quota/usage-files.ts';
import { pieceRows } from '../../../src/quota/usage-history-read.ts';

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

const EVERY: RowFilter = { kind: null, org: null };

const ROWS: UsageRow[] = [
  { day: '2026-11-21', kind: 'data', scope: 'user:acme/pat', served: 3 },
  { day: '2026-11-21', kind: 'data', scope: 'user:zeta/zed', served: 1 },
];

async function* pieces(...list: HistoryPiece[]): AsyncGenerator<HistoryPiece> {
  yield* list;
}

async function text(iterable: AsyncIterable<string | Buffer>): Promise<string> {
  let all = '';
  for await (const piece of iterable) all += piece.toString();
  return all;
}

csv('JSON in pieces is what JSON.stringify writes, filtered', async () => {
  const range = { from: '2026-11-21', to: '2026-11-22' };
  const json = await text(exportText('json', range, pieces([ROWS[0]!], [], [ROWS[1]!]), EVERY));
  assert.is(json, JSON.stringify({ ...range, data: ROWS }));
  const none = await text(exportText('json', range, pieces(ROWS), { kind: null, org: 'nobody' }));
  assert.is(none, JSON.stringify({ ...range, data: [] }));
});

csv('CSV is a header and a line a row', async () => {
  const range = { from: '2026-11-21', to: '2026-11-21' };
  const all = await text(exportText('csv', range, pieces(ROWS), EVERY));
  assert.is(all, `day,kind,scope,served\r\n${csvRows(ROWS)}`);
  assert.is(csvRows([ROWS[0]!]), '2026-11-21,data,user:acme/pat,3\r\n');
});

/** A day file's bytes as the server writes them, plus lines written by hand; its lines as pieces of about `size` bytes. */
function dayLines(day: string, counts: Map<string, number>, extra: string[], size: number): DayLines[] {
  const keys = [...counts.keys()].sort();
  const bytes = Buffer.from([...dayFileText(day, 1, keys, counts)].join('') + extra.join(''));
  const lines: DayLines[] = [];
  for (let start = bytes.indexOf(10) + 1; start < bytes.length;) {
    const newline = bytes.indexOf(10, Math.min(start + size, bytes.length - 1));
    const end = newline < 0 ? bytes.length : newline + 1;
    lines.push({ day, path: `${day}.jsonl`, bytes, start, end });
    start = end;
  }
  return lines;
}

csv(
  "a day file's lines written straight out are the text its rows make, line by line or by the rows' way",
  async () => {
    const day = '2026-11-21';
    const counts = new Map<string, number>();
    for (const [i, scope] of [
      'user:acme/pat',
      'user:acme/zed',
      'org:acme',
      'org:acmeco',
      'user:acmeco/x',
      'key:key_0123456789ab',
      'user:a.b@c+d/e-f',
      '+org:formula',
      '-user:x/y',
      '@org:at',
      'user:comma,org/x',
      'user:quote"org/x',
      'user:back\\slash/x',
      'user:ünï/cødé',
      'user:tab\there/x',
    ].entries()) {
      counts.set(usageKey('data', scope), i === 2 ? 0 : i + 1);
      counts.set(usageKey('critpt', scope), 1000 * i);
    }
    // Lines the server does not write but a file may hold: a count with leading zeros, a key in escapes.
    const extra = [
      '["user:zz/lead data",007]\n',
      '["user:zz/\\u0065scaped data",5]\n',
      '["user:zz/big data",123456789012345]\n',
    ];
    for (const size of [1, 40, 200, 1 << 20]) {
      const lines = dayLines(day, counts, extra, size);
      const rows = lines.flatMap(pieceRows);
      for (const format of ['json', 'csv'] as const)
        for (const filter of [
          EVERY,
          { kind: 'data', org: null },
          { kind: null, org: 'acme' },
          { kind: null, org: 'acme', orgKeys: new Set(['key_0123456789ab', 'key_ffffffffffff']) },
          { kind: 'critpt', org: 'zz' },
        ] as RowFilter[]) {
          const range = { from: day, to: day };
          const straight = await text(exportText(format, range, pieces(...lines), filter));
          const byRows = await text(exportText(format, range, pieces(rows), filter));
          assert.is(straight, byRows, `${format} ${JSON.stringify(filter)} in pieces of ${size} bytes`);
        }
    }
    const json = JSON.parse(
      await text(exportText('json', { from: day, to: day }, pieces(...dayLines(day, counts, extra, 64)), EVERY)),
    );
    assert.equal(json.data, dayLines(day, counts, extra, 64).flatMap(pieceRows));
    assert.ok(json.data.some((row: UsageRow) => row.scope === 'user:zz/escaped' && row.served === 5));
    assert.not.ok(
      json.data.some((row: UsageRow) => row.served === 0),
      'rows served 0 times are left out',
    );
  },
);

csv('a line that is not a row is refused, naming its file', async () => {
  const lines = dayLines('2026-11-21', new Map([['org:a data', 1]]), ['not a row\n'], 1 << 20);
  try {
    await text(exportText('csv', { from: '2026-11-21', to: '2026-11-21' }, pieces(...lines), EVERY));
    assert.unreachable('a bad row was written');
  } catch (error) {
    assert.match((error as Error).message, /2026-11-21\.jsonl has a bad row: not a row/);
  }
});

csv.run();
