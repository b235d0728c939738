// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, SignResponse } from '../../../../src/api/types.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import { SCALE } from '../../../helpers/scale-mode.js';
import {
  assertSameBytes,
  expectPartRefused,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';
import { partHeaders, partSlice, sharedUrlHeaders } from '../../../helpers/signed-parts.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('POST /v1/uploads/:id/complete', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('uploads a three-part file in parallel and serves every byte after complete', async () => {
    const bytes = patternBytes(2 * PART + 12_345, 3);
    const signed = await json<SignResponse>(
      await t.sign({
        name: 'video.mp4',
        size: bytes.length,
        type: 'video/mp4',
        metadata: { user: 'u1' },
      }),
      201,
    );
    assert.equal(signed.partSize, PART);
    assert.deepEqual(
      signed.parts.map((part) => [part.partNumber, part.size, part.method]),
      [
        [1, PART, 'PUT'],
        [2, PART, 'PUT'],
        [3, 12_345, 'PUT'],
      ],
    );
    // The local store signs the content type into its part URLs; S3 fixed it at creation.
    assert.deepEqual(
      partHeaders(signed.parts[0]),
      SCALE ? {} : { 'Content-Type': 'video/mp4', ...sharedUrlHeaders(signed, 1) },
    );
    // The upload itself expires a day after its sign (or its last part).
    assert.ok(signed.expiresAt > Date.now() + 23.9 * 3_600_000);
    assert.ok(signed.expiresAt <= Date.now() + 24 * 3_600_000);
    assert.match(signed.uploadToken, /^[A-Za-z0-9_-]{22,}$/);

    const pending = await json<FileRecord>(await t.api(`/v1/files/${signed.id}`));
    assert.equal(pending.status, 'pending');
    assert.equal((await fetch(publicUrlOf(pending))).status, 404);

    const results = await Promise.all(
      signed.parts.map(async (part) => {
        const response = await t.putPart(part, partSlice(bytes, signed, part.partNumber));
        return { partNumber: part.partNumber, etag: await partAccepted(response, part) };
      }),
    );
    const record = await json<FileRecord>(
      await t.complete(signed.id, {
        parts: results.map(({ partNumber, etag }) => ({ partNumber, etag })),
      }),
    );
    assert.equal(record.status, 'ready');
    assert.equal(record.size, bytes.length);
    assert.equal(record.name, 'video.mp4');
    assert.deepEqual(record.metadata, { user: 'u1' });
    assert.deepEqual(record, await json<FileRecord>(await t.api(`/v1/files/${signed.id}`)));
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);

    // Complete again: the same answer. A part after completion: upload_not_pending.
    assert.deepEqual(await json<FileRecord>(await t.complete(signed.id)), record);
    await expectPartRefused(
      await t.putPart(
        signed.parts[0] as SignResponse['parts'][number],
        partSlice(bytes, signed, 1),
      ),
      { local: 409, s3: 404 },
      'upload_not_pending',
    );
  });
});
