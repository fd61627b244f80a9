import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recordAt, rangeBetween, toColumns } from '../../../../build/columns.ts';
import { endToEndSeconds, medianAcrossProviders, mediansOnly, performanceOf, type Performance } from '../../../../build/derive/performance.ts';
import { seriesPoints } from '../../../../build/derive/series.ts';
import type { MeasurementRecord } from '../../../../build/types.ts';

function record(fields: Partial<MeasurementRecord>): MeasurementRecord {
  return {
    timestamp: '2025-06-29T00:00:00.000Z',
    success: true,
    output_tokens_per_second: null,
    time_to_first_token_seconds: null,
    time_to_first_answer_token_seconds: null,
    ...fields,
  };
}

const endToEnd = suite('endToEndSeconds');

endToEnd('should add 500 answer tokens at the output speed to the time to first answer token', () => {
  // 0.5 + 500 / 100 = 0.5 + 5 = 5.5
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: 0.5, output_tokens_per_second: 100 })), 5.5);
  // 0 + 500 / 250 = 2: a zero first-answer time is a time, not a missing one
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: 0, output_tokens_per_second: 250 })), 2);
});

endToEnd('should use the stored value when the record gives one', () => {
  // computed would be 0.5 + 500/100 = 5.5
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: 0.5, output_tokens_per_second: 100, end_to_end_response_time_seconds: 7.25 })), 7.25);
  assert.is(endToEndSeconds(record({ end_to_end_response_time_seconds: 3 })), 3);
});

endToEnd('should compute when the stored value is null', () => {
  // 1 + 500 / 200 = 3.5
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: 1, output_tokens_per_second: 200, end_to_end_response_time_seconds: null })), 3.5);
});

endToEnd('should be null when the time to first answer token is null', () => {
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: null, output_tokens_per_second: 100 })), null);
});

endToEnd('should be null when the output speed is null', () => {
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: 0.5, output_tokens_per_second: null })), null);
});

endToEnd('should be null when the output speed is 0', () => {
  assert.is(endToEndSeconds(record({ time_to_first_answer_token_seconds: 0.5, output_tokens_per_second: 0 })), null);
});

endToEnd.run();

const between = suite('rangeBetween');

between('should keep records after from and up to and including to', () => {
  const to = Date.parse('2025-06-30T00:00:00.000Z');
  const from = to - 7 * 86_400_000; // 2025-06-23T00:00:00.000Z
  const records = [
    '2025-06-22T23:59:59.999Z',
    '2025-06-23T00:00:00.000Z', // == from: out
    '2025-06-23T00:00:00.001Z',
    '2025-06-27T12:00:00.000Z',
    '2025-06-30T00:00:00.000Z', // == to: in
    '2025-06-30T00:00:00.001Z',
  ].map((timestamp) => record({ timestamp }));
  const cols = toColumns(records);
  const [lo, hi] = rangeBetween(cols, from, to);
  assert.equal(
    Array.from({ length: hi - lo }, (_, i) => recordAt(cols, lo + i).timestamp),
    ['2025-06-23T00:00:00.001Z', '2025-06-27T12:00:00.000Z', '2025-06-30T00:00:00.000Z'],
  );
});

between('should hold records in time order, records at the same instant in the order given, however the data lists them', () => {
  const given = [
    record({ id: 'c', timestamp: '2025-06-03T00:00:00.000Z', output_tokens_per_second: 3 }),
    record({ id: 'a1', timestamp: '2025-06-01T00:00:00.000Z', output_tokens_per_second: 1 }),
    record({ id: 'b', timestamp: '2025-06-02T02:00:00+02:00', output_tokens_per_second: 2 }),
    record({ id: 'a2', timestamp: '2025-06-01T00:00:00.000Z', output_tokens_per_second: 4 }),
  ];
  const cols = toColumns(given);
  assert.equal(cols.ids, ['a1', 'a2', 'b', 'c']);
  assert.equal(Array.from(cols.speed), [1, 4, 2, 3]);
  assert.equal(Array.from(cols.time), [Date.parse('2025-06-01T00:00:00Z'), Date.parse('2025-06-01T00:00:00Z'), Date.parse('2025-06-02T00:00:00Z'), Date.parse('2025-06-03T00:00:00Z')]);
  const inOrder = toColumns([given[1], given[3], given[2], given[0]]);
  assert.equal(inOrder.ids, ['a1', 'a2', 'b', 'c'], 'already ordered: the same columns');
  assert.is(toColumns([record({}), record({ timestamp: '2025-06-30T00:00:00.000Z' })]).ids, null, 'no ids given: none kept');
});

