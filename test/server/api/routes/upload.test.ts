// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, UploadResponse } from '../../../../src/api/types.js';
import { bytesOfType } from '../../../helpers/bytes.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  json,
  OTHER_ORIGIN,
  patternBytes,
  rawHttp,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

const MiB = 1024 * 1024;

describe('POST /v1/upload', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const rawUpload = (body: BodyInit | null, headers: Record<string, string> = {}, key?: string) =>
    t.api('/v1/upload', {
      method: 'POST',
      body,
      key: key ?? t.secretKey,
      headers: { 'Content-Type': 'application/octet-stream', ...headers },
    });

  it('stores a raw body and serves the same bytes at the returned URL at once', async () => {
    const bytes = bytesOfType('image/png', 300_000);
    const response = await rawUpload(bytes, {
      'Content-Type': 'image/png',
      'X-Filename': 'cat.png',
      'X-Metadata': '{"user":"u1"}',
    });
    const body = await json<UploadResponse>(response, 201);
    assert.deepEqual(Object.keys(body).sort(), [
      'deleteAt',
      'id',
      'name',
      'size',
      'type',
      'url',
      'visibility',
    ]);
    assert.equal(body.visibility, 'public');
    assert.equal(body.name, 'cat.png');
    assert.equal(body.size, bytes.length);
    assert.equal(body.type, 'image/png');
    assert.equal(body.url, `${t.cdnUrl}/${body.id}/cat.png`);
    assert.match(body.id, /^[A-Za-z0-9_-]{22}$/);

    const served = await fetch(body.url);
    assert.equal(served.status, 200);
    assertSameBytes(await served.arrayBuffer(), bytes);

    const record = await json<FileRecord>(await t.api(`/v1/files/${body.id}`));
    assert.deepEqual(record, {
      id: body.id,
      name: 'cat.png',
      mime: 'image/png',
      size: bytes.length,
      createdAt: record.createdAt,
      status: 'ready',
      visibility: 'public',
      url: body.url,
      metadata: { user: 'u1' },
      deleteAt: null,
      scannedAt: null,
      // A PNG header followed by bytes that are no image: nothing to draw.
      placeholder: null,
    });
    assert.ok(Math.abs(record.createdAt - Date.now()) < 60_000);
  });

  it('stores a private file from X-Visibility or a multipart field: url null everywhere', async () => {
    const raw = await json<UploadResponse>(
      await rawUpload('secret', { 'X-Visibility': 'private', 'X-Filename': 'a.txt' }),
      201,
    );
    assert.deepEqual([raw.visibility, raw.url], ['private', null]);
    const form = new FormData();
    form.append('file', new Blob(['secret too'], { type: 'text/plain' }), 'b.txt');
    // After the file part: the form's field decides, whatever the header said.
    form.append('visibility', 'private');
    const multipart = await json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        body: form,
        headers: { 'X-Visibility': 'public' },
      }),
      201,
    );
    assert.deepEqual([multipart.visibility, multipart.url], ['private', null]);
    for (const { id } of [raw, multipart]) {
      const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
      assert.deepEqual([record.visibility, record.url], ['private', null]);
      await expectError(await fetch(`${t.cdnUrl}/${id}`), 404, 'not_found');
    }
    // The file.ready event carries the record as GET answers it: no URL either.
    const { events } = await json<{ events: { type: string; data: FileRecord }[] }>(
      await t.api('/v1/events?limit=100'),
    );
    const ready = events.find((event) => event.type === 'file.ready' && event.data.id === raw.id);
    assert.deepEqual([ready?.data.visibility, ready?.data.url], ['private', null]);
    const publicForm = new FormData();
    publicForm.append('visibility', 'public');
    publicForm.append('file', new Blob(['open']), 'c.txt');
    const open = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: publicForm }),
      201,
    );
    assert.equal(open.visibility, 'public');
    assert.equal((await fetch(publicUrlOf(open))).status, 200);

    await expectError(await rawUpload('x', { 'X-Visibility': 'Private' }), 400, 'invalid_request');
    const bad = new FormData();
    bad.append('file', new Blob(['x']), 'x.txt');
    bad.append('visibility', 'secret');
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: bad }),
      400,
      'invalid_request',
    );
  });

  it('defaults the name to "upload" and decodes percent-encoded UTF-8 names', async () => {
    const plain = await json<UploadResponse>(await rawUpload('x'), 201);
    assert.equal(plain.name, 'upload');
    const encoded = await json<UploadResponse>(
      await rawUpload('x', { 'X-Filename': encodeURIComponent('résumé 2026 📄.pdf') }),
      201,
    );
    assert.equal(encoded.name, 'résumé 2026 📄.pdf');
    assert.equal(
      encoded.url,
      `${t.cdnUrl}/${encoded.id}/${encodeURIComponent('résumé 2026 📄.pdf')}`,
    );
    await expectError(await rawUpload('x', { 'X-Filename': '%C3%28' }), 400, 'invalid_request');
  });

  it('cleans hostile names: paths, controls, bidi overrides, zero-width, dots, length', async () => {
    const cases: [string, string][] = [
      ['../../etc/passwd', '....etcpasswd'],
      ['a\u202Egnp.exe', 'agnp.exe'],
      ['in\u200Bvisible\u0000\u0007.txt', 'invisible.txt'],
      ['  ..  ', 'upload'],
      ['...', 'upload'],
      ['C:\\Windows\\win.ini', 'C:Windowswin.ini'],
      ['<script>alert(1)</script>.html', '<script>alert(1)<script>.html'],
      ['e\u0301.txt', 'é.txt'],
    ];
    for (const [raw, expected] of cases) {
      const body = await json<UploadResponse>(
        await rawUpload('x', { 'X-Filename': encodeURIComponent(raw) }),
        201,
      );
      assert.equal(body.name, expected, JSON.stringify(raw));
    }
    const long = await json<UploadResponse>(
      await rawUpload('x', { 'X-Filename': encodeURIComponent('é'.repeat(300)) }),
      201,
    );
    assert.equal(long.name, 'é'.repeat(127));
    assert.ok(Buffer.byteLength(long.name) <= 255);
  });

  it('takes the file, its name and type from a multipart part named "file"', async () => {
    const bytes = patternBytes(50_000, 7);
    const form = new FormData();
    form.append('metadata', JSON.stringify({ user: 'u2', album: 'cats' }));
    form.append('file', new Blob([bytes], { type: 'text/plain; charset=utf-8' }), 'notes.txt');
    const body = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: form }),
      201,
    );
    assert.equal(body.name, 'notes.txt');
    // The multipart parser reports the part's media type without parameters.
    assert.equal(body.type, 'text/plain');
    assert.equal(body.size, bytes.length);
    const served = await fetch(publicUrlOf(body));
    assertSameBytes(await served.arrayBuffer(), bytes);
    const record = await json<FileRecord>(await t.api(`/v1/files/${body.id}`));
    assert.deepEqual(record.metadata, { user: 'u2', album: 'cats' });
  });

  it('reads a metadata field that comes after the file part', async () => {
    const form = new FormData();
    form.append('file', new Blob(['abc']), 'a.bin');
    form.append('metadata', '{"after":"yes"}');
    const body = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: form }),
      201,
    );
    const record = await json<FileRecord>(await t.api(`/v1/files/${body.id}`));
    assert.deepEqual(record.metadata, { after: 'yes' });
  });

  it('refuses requests without a usable key', async () => {
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: 'x', key: null }),
      401,
      'missing_auth',
    );
    await expectError(await rawUpload('x', {}, 'sk_live_not-a-real-key'), 401, 'invalid_key');
    await expectError(await rawUpload('x', {}, 'garbage'), 401, 'invalid_key');
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        body: 'x',
        key: null,
        headers: { Authorization: `Basic ${t.secretKey}` },
      }),
      401,
      'invalid_key',
    );
  });

  it('accepts the publishable key only from an allowlisted Origin', async () => {
    const ok = await t.api('/v1/upload', {
      method: 'POST',
      body: 'x',
      key: t.publishableKey,
      origin: ALLOWED_ORIGIN,
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    const wrong = await t.api('/v1/upload', {
      method: 'POST',
      body: 'x',
      key: t.publishableKey,
      origin: OTHER_ORIGIN,
    });
    assert.equal(wrong.headers.get('access-control-allow-origin'), OTHER_ORIGIN);
    const error = await expectError(wrong, 403, 'origin_not_allowed', { origin: OTHER_ORIGIN });
    assert.match(error.message, /evil\.test/);
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: 'x', key: t.publishableKey }),
      403,
      'origin_not_allowed',
    );
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        body: 'x',
        key: t.publishableKey,
        origin: 'null',
      }),
      403,
      'origin_not_allowed',
    );
  });

  it('refuses empty files and keeps nothing', async () => {
    const before = await t.stored();
    await expectError(await rawUpload(new Uint8Array(0)), 400, 'empty_body');
    await expectError(await rawUpload(null), 400, 'empty_body');
    // Chunked, zero bytes: only counting can tell.
    await expectError(await rawUpload(streamOf([]), {}, undefined), 400, 'empty_body');
    const form = new FormData();
    form.append('file', new Blob([]), 'empty.txt');
    await expectError(await t.api('/v1/upload', { method: 'POST', body: form }), 400, 'empty_body');
    assert.deepEqual(await t.stored(), before);
  });

  it('answers missing_file for a multipart body without a "file" part', async () => {
    const form = new FormData();
    form.append('upload', new Blob(['abc']), 'a.txt');
    form.append('other', 'value');
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: form }),
      400,
      'missing_file',
    );
  });

  it('refuses malformed multipart bodies as invalid_request', async () => {
    const truncated =
      '--xx\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc';
    await expectError(
      await rawUpload(truncated, { 'Content-Type': 'multipart/form-data; boundary=xx' }),
      400,
      'invalid_request',
    );
    await expectError(
      await rawUpload('abc', { 'Content-Type': 'multipart/form-data' }),
      400,
      'invalid_request',
    );
    const twoFiles = new FormData();
    twoFiles.append('file', new Blob(['a']), 'a');
    twoFiles.append('file', new Blob(['b']), 'b');
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: twoFiles }),
      400,
      'invalid_request',
    );
  });

  it('refuses bad metadata and bad media types before storing anything', async () => {
    const before = await t.stored();
    const bad = [
      'not json',
      '[1,2]',
      '"text"',
      '{"n":1}',
      JSON.stringify({ ['k'.repeat(41)]: 'v' }),
      JSON.stringify({ k: 'v'.repeat(501) }),
      JSON.stringify(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))),
    ];
    for (const metadata of bad) {
      await expectError(await rawUpload('x', { 'X-Metadata': metadata }), 400, 'invalid_request');
    }
    await expectError(
      await rawUpload('x', { 'Content-Type': 'not a type' }),
      400,
      'invalid_request',
    );
    const form = new FormData();
    form.append('file', new Blob(['abc']), 'a.txt');
    form.append('metadata', '{"user": 5}');
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: form }),
      400,
      'invalid_request',
    );
    assert.deepEqual(await t.stored(), before);
  });

  it('accepts exactly 100 MiB and refuses one byte more, by Content-Length, before reading', async () => {
    const limit = 100 * MiB;
    const exact = await json<UploadResponse>(await rawUpload(new Uint8Array(limit).fill(1)), 201);
    assert.equal(exact.size, limit);

    const before = await t.stored();
    // Declares one byte over the limit but sends almost nothing: the answer must come
    // from the header alone, without waiting for a body that is never sent.
    const answer = await rawHttp(t.apiUrl, {
      method: 'POST',
      path: '/v1/upload',
      headers: {
        Authorization: `Bearer ${t.secretKey}`,
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(limit + 1),
      },
      body: Buffer.alloc(1024),
      end: false,
    });
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.body).error.code, 'too_large');
    assert.deepEqual(await t.stored(), before);
  });

  it('refuses a chunked body once it passes 100 MiB and keeps nothing of it', async () => {
    const before = await t.stored();
    const chunk = new Uint8Array(MiB).fill(2);
    const chunks = Array.from({ length: 101 }, () => chunk);
    const response = await rawUpload(streamOf(chunks));
    await expectError(response, 413, 'too_large', { limit: 100 * MiB });
    assert.deepEqual(await t.stored(), before);
    const list = await json<{ files: FileRecord[] }>(await t.api('/v1/files?limit=100'));
    assert.ok(list.files.every((file) => file.size !== 101 * MiB));
  });

  it('refuses a multipart file over 100 MiB', async () => {
    const before = await t.stored();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(100 * MiB + 1).fill(3)]), 'big.bin');
    await expectError(await t.api('/v1/upload', { method: 'POST', body: form }), 413, 'too_large');
    assert.deepEqual(await t.stored(), before);
  });
});

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> & { duplex?: 'half' } {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      const next = chunks[index++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}
