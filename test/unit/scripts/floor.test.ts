import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../scripts/processes.ts';
import { FLOOR_FORMS, startFloor } from '../../../scripts/bench/floor.ts';
import { exportBody } from '../../../scripts/bench/nginx.ts';
import { stop } from '../../../scripts/bench/processes.ts';
import { rawExchange } from '../../helpers/http.ts';

const floor = suite('the bench floor, in each of its forms');

/** The status and body of each answer in `raw`, in order (a body with a Content-Length, or an empty chunked one). */
function answersIn(raw: string): [string, string][] {
  const answers: [string, string][] = [];
  for (let at = 0; at < raw.length;) {
    const headEnd = raw.indexOf('\r\n\r\n', at) + 4;
    const head = raw.slice(at, headEnd);
    const length = /\r\nContent-Length: (\d+)/.exec(head)?.[1];
    const status = /^HTTP\/1\.1 (\d+)/.exec(head)![1]!;
    if (length === undefined) {
      assert.ok(raw.startsWith('0\r\n\r\n', headEnd), 'an answer without a length is an empty chunked body');
      answers.push([status, '']);
      at = headEnd + 5;
    } else {
      answers.push([status, raw.slice(headEnd, headEnd + Number(length))]);
      at = headEnd + Number(length);
    }
  }
  return answers;
}

const request = (path: string, last = false) =>
  `GET ${path} HTTP/1.1\r\nHost: floor\r\nAccept-Encoding: br\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;

floor(
  'should send the same bytes in every form, pipelined answers in order, a 404 for a path it does not hold',
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'floor-test-'));
    try {
      const docroot = join(work, 'www');
      exportBody(join(docroot, 'list.json'), Buffer.from(JSON.stringify({ data: ['a list'.repeat(500)] })));
      exportBody(join(docroot, 'detail', 'one.json'), Buffer.from(JSON.stringify({ data: { slug: 'one' } })));
      // Four requests in one write: node:http parses them in one turn, the deferred form holds them all.
      const raw =
        request('/list.json') + request('/detail/one.json') + request('/absent') + request('/list.json', true);
      const answers = new Map<string, string>();
      for (const form of FLOOR_FORMS) {
        const port = await freePort();
        const child = await startFloor(work, docroot, '/list.json', port, form);
        try {
          // The Date field is the only one that may differ between two servers.
          answers.set(
            form,
            (await rawExchange(`http://127.0.0.1:${port}`, raw, 'latin1')).replace(/\r\nDate: [^\r]*/g, '\r\nDate: -'),
          );
        } finally {
          await stop(child);
        }
      }
      const flat = answers.get('flat')!;
      for (const form of FLOOR_FORMS) assert.is(answers.get(form), flat, `${form} sends what flat sends`);
      const br = (name: string) => readFileSync(join(docroot, `${name}.br`)).toString('latin1');
      const [list, one] = [br('list.json'), br(join('detail', 'one.json'))];
      assert.equal(answersIn(flat), [
        ['200', list],
        ['200', one],
        ['404', ''],
        ['200', list],
      ]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
);

floor.run();
