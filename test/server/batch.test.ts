// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  CompleteBatchResponse,
  FileListResponse,
  FileRecord,
  SignBatchResponse,
  SignResponse,
} from '../../src/api/types.js';
import { BlobUnavailableError } from '../../src/server/storage/blob-store.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const MiB = 1024 * 1024;

describe('batch sign and batch complete (many small files)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
  });
  after(() => t.close());

  const post = (path: string, body: unknown, key = t.secretKey, origin?: string) =>
    t.api(path, {
      method: 'POST',
      key,
      origin,
      headers: { 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const signMany = (files: unknown, key?: string) => post('/v1/uploads/sign', { files }, key);
  const completeMany = (uploads: unknown, key?: string) =>
    post('/v1/uploads/complete', { uploads }, key);

  const put = async (part: SignResponse['parts'][number], bytes: Uint8Array<ArrayBuffer>) =>
    partAccepted(
      await fetch(part.url, { method: part.method, headers: part.headers, body: bytes }),
      part,
    );

  /** Every visible file id of the default project, and what the store holds. */
  async function snapshot(): Promise<{ ids: string[]; stored: string[] }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: FileListResponse = await json<FileListResponse>(
        await t.api(`/v1/files?limit=100${cursor ? `&cursor=${cursor}` : ''}`),
      );
      ids.push(...page.files.map((file) => file.id));
      cursor = page.nextCursor;
    } while (cursor);
    return { ids: ids.sort(), stored: await t.stored() };
  }

  it('signs several files in one call, in order, each a pending upload like a single sign', async () => {
    const contents = [patternBytes(10, 1), patternBytes(2000, 2), patternBytes(6 * MiB, 3)];
    const signed = await json<SignBatchResponse>(
      await signMany([
        { name: 'a.txt', size: 10, type: 'text/plain', metadata: { user: 'u1' } },
        { name: 'b.bin', size: 2000 },
        { name: 'c.mp4', size: 6 * MiB, type: 'video/mp4' },
      ]),
      201,
    );
    assert.equal(signed.uploads.length, 3);
    assert.deepEqual(
      signed.uploads.map((upload) => upload.parts.map((part) => part.size)),
      [[10], [2000], [5 * MiB, MiB]],
    );
    assert.equal(new Set(signed.uploads.map((upload) => upload.id)).size, 3);
    for (const upload of signed.uploads) {
      assert.equal(
        (await json<FileRecord>(await t.api(`/v1/files/${upload.id}`))).status,
        'pending',
      );
    }
    const parts = await Promise.all(
      signed.uploads.map(async (upload, index) => {
        const bytes = contents[index] as Uint8Array<ArrayBuffer>;
        return Promise.all(
          upload.parts.map(async (part) => {
            const start = (part.partNumber - 1) * upload.partSize;
            const etag = await put(part, bytes.slice(start, start + part.size));
            return { partNumber: part.partNumber, etag };
          }),
        );
      }),
    );
    const done = await json<CompleteBatchResponse>(
      await completeMany(
        signed.uploads.map((upload, index) => ({ id: upload.id, parts: parts[index] })),
      ),
    );
    assert.deepEqual(
      done.results.map((result) => [result.file?.name, result.file?.status, result.error]),
      [
        ['a.txt', 'ready', undefined],
        ['b.bin', 'ready', undefined],
        ['c.mp4', 'ready', undefined],
      ],
    );
    assert.deepEqual(done.results[0]?.file?.metadata, { user: 'u1' });
    for (const [index, result] of done.results.entries()) {
      const record = result.file as FileRecord;
      assert.deepEqual(record, await json<FileRecord>(await t.api(`/v1/files/${record.id}`)));
      assertSameBytes(await (await fetch(record.url)).arrayBuffer(), contents[index] as Uint8Array);
    }
  });

  it('is all or nothing: one bad entry refuses the batch with its index, and nothing is created', async () => {
    const before = await snapshot();
    const good = { name: 'ok.txt', size: 5 };
    const refusal = await expectError(
      await signMany([
        good,
        good,
        { name: 'empty', size: 0 },
        { name: 'bad', size: 1, type: 'nope' },
      ]),
      400,
      'empty_body',
      { index: 2 },
    );
    assert.match(refusal.message, /^files\[2\]: /);
    await expectError(
      await signMany([good, { name: 'huge', size: 100_000_001 }]),
      413,
      'too_large',
      { index: 1, limit: 100_000_000 },
    );
    await expectError(
      await signMany([good, good, good, { name: 'm', size: 1, metadata: { a: 1 } }]),
      400,
      'invalid_request',
      { index: 3 },
    );
    await expectError(await signMany(['not an object']), 400, 'invalid_request', { index: 0 });
    await expectError(await signMany([good, { name: 7, size: 1 }]), 400, 'invalid_request', {
      index: 1,
    });
    assert.deepEqual(await snapshot(), before);
  });

  it('takes 1 to 100 files: 100 are signed, 101 or none or not a list are refused whole', async () => {
    const before = await snapshot();
    for (const files of [[], 'a', { name: 'a', size: 1 }, null]) {
      await expectError(await signMany(files), 400, 'invalid_request');
    }
    const many = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `f${index}.txt`, size: index + 1 }));
    await expectError(await signMany(many(101)), 400, 'invalid_request');
    assert.deepEqual(await snapshot(), before);

    const signed = await json<SignBatchResponse>(await signMany(many(100)), 201);
    assert.deepEqual(
      signed.uploads.map((upload) => upload.parts[0]?.size),
      many(100).map((file) => file.size),
    );
    const after = await snapshot();
    assert.equal(after.ids.length, before.ids.length + 100);
  });

  it('takes back what it made when a store fails half-way: 503, nothing half-made stays', async () => {
    const before = await snapshot();
    const blobs = t.service.context.blobs;
    const original = blobs.createMultipart;
    let calls = 0;
    // A real fault of the store on the fifth upload of the batch (the storage going away).
    blobs.createMultipart = function (this: typeof blobs, ...args) {
      calls++;
      if (calls === 5) {
        return Promise.reject(new BlobUnavailableError('unreachable', 'storage went away'));
      }
      return original.apply(this, args);
    };
    try {
      const files = Array.from({ length: 20 }, (_, index) => ({ name: `r${index}`, size: 10 }));
      await expectError(await signMany(files), 503, 'unavailable');
    } finally {
      blobs.createMultipart = original;
    }
    assert.ok(calls >= 5 && calls < 20, `stopped starting new uploads after the fault (${calls})`);
    assert.deepEqual(await snapshot(), before);
  });

  it('completes each upload on its own: an unknown id and an incomplete upload beside good ones', async () => {
    const other = await t.otherProject();
    const foreign = await json<SignResponse>(
      await post('/v1/uploads/sign', { name: 'theirs', size: 3 }, other.secretKey),
      201,
    );
    const signed = await json<SignBatchResponse>(
      await signMany([
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
      await completeMany([
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
    const again = await json<CompleteBatchResponse>(await completeMany([{ id: two.id }]));
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
      await expectError(await post('/v1/uploads/complete', body), 400, 'invalid_request');
    }
    await expectError(
      await completeMany(Array.from({ length: 101 }, () => ({ id: 'abc' }))),
      400,
      'invalid_request',
    );
    await expectError(await completeMany([{ id: 'abc' }, {}]), 400, 'invalid_request', {
      index: 1,
    });
    await expectError(await completeMany([{ id: 'abc', parts: 'all' }]), 400, 'invalid_request', {
      index: 0,
    });
    await expectError(
      await completeMany([{ id: 'abc', parts: [{ partNumber: 'one', etag: 'x' }] }]),
      400,
      'invalid_request',
      { index: 0 },
    );
    await expectError(
      await t.api('/v1/uploads/complete', { method: 'POST', key: null }),
      401,
      'missing_auth',
    );
  });

  it('follows the key rules of the single calls: publishable key from allowed origins only', async () => {
    await expectError(
      await post('/v1/uploads/sign', { files: [{ name: 'a', size: 1 }] }, t.publishableKey),
      403,
      'origin_not_allowed',
    );
    const signed = await json<SignBatchResponse>(
      await post(
        '/v1/uploads/sign',
        { files: [{ name: 'a', size: 1 }] },
        t.publishableKey,
        ALLOWED_ORIGIN,
      ),
      201,
    );
    const id = signed.uploads[0]?.id as string;
    await expectError(
      await post('/v1/uploads/complete', { uploads: [{ id }] }, t.publishableKey),
      403,
      'origin_not_allowed',
    );
    await put(signed.uploads[0]?.parts[0] as SignResponse['parts'][number], patternBytes(1));
    // With a publishable key, each entry shows the token its sign answered.
    const without = await json<CompleteBatchResponse>(
      await post('/v1/uploads/complete', { uploads: [{ id }] }, t.publishableKey, ALLOWED_ORIGIN),
    );
    assert.equal(without.results[0]?.error?.code, 'not_found');
    const uploadToken = signed.uploads[0]?.uploadToken;
    const done = await json<CompleteBatchResponse>(
      await post(
        '/v1/uploads/complete',
        { uploads: [{ id, uploadToken }] },
        t.publishableKey,
        ALLOWED_ORIGIN,
      ),
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
    const call = (path: string, body: unknown) =>
      t.api(path, {
        method: 'POST',
        key: t.publishableKey,
        origin: ALLOWED_ORIGIN,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const files = Array.from({ length: 50 }, (_, index) => ({ name: `s${index}`, size: 1 }));
    const signed = await json<SignBatchResponse>(await call('/v1/uploads/sign', { files }), 201);
    assert.equal(signed.uploads.length, 50);
    const uploads = signed.uploads.map(({ id, uploadToken }) => ({ id, uploadToken }));
    const done = await json<CompleteBatchResponse>(await call('/v1/uploads/complete', { uploads }));
    assert.ok(done.results.every((result) => result.error?.code === 'upload_incomplete'));
    assert.equal((await call('/v1/uploads/complete', { uploads })).status, 200);
    const refused = await call('/v1/uploads/sign', { files });
    await expectError(refused, 429, 'rate_limited');
  });
});
