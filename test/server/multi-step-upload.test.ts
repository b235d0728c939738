// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, SignResponse, UploadState } from '../../src/api/types.js';
import type { LocalDiskBlobStore } from '../../src/server/storage/local-disk/local-disk-store.js';
import { sweep } from '../../src/server/sweeper.js';
import { LOCAL_ONLY, SCALE } from '../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  expectPartRefused,
  json,
  OTHER_ORIGIN,
  partAccepted,
  patternBytes,
  rawHttp,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

/** A part's headers with the signature (random to a reader) shown as its shape only. */
function partHeaders(part: SignResponse['parts'][number] | undefined): Record<string, string> {
  const headers = { ...part?.headers };
  const signature = headers['X-Filehost-Signature'];
  if (signature !== undefined) {
    assert.match(signature, /^[A-Za-z0-9_-]{43}$/);
    headers['X-Filehost-Signature'] = '<signature>';
  }
  const expires = headers['X-Filehost-Expires'];
  if (expires !== undefined) {
    // A part URL lives the URL lifetime (an hour by default), never past its upload.
    const at = Number(expires);
    assert.ok(at > Date.now() + 3_000_000 && at <= Date.now() + 3_600_000, expires);
    headers['X-Filehost-Expires'] = '<url expiry>';
  }
  return headers;
}

/** The local store's headers of part `partNumber` of an upload, as `partHeaders` shows them. */
function sharedUrlHeaders(signed: SignResponse, partNumber: number): Record<string, string> {
  return {
    'X-Filehost-Upload': signed.id,
    'X-Filehost-Part': String(partNumber),
    'X-Filehost-Expires': '<url expiry>',
    'X-Filehost-Signature': '<signature>',
  };
}

/** The part at a URL of its own, as the local store signed parts before they shared one URL. */
function perPartUrl(
  service: TestService,
  signed: SignResponse,
  partNumber: number,
): SignResponse['parts'][number] {
  const part = signed.parts[partNumber - 1] as SignResponse['parts'][number];
  return (service.service.context.blobs as LocalDiskBlobStore).signer.signedPartUrl({
    uploadId: signed.id,
    partNumber,
    size: part.size,
    type: part.headers['Content-Type'] as string,
    expiresAt: Number(part.headers['X-Filehost-Expires']),
  });
}

