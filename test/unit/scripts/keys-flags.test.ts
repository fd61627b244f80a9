import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KEYS_FLAGS } from '../../../scripts/keys-flags.ts';
import { SERVER_FLAGS } from '../../../src/server-flags.ts';
import { readFlags } from '../../../src/shared/flag-table.ts';
import { UsageError } from '../../../src/shared/flags.ts';
import { throwsWith } from '../../helpers/throws.ts';

const flags = suite('the keys command\'s flag table');

flags('should read the state folder, the store and the snapshot as the server does', () => {
  for (const name of ['state', 'store', 'store-ca', 'store-cert', 'store-key', 'store-replicas-timeout', 'snapshot'] as const) {
    assert.is(KEYS_FLAGS[name].env, SERVER_FLAGS[name].env, name);
    assert.is(KEYS_FLAGS[name].default, SERVER_FLAGS[name].default, name);
    assert.is(KEYS_FLAGS[name].parse, SERVER_FLAGS[name].parse, name);
  }
  const { values } = readFlags(KEYS_FLAGS, [], { STATE_DIR: '/srv/state', STORE_REPLICAS: '2' });
  assert.equal([values.state, values['store-replicas'], values.store, values.snapshot], ['/srv/state', 2, 'file', 'snapshot']);
});

flags('should gather repeated grants and say which flags were given', () => {
  const { values, given, positionals } = readFlags(KEYS_FLAGS, ['create', '--grant', 'a', '--grant', 'b', '--json'], {}, { positionals: true });
  assert.equal(values.grant, ['a', 'b']);
  assert.equal([...given].sort(), ['grant', 'json']);
  assert.equal(positionals, ['create']);
});

flags('should name the flag a mistyped one meant', () => {
  const read = (args: string[]) => () => readFlags(KEYS_FLAGS, args, {}, { positionals: true });
  throwsWith(read(['list', '--stat', 'x']), UsageError, /^unknown option --stat; did you mean --state\?$/);
  throwsWith(read(['create', '--teir', 'pro']), UsageError, /^unknown option --teir; did you mean --tier\?$/);
});

flags.run();
