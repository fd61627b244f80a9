import * as assert from 'uvu/assert';

/** `fn` throws an error of `type` whose message matches `pattern` (uvu's `throws` checks one or the other). */
export function throwsWith(fn: () => unknown, type: new (...args: any[]) => Error, pattern: RegExp): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, type);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected ${type.name} matching ${pattern}`);
}
