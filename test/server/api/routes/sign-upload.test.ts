// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  CompleteBatchResponse,
  FileListResponse,
  FileRecord,
  SignBatchResponse,
  SignedPart,
  SignResponse,
  Usage,
} from '../../../../src/api/types.js';
import { BlobUnavailableError } from '../../../../src/server/storage/blob-store.js';
import { signFailsWithFilesBusy } from '../../../helpers/busy-files.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import { SCALE } from '../../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  json,
  OTHER_ORIGIN,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';
import { partHeaders, sharedUrlHeaders } from '../../../helpers/signed-parts.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('POST /v1/uploads/sign', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('works from a browser page: publishable key, allowed origin, CORS on the part PUT', async () => {
    const bytes = patternBytes(1000, 9);
    const signed = await json<SignResponse>(
      await t.sign(
        { name: 'a.txt', size: 1000, type: 'text/plain' },
        { key: t.publishableKey, origin: ALLOWED_ORIGIN },
      ),
      201,
    );
    const part = signed.parts[0] as SignResponse['parts'][number];
    const response = await fetch(part.url, {
      method: 'PUT',
      headers: { ...part.headers, Origin: ALLOWED_ORIGIN },
      body: bytes,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.match(response.headers.get('access-control-expose-headers') ?? '', /ETag/);
    const done = await t.api(`/v1/uploads/${signed.id}/complete`, {
      method: 'POST',
      key: t.publishableKey,
      origin: ALLOWED_ORIGIN,
      headers: { 'X-Upload-Token': signed.uploadToken },
    });
    assert.equal((await json<FileRecord>(done)).status, 'ready');
    await expectError(
      await t.sign({ name: 'a.txt', size: 1 }, { key: t.publishableKey, origin: OTHER_ORIGIN }),
      403,
      'origin_not_allowed',
    );
  });

  it('validates the sign request', async () => {
    await expectError(await t.sign('{not json'), 400, 'invalid_request');
    await expectError(await t.sign('[1]'), 400, 'invalid_request');
    await expectError(await t.sign(''), 400, 'invalid_request');
    await expectError(await t.sign({ name: 'a' }), 400, 'invalid_request');
    for (const size of [-1, 1.5, '10', null, 1e300, Number.MAX_SAFE_INTEGER + 2]) {
      await expectError(await t.sign({ name: 'a', size }), 400, 'invalid_request');
    }
    await expectError(await t.sign({ name: 7, size: 1 }), 400, 'invalid_request');
    await expectError(await t.sign({ name: 'a', size: 1, type: 'nope' }), 400, 'invalid_request');
    await expectError(await t.sign({ name: 'a', size: 1, type: 5 }), 400, 'invalid_request');
    await expectError(
      await t.sign({ name: 'a', size: 1, metadata: { a: 1 } }),
      400,
      'invalid_request',
    );
    await expectError(await t.sign({ name: 'a', size: 0 }), 400, 'empty_body');
    await expectError(
      await t.api('/v1/uploads/sign', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: JSON.stringify({ name: 'a', size: 1 }),
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await t.sign(JSON.stringify({ name: 'x'.repeat(70 * 1024), size: 1 })),
      400,
      'invalid_request',
    );
    const defaults = await json<SignResponse>(await t.sign({ size: 3 }), 201);
    assert.deepEqual(
      partHeaders(defaults.parts[0]),
      SCALE ? {} : { 'Content-Type': 'application/octet-stream', ...sharedUrlHeaders(defaults, 1) },
    );
    const record = await json<FileRecord>(await t.api(`/v1/files/${defaults.id}`));
    assert.equal(record.name, 'upload');
  });

  it('keeps the visibility chosen at sign through complete: private records have url null', async () => {
    const bytes = patternBytes(1000, 4);
    const signed = await json<SignResponse>(
      await t.sign(
        { name: 'secret.txt', size: 1000, type: 'text/plain', visibility: 'private' },
        { key: t.publishableKey, origin: ALLOWED_ORIGIN },
      ),
      201,
    );
    const pending = await json<FileRecord>(await t.api(`/v1/files/${signed.id}`));
    assert.equal(pending.visibility, 'private');
    assert.equal(pending.url, null);
    const part = signed.parts[0] as SignedPart;
    await partAccepted(await t.putPart(part, bytes), part);
    const record = await json<FileRecord>(await t.complete(signed.id));
    assert.deepEqual(
      { visibility: record.visibility, url: record.url, status: record.status },
      { visibility: 'private', url: null, status: 'ready' },
    );
    assert.deepEqual(await json<FileRecord>(await t.api(`/v1/files/${signed.id}`)), record);
    const listed = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    assert.deepEqual(
      listed.files.find((file) => file.id === signed.id),
      record,
    );
    // Unsigned, the CDN answers exactly as for an id that does not exist.
    const cdn = await fetch(`${t.cdnUrl}/${signed.id}/secret.txt`);
    await expectError(cdn, 404, 'not_found');
    assert.equal(cdn.headers.get('cache-control'), 'no-store');

    // Batch sign takes it per entry; the default is public.
    const batch = await json<SignBatchResponse>(
      await t.signMany([
        { name: 'a.txt', size: 10, visibility: 'private' },
        { name: 'b.txt', size: 10 },
        { name: 'c.txt', size: 10, visibility: 'public' },
      ]),
      201,
    );
    const visibilities = [];
    for (const upload of batch.uploads) {
      const file = await json<FileRecord>(await t.api(`/v1/files/${upload.id}`));
      visibilities.push([file.visibility, file.url === null]);
    }
    assert.deepEqual(visibilities, [
      ['private', true],
      ['public', false],
      ['public', false],
    ]);
    for (const visibility of ['secret', '', null, true]) {
      await expectError(await t.sign({ name: 'x', size: 1, visibility }), 400, 'invalid_request');
    }
    await expectError(
      await t.signMany([
        { name: 'x', size: 1 },
        { name: 'y', size: 1, visibility: 'hidden' },
      ]),
      400,
      'invalid_request',
      { index: 1 },
    );
  });

  it('caps the sign flow by plan: 100 MB on free, 5 GiB on paid', async () => {
    await json<SignResponse>(await t.sign({ name: 'a', size: 100_000_000 }), 201);
    const error = await expectError(
      await t.sign({ name: 'a', size: 100_000_001 }),
      413,
      'too_large',
      {
        limit: 100_000_000,
      },
    );
    assert.match(error.message, /100 MB/);
    const paid = await t.otherProject();
    await t.service.context.db.updateProject(paid.project.id, { plan: 'paid' });
    const big = await json<SignResponse>(
      await t.sign({ name: 'b', size: 5 * 1024 ** 3 }, { key: paid.secretKey }),
      201,
    );
    assert.equal(big.parts.length, Math.ceil((5 * 1024 ** 3) / big.partSize));
    assert.ok(big.parts.length <= 10_000);
    await expectError(
      await t.sign({ name: 'b', size: 5 * 1024 ** 3 + 1 }, { key: paid.secretKey }),
      413,
      'too_large',
    );
  });
});

