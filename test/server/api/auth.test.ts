// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileListResponse } from '../../../src/api/types.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  OTHER_ORIGIN,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

describe('keys, origins, CORS and rate limits', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_RATE_LIMIT: '5' });
  });
  after(() => t.close());

  it('answers a preflight on any API path the same for every origin', async () => {
    for (const [path, origin] of [
      ['/v1/upload', ALLOWED_ORIGIN],
      ['/v1/files/abc', OTHER_ORIGIN],
      ['/v1/uploads/x/parts/1', 'http://anything.test'],
    ] as const) {
      const response = await fetch(`${t.apiUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'PUT',
          'Access-Control-Request-Headers': 'authorization, content-type, x-filename',
        },
      });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), origin);
      assert.equal(response.headers.get('access-control-allow-methods'), 'GET, POST, PUT, DELETE');
      assert.equal(
        response.headers.get('access-control-allow-headers'),
        'Authorization, Content-Type, X-Filename, X-Metadata, X-Visibility, Content-Digest, X-Upload-Token',
      );
      assert.equal(response.headers.get('access-control-max-age'), '600');
      assert.equal(response.headers.get('vary'), 'Origin');
    }
  });

  it('puts CORS headers on errors too, so a page can read them', async () => {
    const response = await t.api('/v1/files', { key: 'pk_live_unknown', origin: OTHER_ORIGIN });
    assert.equal(response.headers.get('access-control-allow-origin'), OTHER_ORIGIN);
    assert.equal(response.headers.get('vary'), 'Origin');
    assert.equal(
      response.headers.get('access-control-expose-headers'),
      'Retry-After, ETag, X-Request-Id',
    );
    await expectError(response, 401, 'invalid_key');
  });

  it('accepts the secret key everywhere, from any origin or none', async () => {
    assert.equal((await t.api('/v1/files')).status, 200);
    assert.equal((await t.api('/v1/files', { origin: OTHER_ORIGIN })).status, 200);
  });

  it('reads a key one way only: "Bearer", one space, the key', async () => {
    const call = (authorization: string) =>
      t.api('/v1/files', { key: null, headers: { Authorization: authorization } });
    assert.equal((await call(`Bearer ${t.secretKey}`)).status, 200);
    // The scheme is case-insensitive (RFC 9110); Node drops whitespace around the value.
    assert.equal((await call(`bearer ${t.secretKey}`)).status, 200);
    assert.equal((await call(`  Bearer ${t.secretKey}  `)).status, 200);
    for (const spaced of [
      `Bearer  ${t.secretKey}`,
      `Bearer\t${t.secretKey}`,
      `Bearer ${t.secretKey} x`,
    ]) {
      await expectError(await call(spaced), 401, 'invalid_key');
    }
  });

  it('refuses a key of one kind dressed as the other, and revoked keys', async () => {
    const swapped = `pk_live_${t.secretKey.slice('sk_live_'.length)}`;
    await expectError(
      await t.api('/v1/files', { key: swapped, origin: ALLOWED_ORIGIN }),
      401,
      'invalid_key',
    );
    const other = await t.otherProject();
    const keys = await t.service.context.db.listKeys(other.project.id);
    const secret = keys.find((key) => key.kind === 'secret');
    assert.ok(secret);
    assert.equal((await t.api('/v1/files', { key: other.secretKey })).status, 200);
    await t.service.context.db.revokeKey(secret.id, Date.now());
    await expectError(await t.api('/v1/files', { key: other.secretKey }), 401, 'invalid_key');
  });

  it('says which credential needs a usable Origin, with its article', async () => {
    const refused = await expectError(
      await t.api('/v1/files', { key: t.publishableKey }),
      403,
      'origin_not_allowed',
    );
    assert.match(refused.message, /^A publishable key only works from a web page/);
    const { token } = await json<{ token: string }>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
      201,
    );
    const byToken = await expectError(
      await t.sign({ name: 'a.txt', size: 1 }, { key: token, origin: 'null' }),
      403,
      'origin_not_allowed',
    );
    assert.match(byToken.message, /^An upload token only works from a web page/);
  });

  it('rate-limits the publishable key per key and client: the sixth quick request at rate 5 is refused', async () => {
    const other = await t.otherProject();
    const call = () => t.api('/v1/files', { key: other.publishableKey, origin: ALLOWED_ORIGIN });
    for (let index = 0; index < 5; index++) {
      await json<FileListResponse>(await call());
    }
    const refused = await call();
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 12, `Retry-After ${retryAfter}`);
    await expectError(refused, 429, 'rate_limited', { retryAfter });
    // The secret key of the same project is not limited.
    for (let index = 0; index < 8; index++) {
      assert.equal((await t.api('/v1/files', { key: other.secretKey })).status, 200);
    }
  });
});
