// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { SignResponse, UploadResponse } from '../../../../src/api/types.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  expectPartRefused,
  json,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('DELETE /v1/files/:id of a pending upload', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('cancels a pending upload with DELETE: its id is gone everywhere, part PUTs included', async () => {
    const signed = await json<SignResponse>(await t.sign({ name: 'c', size: 10 }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    assert.equal((await t.api(`/v1/files/${signed.id}`, { method: 'DELETE' })).status, 204);
    await expectPartRefused(
      await t.putPart(part, patternBytes(10)),
      { local: 404, s3: 404 },
      'not_found',
    );
    await expectError(await t.complete(signed.id), 404, 'not_found');
    await expectError(await t.state(signed.id), 404, 'not_found');
    await expectError(await t.api(`/v1/files/${signed.id}`), 404, 'not_found');
  });
});

describe('DELETE /v1/files/:id', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  beforeEach(async () => {
    // Each test lists a fresh project of its own so earlier files do not interfere.
    keys = await t.otherProject();
  });
  let keys: { secretKey: string; publishableKey: string };

  it('deletes with the secret key only; a deleted file is gone everywhere', async () => {
    const file = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: 'bye', key: keys.secretKey }),
      201,
    );
    await expectError(
      await t.api(`/v1/files/${file.id}`, {
        method: 'DELETE',
        key: keys.publishableKey,
        origin: ALLOWED_ORIGIN,
      }),
      403,
      'secret_key_required',
    );
    assert.equal((await fetch(publicUrlOf(file))).status, 200);
    const deleted = await t.api(`/v1/files/${file.id}`, { method: 'DELETE', key: keys.secretKey });
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), '');
    await expectError(
      await t.api(`/v1/files/${file.id}`, { key: keys.secretKey }),
      404,
      'not_found',
    );
    await expectError(
      await t.api(`/v1/files/${file.id}`, { method: 'DELETE', key: keys.secretKey }),
      404,
      'not_found',
    );
    const cdn = await fetch(publicUrlOf(file));
    assert.equal(cdn.status, 404);
    assert.equal(cdn.headers.get('cache-control'), 'no-store');
  });
});
