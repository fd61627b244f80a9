import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DatasetError, formatProblem, pointerOf, pointerSegment, readPointer } from '../../../build/problems.ts';

const segment = suite('pointerSegment');

segment('should escape ~ as ~0 and / as ~1 (RFC 6901)', () => {
  assert.is(pointerSegment('a/b'), 'a~1b');
  assert.is(pointerSegment('c~d'), 'c~0d');
  assert.is(pointerSegment(3), '3');
});

segment('should escape ~ before / so that ~1 stays literal', () => {
  // '~1' is the text tilde-one, not an escaped slash: ~ -> ~0, giving ~01
  assert.is(pointerSegment('~1'), '~01');
  assert.is(pointerSegment('/~'), '~1~0');
});

segment.run();

const pointers = suite('pointerOf');

pointers('should join escaped segments, each after a /', () => {
  assert.is(pointerOf('models', 0, 'evaluations', 'hle'), '/models/0/evaluations/hle');
  assert.is(pointerOf('a/b', 'c~d'), '/a~1b/c~0d');
});

pointers('should be empty for the whole document', () => {
  assert.is(pointerOf(), '');
});

pointers('should keep an empty key as an empty segment', () => {
  assert.is(pointerOf(''), '/');
});

pointers.run();

const reading = suite('readPointer');

const DOC = { 'a/b': { 'c~d': [10, 20] }, '~1': 'tilde-one', '/': 'slash', '': 'empty', n: null, models: [{ slug: 'x' }] };

reading('should read the value a pointer names, through objects and arrays', () => {
  assert.is(readPointer(DOC, '/models/0/slug'), 'x');
  assert.equal(readPointer(DOC, '/models/0'), { slug: 'x' });
});

reading('should read escaped keys', () => {
  assert.is(readPointer(DOC, '/a~1b/c~0d/1'), 20);
  // ~01 decodes to ~1 (the text), not to /
  assert.is(readPointer(DOC, '/~01'), 'tilde-one');
  assert.is(readPointer(DOC, '/~1'), 'slash');
  assert.is(readPointer(DOC, '/'), 'empty');
});

reading('should read back what pointerOf writes', () => {
  assert.is(readPointer(DOC, pointerOf('a/b', 'c~d', 0)), 10);
  assert.is(readPointer(DOC, pointerOf('~1')), 'tilde-one');
});

reading('should give the whole value for the empty pointer', () => {
  assert.is(readPointer(DOC, ''), DOC);
});

reading('should be undefined where nothing is', () => {
  assert.is(readPointer(DOC, '/missing'), undefined);
  assert.is(readPointer(DOC, '/models/5/slug'), undefined);
  assert.is(readPointer(DOC, '/n/deeper'), undefined);
  assert.is(readPointer(DOC, '/models/0/slug/length'), undefined);
});

reading('should not read inherited properties', () => {
  assert.is(readPointer(DOC, '/toString'), undefined);
  assert.is(readPointer({}, '/__proto__'), undefined);
});

reading('should read a null value as null, not as missing', () => {
  assert.is(readPointer(DOC, '/n'), null);
});

reading.run();

const formatting = suite('formatProblem');

formatting('should name the file, the record and the pointer before the message', () => {
  assert.is(
    formatProblem({ file: 'data/language-models.json', record: 'model-one', pointer: '/3/evaluations/hle', message: 'must be <= 1' }),
    'data/language-models.json [model-one] /3/evaluations/hle: must be <= 1',
  );
});

formatting('should leave out a missing record', () => {
  assert.is(formatProblem({ file: 'data/indices.json', pointer: '/openness_index/key', message: 'must be platform_openness_index' }), 'data/indices.json /openness_index/key: must be platform_openness_index');
});

formatting('should show / for a problem with the whole file', () => {
  assert.is(formatProblem({ file: 'data/providers.json', pointer: '', message: 'must be array' }), 'data/providers.json /: must be array');
});

formatting.run();

const error = suite('DatasetError');

error('should count the problems and list each on its own line', () => {
  const problems = [
    { file: 'a.json', pointer: '/0', message: 'one' },
    { file: 'b.json', record: 'r', pointer: '/1', message: 'two' },
  ];
  const e = new DatasetError(problems);
  assert.is(e.message, '2 problems in the datasets:\na.json /0: one\nb.json [r] /1: two');
  assert.is(e.name, 'DatasetError');
  assert.is(e.problems, problems);
  assert.is(new DatasetError([problems[0]]).message, '1 problem in the datasets:\na.json /0: one');
});

error.run();