between('should be empty when no record falls inside', () => {
  const [lo, hi] = rangeBetween(toColumns([record({ timestamp: '2025-01-01T00:00:00.000Z' })]), Date.parse('2025-06-01T00:00:00.000Z'), Date.parse('2025-06-30T00:00:00.000Z'));
  assert.is(hi - lo, 0);
  assert.equal(rangeBetween(toColumns([]), 0, 1), [0, 0]);
});

between.run();

const perf = suite('performanceOf');

/**
 * Four successful records with speeds 100, 130, 170, 110 and TTFT 0.21, 0.4, 1.0, 0.334, one
 * successful record without figures and one failure with extreme figures.
 */
const RECORDS: MeasurementRecord[] = [
  record({ output_tokens_per_second: 100, time_to_first_token_seconds: 0.21, time_to_first_answer_token_seconds: 0.5 }),
  record({ output_tokens_per_second: 130, time_to_first_token_seconds: 0.4, time_to_first_answer_token_seconds: 1.0 }),
  record({ success: false, output_tokens_per_second: 1, time_to_first_token_seconds: 99, time_to_first_answer_token_seconds: 99 }),
  record({ output_tokens_per_second: 170, time_to_first_token_seconds: 1.0, time_to_first_answer_token_seconds: 1.5 }),
  record({ output_tokens_per_second: 110, time_to_first_token_seconds: 0.334, time_to_first_answer_token_seconds: null, end_to_end_response_time_seconds: 6 }),
  record({}),
];

perf('should take medians and quantiles of the successful records only', () => {
  // Speeds sorted 100, 110, 130, 170 (n = 4, position = 3q, linear between closest ranks):
  //   q.05: 0.15 -> 100 + 0.15*10 = 101.5     q.25: 0.75 -> 100 + 0.75*10 = 107.5
  //   q.50: 1.5  -> 110 + 0.5*20  = 120       q.75: 2.25 -> 130 + 0.25*40 = 140
  //   q.95: 2.85 -> 130 + 0.85*40 = 164
  // TTFT sorted 0.21, 0.334, 0.4, 1.0:
  //   q.05: 0.21 + 0.15*0.124 = 0.2286 -> 0.229   q.25: 0.21 + 0.75*0.124 = 0.303
  //   q.50: 0.334 + 0.5*0.066 = 0.367             q.75: 0.4 + 0.25*0.6 = 0.55
  //   q.95: 0.4 + 0.85*0.6 = 0.91
  // TTFAT 0.5, 1.0, 1.5 -> 1.0
  // E2E: 0.5 + 500/100 = 5.5; 1 + 500/130 = 4.846154; 1.5 + 500/170 = 4.441176; stored 6
  //   sorted 4.441176, 4.846154, 5.5, 6 -> (4.846154 + 5.5) / 2 = 5.173077 -> 5.173
  assert.equal(performanceOf(toColumns(RECORDS)), {
    median_output_tokens_per_second: 120,
    median_time_to_first_token_seconds: 0.367,
    median_time_to_first_answer_token_seconds: 1,
    median_end_to_end_response_time_seconds: 5.173,
    percentile_05_output_tokens_per_second: 101.5,
    percentile_05_time_to_first_token_seconds: 0.229,
    quartile_25_output_tokens_per_second: 107.5,
    quartile_25_time_to_first_token_seconds: 0.303,
    quartile_75_output_tokens_per_second: 140,
    quartile_75_time_to_first_token_seconds: 0.55,
    percentile_95_output_tokens_per_second: 164,
    percentile_95_time_to_first_token_seconds: 0.91,
  });
});

