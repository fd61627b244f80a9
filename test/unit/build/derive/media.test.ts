import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveArena, isEligible } from '../../../../build/derive/media.ts';
import type { MediaEntry } from '../../../../build/types.ts';
import { tinyDataset } from '../../../helpers/tiny-dataset.ts';

function entry(id: string, fields: Partial<MediaEntry> = {}): MediaEntry {
  return { id, name: id.toUpperCase(), slug: id, creator_id: 'creator-1', release_date: null, elo: 1000, ci_95: 5, samples: 1000, superseded_by: null, ...fields };
}

const eligibility = suite('isEligible');
const OPTIONS = { minSamples: 500, imageFirstPartyOnly: false };

eligibility('should rank an entry with exactly the minimum appearances, and not one with one fewer', () => {
  assert.ok(isEligible(entry('at-minimum', { samples: 500 }), 'image', OPTIONS));
  assert.not.ok(isEligible(entry('one-short', { samples: 499 }), 'image', OPTIONS));
  assert.not.ok(isEligible(entry('superseded', { samples: 5000, superseded_by: 'newer' }), 'video', OPTIONS));
});

eligibility('should drop third-party image entries only when the option asks for first-party ones', () => {
  const third = entry('third', { first_party: false });
  assert.ok(isEligible(third, 'image', OPTIONS));
  assert.not.ok(isEligible(third, 'image', { ...OPTIONS, imageFirstPartyOnly: true }));
  assert.ok(isEligible(third, 'video', { ...OPTIONS, imageFirstPartyOnly: true }), 'the option is for image arenas');
});

eligibility.run();

const order = suite('deriveArena order');

order('should list speech-to-text by WER index, lowest error first, unmeasured last', () => {
  const provider = (rate: number | null) => ({ provider_id: 'prov-a', platform_agenttalk: rate, voxpopuli_cleaned_platform: rate, earnings_22_cleaned_platform: rate });
  const entries = [entry('worst', { providers: [provider(0.3)] }), entry('unmeasured', { providers: [provider(null)] }), entry('best', { providers: [provider(0.05)] }), entry('middle', { providers: [provider(0.12)] })];
  const views = deriveArena(tinyDataset(), entries, 'speech-to-text', OPTIONS);
  assert.equal(views.map((v) => v.entry.id), ['best', 'middle', 'worst', 'unmeasured']);
  assert.equal(views.map((v) => v.wer.platform_wer_index), [0.05, 0.12, 0.3, null]);
});

order('should rank image entries 1..n by Elo among the eligible ones only', () => {
  const entries = [entry('low', { elo: 900 }), entry('few', { elo: 1500, samples: 10 }), entry('high', { elo: 1200 }), entry('edge', { elo: 1000, samples: 500 })];
  const views = deriveArena(tinyDataset(), entries, 'image', OPTIONS);
  assert.equal(views.map((v) => [v.entry.id, v.rank]), [['high', 1], ['edge', 2], ['low', 3]]);
});

order.run();
