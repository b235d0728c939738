// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FileListResponse, UploadBatchResponse } from '../../../../src/api/types.js';
import { bytesOfType } from '../../../helpers/bytes.js';
import { cutBatch } from '../../../helpers/cut-batch.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  json,
  OTHER_ORIGIN,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

interface Entry {
  name?: string;
  size: number;
  sha256?: string;
  type?: string;
  metadata?: Record<string, string>;
  visibility?: string;
}

/** A batch body: the `files` field, then one `file` part per given byte array. */
function batchForm(entries: Entry[], bodies: Uint8Array[]): FormData {
  const form = new FormData();
  form.append('files', JSON.stringify(entries));
  bodies.forEach((bytes, index) => {
    form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), `part${index}`);
  });
  return form;
}

describe('POST /v1/upload/batch', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const send = (form: FormData, key?: string, origin?: string) =>
    t.api('/v1/upload/batch', { method: 'POST', body: form, key: key ?? t.secretKey, origin });

  const listed = async () =>
    (await json<FileListResponse>(await t.api('/v1/files?limit=100'))).files.map((file) => file.id);

  it('stores every file of one request, each ready at once with its own record, in order', async () => {
    const png = bytesOfType('image/png', 3000);
    const text = patternBytes(20 * 1024);
    const third = patternBytes(5, 9);
    const response = await send(
      batchForm(
        [
          { name: 'cat.png', size: png.length, metadata: { user: 'u1' } },
          { name: 'notes.txt', size: text.length, type: 'text/plain', visibility: 'private' },
          { name: 'tiny.bin', size: third.length },
        ],
        [png, text, third],
      ),
    );
    const { results } = await json<UploadBatchResponse>(response, 200);
    assert.equal(results.length, 3);
    const [first, second, last] = results.map((result) => {
      assert.ok(result.file, JSON.stringify(result));
      return result.file;
    });
    assert.ok(first && second && last);
    // The type comes from the bytes, as for a one-request upload.
    assert.equal(first.mime, 'image/png');
    assert.equal(first.name, 'cat.png');
    assert.deepEqual(first.metadata, { user: 'u1' });
    assert.equal(first.status, 'ready');
    assert.equal(first.size, png.length);
    assert.equal(second.visibility, 'private');
    assert.equal(second.url, null);
    assert.equal(last.size, 5);
    assertSameBytes(await (await fetch(first.url as string)).arrayBuffer(), png);
    assertSameBytes(await (await fetch(last.url as string)).arrayBuffer(), third);
    const ids = await listed();
    for (const file of [first, second, last]) assert.ok(ids.includes(file.id));
    const got = await json<{ status: string; size: number }>(await t.api(`/v1/files/${second.id}`));
    assert.equal(got.status, 'ready');
    assert.equal(got.size, text.length);
  });

  it('refuses one file whose bytes are not its declared size, and keeps the others', async () => {
    const good = patternBytes(1000, 3);
    const response = await send(
      batchForm(
        [
          { name: 'a.bin', size: 1000 },
          { name: 'b.bin', size: 10 },
          { name: 'c.bin', size: 2000 },
        ],
        [good, patternBytes(12, 4), patternBytes(1999, 5)],
      ),
    );
    const { results } = await json<UploadBatchResponse>(response, 200);
    assert.equal(results[0]?.file?.size, 1000);
    assert.equal(results[1]?.error?.code, 'size_mismatch');
    assert.equal(results[1]?.error?.status, 400);
    assert.equal(results[2]?.error?.code, 'size_mismatch');
    assertSameBytes(await (await fetch(results[0]?.file?.url as string)).arrayBuffer(), good);
  });

  it('checks a file against its sha256 as it arrives: a damaged one alone is refused, not stored', async () => {
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');
    const good = patternBytes(3000, 11);
    const sent = patternBytes(3000, 12);
    const before = await t.stored();
    const response = await send(
      batchForm(
        [
          { name: 'good.bin', size: good.length, sha256: sha(good) },
          // What the page read; the bytes that arrive differ (damaged on the way).
          { name: 'damaged.bin', size: sent.length, sha256: sha(patternBytes(3000, 13)) },
        ],
        [good, sent],
      ),
    );
    const { results } = await json<UploadBatchResponse>(response, 200);
    assert.ok(results[0]?.file);
    assert.equal(results[1]?.error?.code, 'checksum_mismatch');
    assert.equal(results[1]?.error?.status, 400);
    assertSameBytes(await (await fetch(results[0]?.file?.url as string)).arrayBuffer(), good);
    // Only the good file's object was added.
    assert.equal((await t.stored()).length, before.length + 1);
    await expectError(
      await send(batchForm([{ size: 3, sha256: 'not-a-digest' }], [patternBytes(3)])),
      400,
      'invalid_request',
      { index: 0 },
    );
  });

  it('answers missing_file for entries whose bytes never came', async () => {
    const response = await send(
      batchForm(
        [
          { name: 'a.bin', size: 100 },
          { name: 'b.bin', size: 100 },
        ],
        [patternBytes(100)],
      ),
    );
    const { results } = await json<UploadBatchResponse>(response, 200);
    assert.ok(results[0]?.file);
    assert.equal(results[1]?.error?.code, 'missing_file');
  });

  it('checks every entry before storing anything: one at fault refuses all, with its index', async () => {
    const before = await t.stored();
    const listedBefore = await listed();
    const response = await send(
      batchForm(
        [
          { name: 'a.bin', size: 10 },
          { name: 'b.bin', size: 0 },
        ],
        [patternBytes(10), new Uint8Array(0)],
      ),
    );
    await expectError(response, 400, 'empty_body', { index: 1 });
    assert.deepEqual(await t.stored(), before);
    assert.deepEqual(await listed(), listedBefore);
  });

  it('refuses a body that is not multipart, files that are not a JSON array, or bytes first', async () => {
    await expectError(
      await t.api('/v1/upload/batch', {
        method: 'POST',
        body: 'x',
        headers: { 'Content-Type': 'application/octet-stream' },
      }),
      400,
      'invalid_request',
    );
    const notArray = new FormData();
    notArray.append('files', '{"name":"a"}');
    await expectError(await send(notArray), 400, 'invalid_request');
    const bytesFirst = new FormData();
    bytesFirst.append('file', new Blob([patternBytes(10)]), 'a.bin');
    bytesFirst.append('files', JSON.stringify([{ size: 10 }]));
    await expectError(await send(bytesFirst), 400, 'invalid_request');
    const tooMany = Array.from({ length: 101 }, () => ({ size: 1 }));
    await expectError(await send(batchForm(tooMany, [])), 400, 'invalid_request');
    await expectError(await send(new FormData()), 400, 'missing_file');
  });

  it('takes a publishable key from an allowed origin only', async () => {
    const ok = await send(
      batchForm([{ name: 'p.bin', size: 10 }], [patternBytes(10)]),
      t.publishableKey,
      ALLOWED_ORIGIN,
    );
    const { results } = await json<UploadBatchResponse>(ok, 200);
    assert.ok(results[0]?.file);
    await expectError(
      await send(batchForm([{ size: 10 }], [patternBytes(10)]), t.publishableKey, OTHER_ORIGIN),
      403,
      'origin_not_allowed',
    );
  });

  it('keeps nothing of a request cut half-way', async () => {
    const before = await t.stored();
    const listedBefore = await listed();
    await cutBatch(t.apiUrl, t.secretKey, [patternBytes(4000, 1)], 100_000);
    // The service learns of the cut and takes back what it had received.
    let stored = await t.stored();
    for (let i = 0; i < 50 && stored.length !== before.length; i++) {
      await sleep(100);
      stored = await t.stored();
    }
    assert.deepEqual(stored, before);
    assert.deepEqual(await listed(), listedBefore);
  });
});

describe('POST /v1/upload/batch within a quota', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_STORAGE_QUOTA: '5000' });
  });
  after(() => t.close());

  it('refuses the whole batch when its files together pass the quota, storing nothing', async () => {
    const form = batchForm(
      [
        { name: 'a.bin', size: 3000 },
        { name: 'b.bin', size: 3000 },
      ],
      [patternBytes(3000), patternBytes(3000)],
    );
    const response = await t.api('/v1/upload/batch', { method: 'POST', body: form });
    await expectError(response, 403, 'quota_exceeded', { index: 1 });
    assert.deepEqual(await t.stored(), []);
  });
});
