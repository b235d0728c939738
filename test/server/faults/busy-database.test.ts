import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ALLOWED_ORIGIN,
  expectError,
  startTestService,
  type TestService,
} from '../../helpers/service.js';
import { holdWriteLock } from '../../helpers/sqlite-write-lock.js';

describe('a database held busy by another process', { timeout: 60_000 }, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const sign = () => t.sign({ name: 'a.txt', size: 10 });

  it('answers 503 unavailable to what must write, while everything else keeps answering', {
    skip: process.env.FILEHOST_TEST_DEPLOYMENT === 'scale' ? 'SQLite only' : false,
  }, async () => {
    const lock = await holdWriteLock(join(t.dataDir, 'filehost.db'));
    try {
      let signDone = false;
      const started = Date.now();
      const signing = sign().then((response) => {
        signDone = true;
        return response;
      });

      // While the sign waits for the lock, the event loop is free: a preflight, a CDN
      // request for an id of the wrong shape, a read of the database (WAL readers are not
      // blocked by a writer) and a missing file on the CDN all answer.
      const preflight = await fetch(`${t.apiUrl}/v1/uploads/sign`, {
        method: 'OPTIONS',
        headers: {
          Origin: ALLOWED_ORIGIN,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      });
      assert.equal(preflight.status, 204);
      await expectError(await fetch(`${t.cdnUrl}/not-an-id!`), 404, 'not_found');
      assert.equal((await t.api('/v1/files')).status, 200);
      assert.equal(signDone, false, 'the other requests answered while the sign was waiting');

      const refused = await signing;
      const waited = Date.now() - started;
      await expectError(refused, 503, 'unavailable');
      assert.ok(refused.headers.get('retry-after'), 'a 503 says when to try again');
      assert.ok(waited < 10_000, `503 after ${waited} ms, not within a few seconds`);

      // A one-request upload is refused the same way and keeps nothing.
      const upload = await t.api('/v1/upload', {
        method: 'POST',
        headers: { 'X-Filename': 'b.txt' },
        body: 'hello',
      });
      await expectError(upload, 503, 'unavailable');
      assert.deepEqual(await t.stored(), []);
    } finally {
      await lock.release();
    }
    // Once the other process lets go, writes work again with no restart.
    assert.equal((await sign()).status, 201);
  });
});