perf('should give every figure of a single record', () => {
  // 0.2 + 500/300 = 1.866667 -> 1.867
  const single = performanceOf(toColumns([record({ output_tokens_per_second: 300, time_to_first_token_seconds: 0.1, time_to_first_answer_token_seconds: 0.2 })]));
  assert.is(single.median_output_tokens_per_second, 300);
  assert.is(single.percentile_05_output_tokens_per_second, 300);
  assert.is(single.percentile_95_time_to_first_token_seconds, 0.1);
  assert.is(single.median_end_to_end_response_time_seconds, 1.867);
});

perf('should be all null without successful records', () => {
  const none = performanceOf(toColumns([record({ success: false, output_tokens_per_second: 100, time_to_first_token_seconds: 1, time_to_first_answer_token_seconds: 1 })]));
  assert.is(Object.keys(none).length, 12);
  assert.ok(Object.values(none).every((v) => v === null));
  assert.equal(performanceOf(toColumns([])), none);
});

perf.run();

const acrossProviders = suite('medianAcrossProviders');

acrossProviders('should take the median of each field across providers, skipping nulls', () => {
  const providers: Performance[] = [
    { f: 1, g: 0.1111, extra: 5 },
    { f: 3, g: 0.2222 },
    { f: null, g: null },
  ];
  // f: [1, 3] -> 2; g: (0.1111 + 0.2222) / 2 = 0.16665 -> 0.167; h: no values -> null; extra not asked for
  assert.equal(medianAcrossProviders(providers, ['f', 'g', 'h']), { f: 2, g: 0.167, h: null });
});

acrossProviders('should take the middle provider of an odd count', () => {
  // [5, 1, 4] -> 4, not the mean 3.333
  assert.equal(medianAcrossProviders([{ f: 5 }, { f: 1 }, { f: 4 }], ['f']), { f: 4 });
});

acrossProviders('should be null for a model without providers', () => {
  assert.equal(medianAcrossProviders([], ['f']), { f: null });
});

acrossProviders.run();

const medians = suite('mediansOnly');

medians('should keep only the four medians, in the contract order', () => {
  const full = performanceOf(toColumns(RECORDS));
  const only = mediansOnly(full);
  assert.equal(Object.keys(only), [
    'median_output_tokens_per_second',
    'median_time_to_first_token_seconds',
    'median_time_to_first_answer_token_seconds',
    'median_end_to_end_response_time_seconds',
  ]);
  assert.equal(only, {
    median_output_tokens_per_second: 120,
    median_time_to_first_token_seconds: 0.367,
    median_time_to_first_answer_token_seconds: 1,
    median_end_to_end_response_time_seconds: 5.173,
  });
});

medians('should give null for a median the performance lacks', () => {
  assert.equal(mediansOnly({ median_output_tokens_per_second: 50 }), {
    median_output_tokens_per_second: 50,
    median_time_to_first_token_seconds: null,
    median_time_to_first_answer_token_seconds: null,
    median_end_to_end_response_time_seconds: null,
  });
});

medians.run();

const series = suite('seriesPoints');

series('should put a record at the exact start of a bucket in that bucket, and one a millisecond before it in the previous one', () => {
  const records = toColumns([
    record({ timestamp: '2025-06-29T00:00:00.000Z', output_tokens_per_second: 100 }),
    record({ timestamp: '2025-06-29T23:59:59.999Z', output_tokens_per_second: 300 }),
    record({ timestamp: '2025-06-30T00:00:00.000Z', output_tokens_per_second: 50 }),
  ]);
  const points = seriesPoints(records, Date.parse('2025-06-30T12:00:00.000Z'), '7d', 'daily');
  assert.equal(points.map((p) => p.date), ['2025-06-24', '2025-06-25', '2025-06-26', '2025-06-27', '2025-06-28', '2025-06-29', '2025-06-30']);
  // 06-29: 100 (at its first instant) and 300 (at its last) -> median 200; 06-30: 50 (at its first instant)
  assert.equal(points.map((p) => p.median_output_tokens_per_second), [null, null, null, null, null, 200, 50]);
});

series.run();