describe('POST /v1/uploads/sign with files: batch sign', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
  });
  after(() => t.close());

  const put = async (part: SignResponse['parts'][number], bytes: Uint8Array<ArrayBuffer>) =>
    partAccepted(await t.putPart(part, bytes), part);

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
      await t.signMany([
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
      await t.completeMany(
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
      assertSameBytes(
        await (await fetch(publicUrlOf(record))).arrayBuffer(),
        contents[index] as Uint8Array,
      );
    }
  });

  it('is all or nothing: one bad entry refuses the batch with its index, and nothing is created', async () => {
    const before = await snapshot();
    const good = { name: 'ok.txt', size: 5 };
    const refusal = await expectError(
      await t.signMany([
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
      await t.signMany([good, { name: 'huge', size: 100_000_001 }]),
      413,
      'too_large',
      { index: 1, limit: 100_000_000 },
    );
    await expectError(
      await t.signMany([good, good, good, { name: 'm', size: 1, metadata: { a: 1 } }]),
      400,
      'invalid_request',
      { index: 3 },
    );
    await expectError(await t.signMany(['not an object']), 400, 'invalid_request', { index: 0 });
    await expectError(await t.signMany([good, { name: 7, size: 1 }]), 400, 'invalid_request', {
      index: 1,
    });
    assert.deepEqual(await snapshot(), before);
  });

  it('takes 1 to 100 files: 100 are signed, 101 or none or not a list are refused whole', async () => {
    const before = await snapshot();
    for (const files of [[], 'a', { name: 'a', size: 1 }, null]) {
      await expectError(await t.signMany(files), 400, 'invalid_request');
    }
    const many = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `f${index}.txt`, size: index + 1 }));
    await expectError(await t.signMany(many(101)), 400, 'invalid_request');
    assert.deepEqual(await snapshot(), before);

    const signed = await json<SignBatchResponse>(await t.signMany(many(100)), 201);
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
      await expectError(await t.signMany(files), 503, 'unavailable');
    } finally {
      blobs.createMultipart = original;
    }
    assert.ok(calls >= 5 && calls < 20, `stopped starting new uploads after the fault (${calls})`);
    assert.deepEqual(await snapshot(), before);
  });

  // The client that hears 503 signs again: an upload left pending now is one nobody will
  // ever complete, counted against the project's pending cap until the sweeper's expiry.
  for (const [what, files] of [
    ['a single sign', 1],
    ['a batch sign', 5],
  ] as const) {
    it(`takes back ${what} that failed after its rows were written, though the database first refused the take-back`, async () => {
      const before = await snapshot();
      const pendingBefore = (await json<Usage>(await t.api('/v1/usage'))).pendingUploads;
      const fault = signFailsWithFilesBusy(t);
      let refused: boolean;
      try {
        const names = Array.from({ length: files }, (_, index) => ({
          name: `t${index}`,
          size: 10,
        }));
        const answer = files === 1 ? await t.sign(names[0]) : await t.signMany(names);
        await expectError(answer, 503, 'unavailable');
      } finally {
        refused = (await fault.restore()).refused;
      }
      assert.ok(refused, 'the database refused the first take-back');
      // Answered only once taken back: nothing of it is listed, counted or stored.
      assert.equal((await json<Usage>(await t.api('/v1/usage'))).pendingUploads, pendingBefore);
      assert.deepEqual(await snapshot(), before);
    });
  }
});
