/** The generator's daily sequence (`--day K`): each day's data is the day before's, moved on one day. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS, generateSample } from '../../../../scripts/generate-sample.ts';
import { MOST_PRICE_CHANGES_PER_DAY } from '../../../../scripts/sample/later-days.ts';
import { DENSE_PER_DAY } from '../../../../scripts/sample/measurements.ts';
import type { MeasurementsFile, ProviderEndpoint } from '../../../../build/types.ts';

const DAYS = 4;
const root = mkdtempSync(join(tmpdir(), 'bda-days-'));
const small = { ...DEFAULT_OPTIONS, models: 24, creators: 6, providers: 6, arenaEntries: 4 };
const outOf = (day: number) => join(root, `day-${day}`);
for (let day = 0; day <= DAYS; day++) generateSample({ ...small, out: outOf(day), day });

const read = (day: number, file: string) => readFileSync(join(outOf(day), file));
const endpoints = (day: number) => JSON.parse(read(day, 'provider-endpoints.json').toString()) as ProviderEndpoint[];
const measurements = (day: number) =>
  readdirSync(join(outOf(day), 'measurements'))
    .sort()
    .map((name) => JSON.parse(gunzipSync(read(day, join('measurements', name))).toString()) as MeasurementsFile);
const PRICE = /^price_/;
const without = (endpoint: ProviderEndpoint, pattern: RegExp) =>
  Object.fromEntries(Object.entries(endpoint).filter(([field]) => !pattern.test(field)));

const days = suite('the sample K days after its as-of date');

days.after(() => rmSync(root, { recursive: true, force: true }));

days('should keep the models, creators, providers and arenas of the as-of date', () => {
  for (const file of ['language-models.json', 'model-creators.json', 'providers.json'])
    for (let day = 1; day <= DAYS; day++) assert.ok(read(day, file).equals(read(0, file)), `${file} on day ${day}`);
});

days('should change only the prices of a few endpoints from one day to the next, and some on some day', () => {
  let changed = 0;
  for (let day = 1; day <= DAYS; day++) {
    const [before, after] = [endpoints(day - 1), endpoints(day)];
    assert.equal(after.map((e) => without(e, PRICE)), before.map((e) => without(e, PRICE)), `day ${day}`);
    const moved = after.filter((e, i) => JSON.stringify(e) !== JSON.stringify(before[i])).length;
    assert.ok(moved <= MOST_PRICE_CHANGES_PER_DAY, `day ${day}: ${moved} endpoints changed price`);
    changed += moved;
  }
  assert.ok(changed > 0, 'no price changed in four days');
});

days("should keep every record of the day before's window but its first day's, and measure one more day", () => {
  for (let day = 1; day <= DAYS; day++) {
    const [before, after] = [measurements(day - 1), measurements(day)];
    assert.is(after.length, before.length);
    const lastDay = Date.parse(`${small.asOf}T00:00:00Z`) + day * 86_400_000;
    before.forEach((file, f) =>
      file.series.forEach((series, s) => {
        const next = after[f]!.series[s]!;
        const firstDay = series.records[0]!.timestamp.slice(0, 10);
        const kept = series.records.filter((r) => r.timestamp.slice(0, 10) !== firstDay);
        assert.equal(next.records.slice(0, kept.length), kept, `${series.endpoint_id} ${series.prompt_type}`);
        const added = next.records.slice(kept.length);
        assert.is(added.length, DENSE_PER_DAY);
        for (const record of added) assert.is(Math.floor(Date.parse(record.timestamp) / 86_400_000) * 86_400_000, lastDay);
      }),
    );
  }
});

days.run();