describe('multi-step upload: sign, PUT parts, complete', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  const sign = (body: unknown, key = t.secretKey) =>
    t.api('/v1/uploads/sign', {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const putPart = (
    part: SignResponse['parts'][number],
    bytes: Uint8Array<ArrayBuffer>,
    headers = part.headers,
  ) => fetch(part.url, { method: part.method, headers, body: bytes });

  const complete = (id: string, body?: unknown) =>
    t.api(`/v1/uploads/${id}/complete`, {
      method: 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
    });

  function slice(
    bytes: Uint8Array<ArrayBuffer>,
    signed: SignResponse,
    partNumber: number,
  ): Uint8Array<ArrayBuffer> {
    const start = (partNumber - 1) * signed.partSize;
    return bytes.subarray(start, start + signed.partSize);
  }

  it('uploads a three-part file in parallel and serves every byte after complete', async () => {
    const bytes = patternBytes(2 * PART + 12_345, 3);
    const signed = await json<SignResponse>(
      await sign({
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
    assert.equal((await fetch(pending.url)).status, 404);

    const results = await Promise.all(
      signed.parts.map(async (part) => {
        const response = await putPart(part, slice(bytes, signed, part.partNumber));
        return { partNumber: part.partNumber, etag: await partAccepted(response, part) };
      }),
    );
    const record = await json<FileRecord>(
      await complete(signed.id, {
        parts: results.map(({ partNumber, etag }) => ({ partNumber, etag })),
      }),
    );
    assert.equal(record.status, 'ready');
    assert.equal(record.size, bytes.length);
    assert.equal(record.name, 'video.mp4');
    assert.deepEqual(record.metadata, { user: 'u1' });
    assert.deepEqual(record, await json<FileRecord>(await t.api(`/v1/files/${signed.id}`)));
    assertSameBytes(await (await fetch(record.url)).arrayBuffer(), bytes);

    // Complete again: the same answer. A part after completion: upload_not_pending.
    assert.deepEqual(await json<FileRecord>(await complete(signed.id)), record);
    await expectPartRefused(
      await putPart(signed.parts[0] as SignResponse['parts'][number], slice(bytes, signed, 1)),
      { local: 409, s3: 404 },
      'upload_not_pending',
    );
  });

  it('works from a browser page: publishable key, allowed origin, CORS on the part PUT', async () => {
    const bytes = patternBytes(1000, 9);
    const signed = await json<SignResponse>(
      await t.api('/v1/uploads/sign', {
        method: 'POST',
        key: t.publishableKey,
        origin: ALLOWED_ORIGIN,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'a.txt', size: 1000, type: 'text/plain' }),
      }),
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
      await t.api('/v1/uploads/sign', {
        method: 'POST',
        key: t.publishableKey,
        origin: OTHER_ORIGIN,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'a.txt', size: 1 }),
      }),
      403,
      'origin_not_allowed',
    );
  });

  it('validates the sign request', async () => {
    await expectError(await sign('{not json'), 400, 'invalid_request');
    await expectError(await sign('[1]'), 400, 'invalid_request');
    await expectError(await sign(''), 400, 'invalid_request');
    await expectError(await sign({ name: 'a' }), 400, 'invalid_request');
    for (const size of [-1, 1.5, '10', null, 1e300, Number.MAX_SAFE_INTEGER + 2]) {
      await expectError(await sign({ name: 'a', size }), 400, 'invalid_request');
    }
    await expectError(await sign({ name: 7, size: 1 }), 400, 'invalid_request');
    await expectError(await sign({ name: 'a', size: 1, type: 'nope' }), 400, 'invalid_request');
    await expectError(await sign({ name: 'a', size: 1, type: 5 }), 400, 'invalid_request');
    await expectError(
      await sign({ name: 'a', size: 1, metadata: { a: 1 } }),
      400,
      'invalid_request',
    );
    await expectError(await sign({ name: 'a', size: 0 }), 400, 'empty_body');
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
      await sign(JSON.stringify({ name: 'x'.repeat(70 * 1024), size: 1 })),
      400,
      'invalid_request',
    );
    const defaults = await json<SignResponse>(await sign({ size: 3 }), 201);
    assert.deepEqual(
      partHeaders(defaults.parts[0]),
      SCALE ? {} : { 'Content-Type': 'application/octet-stream', ...sharedUrlHeaders(defaults, 1) },
    );
    const record = await json<FileRecord>(await t.api(`/v1/files/${defaults.id}`));
    assert.equal(record.name, 'upload');
  });

  it('caps the sign flow by plan: 100 MB on free, 5 GiB on paid', async () => {
    await json<SignResponse>(await sign({ name: 'a', size: 100_000_000 }), 201);
    const error = await expectError(
      await sign({ name: 'a', size: 100_000_001 }),
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
      await sign({ name: 'b', size: 5 * 1024 ** 3 }, paid.secretKey),
      201,
    );
    assert.equal(big.parts.length, Math.ceil((5 * 1024 ** 3) / big.partSize));
    assert.ok(big.parts.length <= 10_000);
    await expectError(
      await sign({ name: 'b', size: 5 * 1024 ** 3 + 1 }, paid.secretKey),
      413,
      'too_large',
    );
  });

  it('refuses forged, altered and expired per-part URLs (issued before parts shared one URL), and wrong headers', {
    skip: LOCAL_ONLY,
  }, async () => {
    const signed = await json<SignResponse>(
      await sign({ name: 'a.png', size: 100, type: 'image/png' }),
      201,
    );
    const part = perPartUrl(t, signed, 1);
    await partAccepted(await putPart(part, patternBytes(100)), part);
    const bytes = patternBytes(100);
    const url = new URL(part.url);
    const altered = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return fetch(copy, { method: 'PUT', headers: part.headers, body: bytes });
    };
    await expectError(
      await altered((u) => u.searchParams.set('signature', 'x'.repeat(43))),
      403,
      'invalid_signature',
    );
    await expectError(
      await altered((u) => u.searchParams.delete('signature')),
      403,
      'invalid_signature',
    );
    await expectError(
      await altered((u) => u.searchParams.set('expires', String(signed.expiresAt + 1000))),
      403,
      'invalid_signature',
    );
    await expectError(
      await altered((u) => u.searchParams.set('expires', 'soon')),
      403,
      'invalid_signature',
    );
    // decisions.md: only the canonical spelling; what means the same to a lenient parser
    // is still another URL.
    const expires = url.searchParams.get('expires');
    const signature = url.searchParams.get('signature');
    const path = `${url.origin}${url.pathname}`;
    for (const variant of [
      `${path.replace(/parts\/1$/, 'parts/01')}?expires=${expires}&signature=${signature}`,
      `${path.replace(/parts\/1$/, 'parts/%31')}?expires=${expires}&signature=${signature}`,
      `${path}?signature=${signature}&expires=${expires}`,
      `${path}?expires=${expires}&expires=${expires}&signature=${signature}`,
      `${path}?expires=${expires}&signature=${signature}&extra=1`,
    ]) {
      await expectError(
        await fetch(variant, { method: 'PUT', headers: part.headers, body: bytes }),
        403,
        'invalid_signature',
      );
    }
    await expectError(
      await putPart(part, bytes, { 'Content-Type': 'text/html' }),
      403,
      'invalid_signature',
    );
    await expectError(await putPart(part, bytes, {}), 403, 'invalid_signature');
    await expectError(
      await altered((u) => {
        u.pathname = u.pathname.replace(/parts\/1$/, 'parts/2');
      }),
      403,
      'invalid_signature',
    );
    await expectError(
      await altered((u) => {
        u.pathname = u.pathname.replace(/parts\/1$/, 'parts/abc');
      }),
      404,
      'not_found',
    );
    await expectError(
      await altered((u) => {
        u.pathname = u.pathname.replace(signed.id, 'someone-else');
      }),
      403,
      'invalid_signature',
    );

    const short = await json<SignResponse>(await sign({ name: 'b', size: 10 }), 201);
    const expiring = await startTestService({ FILEHOST_UPLOAD_URL_TTL: '1' });
    try {
      const soon = await json<SignResponse>(
        await expiring.api('/v1/uploads/sign', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'c', size: 10 }),
        }),
        201,
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const late = soon.parts[0] as SignResponse['parts'][number];
      await expectError(await putPart(late, patternBytes(10)), 403, 'url_expired');
      await expectError(
        await putPart(perPartUrl(expiring, soon, 1), patternBytes(10)),
        403,
        'url_expired',
      );
      // A fresh signature from the upload's state works again.
      const state = await json<UploadState>(await expiring.api(`/v1/uploads/${soon.id}`));
      const fresh = state.parts[0];
      assert.ok(fresh?.url);
      const again = await fetch(fresh.url, {
        method: 'PUT',
        headers: fresh.headers,
        body: patternBytes(10),
      });
      assert.equal(again.status, 200);
    } finally {
      await expiring.close();
    }
    assert.ok(short.id);
  });

  it('refuses a part whose byte count differs from the signed size, keeping nothing of it', async () => {
    const signed = await json<SignResponse>(await sign({ name: 'a', size: 1000 }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    // S3 refuses another length because the length is signed into its part URLs.
    await expectPartRefused(
      await putPart(part, patternBytes(999)),
      { local: 400, s3: 403 },
      'size_mismatch',
      {
        expected: 1000,
      },
    );
    await expectPartRefused(
      await putPart(part, patternBytes(1001)),
      { local: 400, s3: 403 },
      'size_mismatch',
    );
    // Chunked bodies are counted: too short and too long (S3 needs a signed length).
    for (const size of SCALE ? [] : [500, 1500]) {
      const answer = await rawHttp(part.url, {
        method: 'PUT',
        path: new URL(part.url).pathname + new URL(part.url).search,
        headers: { ...part.headers, 'Transfer-Encoding': 'chunked' },
        body: Buffer.from(patternBytes(size)),
      });
      assert.equal(answer.status, 400);
      assert.equal(JSON.parse(answer.body).error.code, 'size_mismatch');
    }
    await expectError(await complete(signed.id), 409, 'upload_incomplete', {
      missingParts: [1],
      mismatchedParts: [],
    });
  });

  it('reports missing parts, resumes from the upload state, and checks claimed ETags', async () => {
    const bytes = patternBytes(3 * PART, 5);
    const signed = await json<SignResponse>(await sign({ name: 'r.bin', size: bytes.length }), 201);
    const [p1, p2, p3] = signed.parts as [
      SignResponse['parts'][number],
      SignResponse['parts'][number],
      SignResponse['parts'][number],
    ];
    const first = { etag: await partAccepted(await putPart(p1, slice(bytes, signed, 1)), p1) };
    await partAccepted(await putPart(p3, slice(bytes, signed, 3)), p3);
    await expectError(await complete(signed.id), 409, 'upload_incomplete', {
      missingParts: [2],
      mismatchedParts: [],
    });

    const state = await json<UploadState>(await t.api(`/v1/uploads/${signed.id}`));
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
        body: slice(bytes, signed, 2),
      }),
      missing,
    );

    await expectError(
      await complete(signed.id, { parts: [{ partNumber: 1, etag: '"not-it"' }] }),
      409,
      'upload_incomplete',
      { missingParts: [], mismatchedParts: [1] },
    );
    await expectError(await complete(signed.id, { parts: 'all' }), 400, 'invalid_request');
    await expectError(
      await complete(signed.id, { parts: [{ partNumber: 'one' }] }),
      400,
      'invalid_request',
    );

    // Re-sending a part replaces it (new bytes, new ETag).
    const replaced = patternBytes(PART, 77);
    const second = { etag: await partAccepted(await putPart(p2, replaced), p2) };
    const record = await json<FileRecord>(await complete(signed.id));
    const served = Buffer.from(await (await fetch(record.url)).arrayBuffer());
    assert.ok(served.subarray(PART, 2 * PART).equals(replaced));
    assert.ok(served.subarray(0, PART).equals(slice(bytes, signed, 1)));
    assert.notEqual(second.etag, first.etag);

    const done = await json<UploadState>(await t.api(`/v1/uploads/${signed.id}`));
    assert.equal(done.status, 'ready');
    assert.ok(done.parts.every((part) => part.etag !== null && part.url === undefined));
  });

  it('cancels a pending upload with DELETE: its id is gone everywhere, part PUTs included', async () => {
    const signed = await json<SignResponse>(await sign({ name: 'c', size: 10 }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    assert.equal((await t.api(`/v1/files/${signed.id}`, { method: 'DELETE' })).status, 204);
    await expectPartRefused(
      await putPart(part, patternBytes(10)),
      { local: 404, s3: 404 },
      'not_found',
    );
    await expectError(await complete(signed.id), 404, 'not_found');
    await expectError(await t.api(`/v1/uploads/${signed.id}`), 404, 'not_found');
    await expectError(await t.api(`/v1/files/${signed.id}`), 404, 'not_found');
  });

  it('keeps uploads per project and answers unknown ids with not_found', async () => {
    const signed = await json<SignResponse>(await sign({ name: 'c', size: 10 }), 201);
    const other = await t.otherProject();
    await expectError(
      await t.api(`/v1/uploads/${signed.id}/complete`, { method: 'POST', key: other.secretKey }),
      404,
      'not_found',
    );
    await expectError(
      await t.api(`/v1/uploads/${signed.id}`, { key: other.secretKey }),
      404,
      'not_found',
    );
    await expectError(await t.api('/v1/uploads/nope'), 404, 'not_found');
    await expectError(await complete('nope'), 404, 'not_found');
    // A one-request upload has no multi-step state.
    const single = await json<{ id: string }>(
      await t.api('/v1/upload', { method: 'POST', body: 'x' }),
      201,
    );
    await expectError(await t.api(`/v1/uploads/${single.id}`), 404, 'not_found');
  });

  it('removes abandoned pending uploads with their bytes after expiry plus grace', async () => {
    const short = await startTestService({
      // Two seconds after its last part: long enough for the part PUT to arrive first.
      FILEHOST_UPLOAD_LIFETIME: '2',
      FILEHOST_PENDING_GRACE: '0',
    });
    try {
      const before = await short.stored();
      const signed = await json<SignResponse>(
        await short.api('/v1/uploads/sign', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'left.bin', size: 10 }),
        }),
        201,
      );
      const part = signed.parts[0] as SignResponse['parts'][number];
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(10) }),
        part,
      );
      const during = await short.stored();
      assert.ok(
        during.some((path) => path.startsWith(`uploads/${signed.id}`)),
        'the upload is open in the store',
      );
      assert.deepEqual(await sweep(short.service.context), { expired: 0, purged: 0, abandoned: 0 });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      assert.deepEqual(await sweep(short.service.context), { expired: 1, purged: 1, abandoned: 0 });
      await expectError(await short.api(`/v1/files/${signed.id}`), 404, 'not_found');
      assert.deepEqual(await short.stored(), before);
    } finally {
      await short.close();
    }
  });
});
