import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import { startRgw, type TestRgw } from '../../helpers/ceph-rgw.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { scaleEnv } from '../../helpers/scale.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const pg = await startPostgres();
const rgw = await startRgw();
const skip = 'skip' in pg ? pg.skip : 'skip' in rgw ? rgw.skip : undefined;

/**
 * The scale deployment when what it stands on fails: a bucket that stops answering, a
 * database that goes away. Requests that need them get `503 unavailable` with
 * `Retry-After` within seconds (never a hang, never a 500); requests that need neither
 * keep answering at once. This file has its own PostgreSQL and gateway: it breaks them.
 */
describe('the scale deployment when its database or bucket fails', { skip }, () => {
  let t: TestService;
  const servers = { pg: pg as TestPostgres, rgw: rgw as TestRgw };

  before(async () => {
    t = await startTestService(await scaleEnv(servers.pg, servers.rgw, [ALLOWED_ORIGIN]));
  });
  after(async () => {
    await t?.close();
    if (!skip) {
      await servers.rgw.stop();
      await servers.pg.stop();
    }
  });

  /** The answer, and how long it took. */
  async function timed(request: () => Promise<Response>) {
    const started = Date.now();
    const response = await request();
    return { response, ms: Date.now() - started };
  }

  async function expectUnavailable(response: Response) {
    const retryAfter = Number(response.headers.get('retry-after'));
    await expectError(response, 503, 'unavailable');
    assert.ok(retryAfter >= 1, `Retry-After ${retryAfter}`);
  }

  it('answers 503 when the bucket hangs, and serves again once it is back', async () => {
    const uploaded = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: 'kept bytes' }),
      201,
    );
    const thaw = servers.rgw.freeze();
    try {
      const { response, ms } = await timed(() => fetch(`${t.cdnUrl}/${uploaded.id}`));
      await expectUnavailable(response);
      assert.ok(ms < 15_000, `answered after ${ms} ms`);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      // The file's record needs no bucket.
      assert.equal((await t.api(`/v1/files/${uploaded.id}`)).status, 200);
    } finally {
      thaw();
    }
    const served = await fetch(`${t.cdnUrl}/${uploaded.id}`);
    assert.equal(served.status, 200);
    assert.equal(await served.text(), 'kept bytes');
  });

  it('answers 503 when the database is gone; what needs no database still answers at once', async () => {
    await servers.pg.stop();
    const { response, ms } = await timed(() => t.api('/v1/files'));
    await expectUnavailable(response);
    assert.ok(ms < 10_000, `answered after ${ms} ms`);

    const upload = await timed(() => t.api('/v1/upload', { method: 'POST', body: 'x' }));
    await expectUnavailable(upload.response);

    const preflight = await timed(() => fetch(`${t.apiUrl}/v1/files`, { method: 'OPTIONS' }));
    assert.equal(preflight.response.status, 204);
    assert.ok(preflight.ms < 1000, `preflight after ${preflight.ms} ms`);
    const wrongShape = await timed(() => fetch(`${t.cdnUrl}/not%20an%20id`));
    assert.equal(wrongShape.response.status, 404);
    assert.ok(wrongShape.ms < 1000, `CDN 404 after ${wrongShape.ms} ms`);
  });
});
