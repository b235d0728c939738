// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, SignResponse, UploadState } from '../../../../src/api/types.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import {
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';
import { partSlice } from '../../../helpers/signed-parts.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('GET /v1/uploads/:id', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('reports missing parts, resumes from the upload state, and checks claimed ETags', async () => {
    const bytes = patternBytes(3 * PART, 5);
    const signed = await json<SignResponse>(
      await t.sign({ name: 'r.bin', size: bytes.length }),
      201,
    );
    const [p1, p2, p3] = signed.parts as [
      SignResponse['parts'][number],
      SignResponse['parts'][number],
      SignResponse['parts'][number],
    ];
    const first = {
      etag: await partAccepted(await t.putPart(p1, partSlice(bytes, signed, 1)), p1),
    };
    await partAccepted(await t.putPart(p3, partSlice(bytes, signed, 3)), p3);
    await expectError(await t.complete(signed.id), 409, 'upload_incomplete', {
      missingParts: [2],
      mismatchedParts: [],
    });

    const state = await json<UploadState>(await t.state(signed.id));
    assert.equal(state.status, 'pending');
    assert.equal(state.partSize, PART);
    assert.deepEqual(
      state.parts.map((part) => [part.partNumber, part.size, part.etag !== null]),
      [
        [1, PART, true],
        [2, PART, false],
        [3, PART, true],
      ],
    );
    assert.equal(state.parts[0]?.etag, first.etag);
    const missing = state.parts.find((part) => part.etag === null);
    assert.ok(missing?.url && missing.headers);
    await partAccepted(
      await fetch(missing.url, {
        method: 'PUT',
        headers: missing.headers,
        body: partSlice(bytes, signed, 2),
      }),
      missing,
    );

    await expectError(
      await t.complete(signed.id, { parts: [{ partNumber: 1, etag: '"not-it"' }] }),
      409,
      'upload_incomplete',
      { missingParts: [], mismatchedParts: [1] },
    );
    await expectError(await t.complete(signed.id, { parts: 'all' }), 400, 'invalid_request');
    await expectError(
      await t.complete(signed.id, { parts: [{ partNumber: 'one' }] }),
      400,
      'invalid_request',
    );

    // Re-sending a part replaces it (new bytes, new ETag).
    const replaced = patternBytes(PART, 77);
    const second = { etag: await partAccepted(await t.putPart(p2, replaced), p2) };
    const record = await json<FileRecord>(await t.complete(signed.id));
    const served = Buffer.from(await (await fetch(publicUrlOf(record))).arrayBuffer());
    assert.ok(served.subarray(PART, 2 * PART).equals(replaced));
    assert.ok(served.subarray(0, PART).equals(partSlice(bytes, signed, 1)));
    assert.notEqual(second.etag, first.etag);

    const done = await json<UploadState>(await t.state(signed.id));
    assert.equal(done.status, 'ready');
    assert.ok(done.parts.every((part) => part.etag !== null && part.url === undefined));
  });

  it('keeps uploads per project and answers unknown ids with not_found', async () => {
    const signed = await json<SignResponse>(await t.sign({ name: 'c', size: 10 }), 201);
    const other = await t.otherProject();
    await expectError(
      await t.complete(signed.id, undefined, { key: other.secretKey }),
      404,
      'not_found',
    );
    await expectError(await t.state(signed.id, { key: other.secretKey }), 404, 'not_found');
    await expectError(await t.api('/v1/uploads/nope'), 404, 'not_found');
    await expectError(await t.complete('nope'), 404, 'not_found');
    // A one-request upload has no multi-step state.
    const single = await json<{ id: string }>(
      await t.api('/v1/upload', { method: 'POST', body: 'x' }),
      201,
    );
    await expectError(await t.state(single.id), 404, 'not_found');
  });
});
