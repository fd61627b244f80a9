import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closestName } from '../../../../src/shared/closest-name.ts';

const closest = suite('closestName');

closest('should name the known name one or two edits away, whatever the case', () => {
  assert.is(closestName('creator_idd', ['slug', 'creator_id', 'release_date']), 'creator_id');
  assert.is(closestName('reasoning_modle', ['reasoning_model', 'release_date']), 'reasoning_model');
  assert.is(closestName('Capstan-Serve', ['capstan-serve', 'hangar-inference']), 'capstan-serve');
});

closest('should prefer the nearest of several', () => {
  assert.is(closestName('pro', ['free', 'prod', 'commercial']), 'prod');
});

closest('should name nothing when every known name is too far (more than a third of the letters off)', () => {
  assert.is(closestName('anvil-hosting', ['capstan-serve', 'hangar-inference', 'larch-inference']), null);
  assert.is(closestName('ab', ['xy']), null);
  assert.is(closestName('x', []), null);
});

closest.run();
