// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  CompleteBatchResponse,
  FileRecord,
  SignBatchResponse,
  SignResponse,
} from '../../../../src/api/types.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

const MiB = 1024 * 1024;

describe('POST /v1/uploads/complete: batch complete', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
  });
  after(() => t.close());

  const put = async (part: SignResponse['parts'][number], bytes: Uint8Array<ArrayBuffer>) =>
    partAccepted(await t.putPart(part, bytes), part);

  it('completes each upload on its own: an unknown id and an incomplete upload beside good ones', async () => {
    const other = await t.otherProject();
    const foreign = await json<SignResponse>(
      await t.sign({ name: 'theirs', size: 3 }, { key: other.secretKey }),
      201,
    );
    const signed = await json<SignBatchResponse>(
      await t.signMany([
        { name: 'one.txt', size: 4 },
        { name: 'half.bin', size: 6 * MiB },
        { name: 'two.txt', size: 5 },
      ]),
      201,
    );
    const [one, half, two] = signed.uploads as [SignResponse, SignResponse, SignResponse];
    await put(one.parts[0] as SignResponse['parts'][number], patternBytes(4, 1));
    await put(two.parts[0] as SignResponse['parts'][number], patternBytes(5, 2));
    await put(half.parts[1] as SignResponse['parts'][number], patternBytes(MiB, 3));

    const done = await json<CompleteBatchResponse>(
      await t.completeMany([
        { id: one.id },
        { id: 'unknownUnknownUnknown' },
        { id: half.id },
        { id: foreign.id },
        { id: 'not an id!' },
        { id: two.id, parts: [{ partNumber: 1, etag: '"not-the-etag"' }] },
        { id: one.id },
      ]),
    );
    assert.equal(done.results.length, 7);
    assert.equal(done.results[0]?.file?.status, 'ready');
    assert.equal(done.results[0]?.file?.id, one.id);
    assert.deepEqual(
      done.results.map((result) => result.error?.code ?? 'ok'),
      ['ok', 'not_found', 'upload_incomplete', 'not_found', 'not_found', 'upload_incomplete', 'ok'],
    );
    // Each error carries the status the single complete would have answered.
    assert.deepEqual(
      done.results.map((result) => result.error?.status ?? 'ok'),
      ['ok', 404, 409, 404, 404, 409, 'ok'],
    );
    assert.deepEqual(done.results[2]?.error?.missingParts, [1]);
    assert.deepEqual(done.results[5]?.error?.mismatchedParts, [1]);
    for (const result of done.results) {
      if (result.error) assert.ok(result.error.message.length > 0);
    }
    assert.deepEqual(done.results[6]?.file, done.results[0]?.file);
    // The ones held back are still pending and complete later on their own.
    assert.equal((await json<FileRecord>(await t.api(`/v1/files/${half.id}`))).status, 'pending');
    const again = await json<CompleteBatchResponse>(await t.completeMany([{ id: two.id }]));
    assert.equal(again.results[0]?.file?.status, 'ready');
    // Another project's upload was left alone.
    assert.equal(
      (await json<FileRecord>(await t.api(`/v1/files/${foreign.id}`, { key: other.secretKey })))
        .status,
      'pending',
    );
  });

  it('refuses a malformed batch complete whole with 400 invalid_request', async () => {
    for (const body of ['{', '[]', '{}', JSON.stringify({ uploads: [] })]) {
      await expectError(await t.completeMany(body), 400, 'invalid_request');
    }
    await expectError(
      await t.completeMany(Array.from({ length: 101 }, () => ({ id: 'abc' }))),
      400,
      'invalid_request',
    );
    await expectError(await t.completeMany([{ id: 'abc' }, {}]), 400, 'invalid_request', {
      index: 1,
    });
    await expectError(await t.completeMany([{ id: 'abc', parts: 'all' }]), 400, 'invalid_request', {
      index: 0,
    });
    await expectError(
      await t.completeMany([{ id: 'abc', parts: [{ partNumber: 'one', etag: 'x' }] }]),
      400,
      'invalid_request',
      { index: 0 },
    );
    await expectError(await t.completeMany(undefined, { key: null }), 401, 'missing_auth');
  });

  it('follows the key rules of the single calls: publishable key from allowed origins only', async () => {
    await expectError(
      await t.signMany([{ name: 'a', size: 1 }], { key: t.publishableKey }),
      403,
      'origin_not_allowed',
    );
    const signed = await json<SignBatchResponse>(
      await t.signMany([{ name: 'a', size: 1 }], { key: t.publishableKey, origin: ALLOWED_ORIGIN }),
      201,
    );
    const id = signed.uploads[0]?.id as string;
    await expectError(
      await t.completeMany([{ id }], { key: t.publishableKey }),
      403,
      'origin_not_allowed',
    );
    await put(signed.uploads[0]?.parts[0] as SignResponse['parts'][number], patternBytes(1));
    // With a publishable key, each entry shows the token its sign answered.
    const without = await json<CompleteBatchResponse>(
      await t.completeMany([{ id }], { key: t.publishableKey, origin: ALLOWED_ORIGIN }),
    );
    assert.equal(without.results[0]?.error?.code, 'not_found');
    const uploadToken = signed.uploads[0]?.uploadToken;
    const done = await json<CompleteBatchResponse>(
      await t.completeMany([{ id, uploadToken }], {
        key: t.publishableKey,
        origin: ALLOWED_ORIGIN,
      }),
    );
    assert.equal(done.results[0]?.file?.status, 'ready');
  });
});

describe('batch calls and the rate limit', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_RATE_LIMIT: '3' });
  });
  after(() => t.close());

  it('counts a batch of 50 as one request, sign and complete alike', async () => {
    const page = { key: t.publishableKey, origin: ALLOWED_ORIGIN };
    const files = Array.from({ length: 50 }, (_, index) => ({ name: `s${index}`, size: 1 }));
    const signed = await json<SignBatchResponse>(await t.signMany(files, page), 201);
    assert.equal(signed.uploads.length, 50);
    const uploads = signed.uploads.map(({ id, uploadToken }) => ({ id, uploadToken }));
    const done = await json<CompleteBatchResponse>(await t.completeMany(uploads, page));
    assert.ok(done.results.every((result) => result.error?.code === 'upload_incomplete'));
    assert.equal((await t.completeMany(uploads, page)).status, 200);
    const refused = await t.signMany(files, page);
    await expectError(refused, 429, 'rate_limited');
  });
});
