// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FileListResponse, UploadResponse } from '../../../../src/api/types.js';
import { expectError, json, startTestService, type TestService } from '../../../helpers/service.js';

describe('GET /v1/files/:id', () => {
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

  it("never shows another project's files: they are not_found", async () => {
    const mine = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: 'mine', key: keys.secretKey }),
      201,
    );
    await expectError(await t.api(`/v1/files/${mine.id}`), 404, 'not_found');
    await expectError(await t.api(`/v1/files/${mine.id}`, { method: 'DELETE' }), 404, 'not_found');
    const theirs = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    assert.ok(!theirs.files.some((file) => file.id === mine.id));
    assert.equal((await t.api(`/v1/files/${mine.id}`, { key: keys.secretKey })).status, 200);
  });

  it('answers unknown ids and routes with not_found', async () => {
    await expectError(await t.api('/v1/files/nope'), 404, 'not_found');
    await expectError(await t.api(`/v1/files/${'x'.repeat(400)}`), 404, 'not_found');
    await expectError(await t.api('/v1/nothing'), 404, 'not_found');
    await expectError(await t.api('/v2/files'), 404, 'not_found');
    await expectError(await t.api('/v1/files', { method: 'PATCH' }), 404, 'not_found');
  });
});
