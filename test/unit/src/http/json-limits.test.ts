import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../../src/http/error.ts';
import { checkJsonLimits } from '../../../../src/http/json-limits.ts';

const limits = suite('checkJsonLimits');
const LIMITS = { depth: 3, values: 5 };

function refusal(text: string): string | null {
  try {
    checkJsonLimits(Buffer.from(text), LIMITS);
    return null;
  } catch (error) {
    assert.instance(error, HttpError);
    return (error as HttpError).message;
  }
}

limits('should pass text within the bounds, however long its strings', () => {
  assert.is(refusal('{"a":[1,2],"b":"x"}'), null); // 2 containers + 2 commas = 4 values
  assert.is(refusal(`{"code":"${'y'.repeat(100_000)}"}`), null);
});

limits('should refuse nesting deeper than the bound, naming it', () => {
  assert.is(refusal('[[[1]]]'), null);
  assert.is(refusal('[[[[1]]]]'), 'Invalid request body: nested deeper than 3 levels');
});

limits('should refuse more values than the bound, naming it', () => {
  assert.is(refusal('[1,2,3,4]'), null); // 1 container + 3 commas
  assert.is(refusal('[1,2,3,4,5,6]'), 'Invalid request body: more than 5 values');
});

limits('should not count brackets, commas or escaped quotes inside strings', () => {
  assert.is(refusal('["[[[[,,,,,", "\\"[[[[", "\\\\"]'), null);
});

limits.run();
