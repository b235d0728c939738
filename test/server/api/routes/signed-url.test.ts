// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { SignedUrlResponse, UploadResponse } from '../../../../src/api/types.js';
import { bytesOfType, patternBytes } from '../../../helpers/bytes.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

describe('POST /v1/files/:id/signed-url and what the CDN answers to its links', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const upload = async (
    bytes: Uint8Array<ArrayBuffer> | string,
    name: string,
    visibility: 'public' | 'private',
    type = 'application/octet-stream',
  ) =>
    json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        body: bytes,
        headers: { 'Content-Type': type, 'X-Filename': name, 'X-Visibility': visibility },
      }),
      201,
    );
  const signUrl = (id: string, body?: unknown, key: string | null = t.secretKey, origin?: string) =>
    t.api(`/v1/files/${id}/signed-url`, {
      method: 'POST',
      key,
      ...(origin ? { origin } : {}),
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
  /** The service's clock, moved by the test (the CDN reads the same one). */
  const clockAt = (ms: number) => {
    t.service.context.now = () => ms;
  };
  after(() => {
    t.service.context.now = Date.now;
  });

  it('signs a link that serves a private file, cacheable only by its holder until it expires', async () => {
    const bytes = patternBytes(20_000, 3);
    const file = await upload(bytes, 'report ü.txt', 'private', 'text/plain');
    const before = Date.now();
    const signed = await json<SignedUrlResponse>(await signUrl(file.id));
    assert.deepEqual(Object.keys(signed).sort(), ['expiresAt', 'url']);
    const url = new URL(signed.url);
    assert.equal(
      `${url.origin}${url.pathname}`,
      `${t.cdnUrl}/${file.id}/${encodeURIComponent('report ü.txt')}`,
    );
    assert.deepEqual([...url.searchParams.keys()], ['exp', 'sig']);
    const exp = Number(url.searchParams.get('exp'));
    assert.equal(signed.expiresAt, exp * 1000);
    // Default lifetime: an hour (rounded up to the next whole second).
    assert.ok(exp * 1000 - before >= 3600_000 && exp * 1000 - before <= 3602_000, String(exp));
    assert.match(url.searchParams.get('sig') ?? '', /^[A-Za-z0-9_-]{43}$/);

    // Streamed by the CDN itself on both deployments, never a redirect to a bucket URL.
    const served = await fetch(signed.url, { redirect: 'manual' });
    assert.equal(served.status, 200);
    assertSameBytes(await served.arrayBuffer(), bytes);
    const h = served.headers;
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(h.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge > 3590 && maxAge <= 3602, h.get('cache-control') ?? '');
    assert.equal(h.get('etag'), `"${file.id}"`);
    assert.equal(h.get('content-type'), 'text/plain');
    assert.match(h.get('content-disposition') ?? '', /^inline;/);

    // Validators and ranges work on a link as on a public URL.
    const notModified = await fetch(signed.url, { headers: { 'If-None-Match': `"${file.id}"` } });
    assert.equal(notModified.status, 304);
    assert.match(notModified.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
    const part = await fetch(signed.url, { headers: { Range: 'bytes=100-199' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-199/${bytes.length}`);
    assertSameBytes(await part.arrayBuffer(), bytes.subarray(100, 200));
    const head = await fetch(signed.url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bytes.length));

    // A reordered query still verifies (a proxy may reorder it).
    const reordered = `${t.cdnUrl}/${file.id}/x?sig=${url.searchParams.get('sig')}&exp=${exp}`;
    assert.equal((await fetch(reordered)).status, 200);
    // Unsigned, or through the public shape with no query: not found, as an unknown id.
    for (const plain of [`${t.cdnUrl}/${file.id}`, `${t.cdnUrl}/${file.id}/report.txt?w=10`]) {
      for (let round = 0; round < 2; round++) {
        const response = await fetch(plain);
        await expectError(response, 404, 'not_found');
        assert.equal(response.headers.get('cache-control'), 'no-store');
      }
    }
  });

  it('answers an unsigned private file exactly as an id that does not exist', async () => {
    const file = await upload('hidden', 'h.txt', 'private', 'text/plain');
    // Signed and served once first, so whatever the CDN keeps of it is warm.
    assert.equal(
      (await fetch((await json<SignedUrlResponse>(await signUrl(file.id))).url)).status,
      200,
    );
    const unknown = 'A'.repeat(file.id.length);
    // Not a byte of it is read for an unsigned request (the real store, its reads counted).
    const blobs = t.service.context.blobs;
    const read = blobs.get;
    let reads = 0;
    blobs.get = (...args) => {
      reads++;
      return read.apply(blobs, args);
    };
    const answers = [];
    try {
      for (const id of [file.id, unknown]) {
        const response = await fetch(`${t.cdnUrl}/${id}/h.txt`);
        // Every answer has its own request id (header and body alike); all else must match.
        const requestId = response.headers.get('x-request-id');
        assert.ok(requestId);
        const headers = Object.fromEntries(
          [...response.headers].filter(
            ([name]) => name !== 'date' && name !== 'keep-alive' && name !== 'x-request-id',
          ),
        );
        const body = await response.text();
        assert.ok(body.includes(`"requestId":"${requestId}"`));
        answers.push({ status: response.status, headers, body: body.replace(requestId, '') });
      }
    } finally {
      blobs.get = read;
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal(reads, 0);
  });

  it('refuses an altered link (403 invalid_signature) and an expired one (403 url_expired)', async () => {
    const file = await upload('abc', 'a.txt', 'private', 'text/plain');
    const other = await upload('def', 'b.txt', 'private', 'text/plain');
    const signed = await json<SignedUrlResponse>(await signUrl(file.id, { expiresIn: 60 }));
    const url = new URL(signed.url);
    const sig = url.searchParams.get('sig') as string;
    const exp = Number(url.searchParams.get('exp'));
    const altered = [
      signed.url.replace(file.id, other.id),
      signed.url.replace(`exp=${exp}`, `exp=${exp + 3600}`),
      signed.url.replace(`sig=${sig}`, `sig=${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`),
      `${signed.url}&download=1`,
      `${signed.url}&w=100`,
      `${signed.url}&utm_source=mail`,
      `${signed.url}&exp=${exp}`,
      `${t.cdnUrl}/${file.id}?sig=${sig}`,
      // Not a file at all: the signature is checked before any store is asked.
      signed.url.replace(file.id, 'B'.repeat(file.id.length)),
    ];
    for (const link of altered) {
      const response = await fetch(link);
      await expectError(response, 403, 'invalid_signature');
      assert.equal(response.headers.get('cache-control'), 'no-store', link);
    }
    // The name segment is decorative, as on public URLs: another name still verifies.
    assert.equal((await fetch(signed.url.replace('/a.txt?', '/other.txt?'))).status, 200);

    try {
      clockAt(exp * 1000 - 1);
      assert.equal((await fetch(signed.url)).status, 200);
      const lastSecond = await fetch(signed.url);
      assert.equal(lastSecond.headers.get('cache-control'), 'private, max-age=0');
      await lastSecond.arrayBuffer();
      clockAt(exp * 1000);
      await expectError(await fetch(signed.url), 403, 'url_expired');
      // Expired and altered: altered.
      await expectError(await fetch(altered[0] as string), 403, 'invalid_signature');
    } finally {
      clockAt(Date.now());
      t.service.context.now = Date.now;
    }
  });

  it("serves a public file through a link too, with the link's caching, not immutable", async () => {
    const bytes = bytesOfType('image/png', 5000);
    const file = await upload(bytes, 'p.png', 'public', 'image/png');
    assert.equal(
      (await fetch(file.url as string)).headers.get('cache-control'),
      'public, max-age=31536000, immutable',
    );
    const signed = await json<SignedUrlResponse>(await signUrl(file.id, { expiresIn: 120 }));
    const served = await fetch(signed.url);
    assert.equal(served.status, 200);
    assert.match(served.headers.get('cache-control') ?? '', /^private, max-age=1[12]\d$/);
    assertSameBytes(await served.arrayBuffer(), bytes);
  });

  it('signs download and image parameters into the link', async () => {
    const bytes = bytesOfType('image/png', 3000);
    const file = await upload(bytes, 'cat.png', 'private', 'image/png');
    const download = await json<SignedUrlResponse>(await signUrl(file.id, { download: true }));
    assert.equal(new URL(download.url).searchParams.get('download'), '1');
    const served = await fetch(download.url);
    assert.equal(served.status, 200);
    assert.match(
      served.headers.get('content-disposition') ?? '',
      /^attachment; filename="?cat\.png"?$/,
    );
    await served.arrayBuffer();

    const transformed = await json<SignedUrlResponse>(
      await signUrl(file.id, {
        expiresIn: 7 * 24 * 3600,
        transform: { w: 640, h: 480, fit: 'cover', format: 'webp', q: 80 },
      }),
    );
    const query = new URL(transformed.url).searchParams;
    assert.deepEqual(
      [...query].filter(([name]) => name !== 'exp' && name !== 'sig'),
      [
        ['fit', 'cover'],
        ['format', 'webp'],
        ['h', '480'],
        ['q', '80'],
        ['w', '640'],
      ],
    );
    // Any of them changed: not ours.
    await expectError(
      await fetch(transformed.url.replace('w=640', 'w=641')),
      403,
      'invalid_signature',
    );
  });

  it('serves the image variant a link was signed with, privately cached', async () => {
    const png = await sharp({
      create: { width: 64, height: 48, channels: 3, background: '#c03' },
    })
      .png()
      .toBuffer();
    const file = await upload(new Uint8Array(png), 'red.png', 'private', 'image/png');
    const link = await json<SignedUrlResponse>(
      await signUrl(file.id, { transform: { w: 32, format: 'webp' } }),
    );
    const served = await fetch(link.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/webp');
    assert.ok(served.headers.get('x-variant'));
    assert.match(served.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
    const image = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    assert.deepEqual([image.format, image.width], ['webp', 32]);
    // Unsigned, the same variant of a private file is not there.
    await expectError(
      await fetch(`${t.cdnUrl}/${file.id}/red.png?w=32&format=webp`),
      404,
      'not_found',
    );
  });

  it('validates the request: key, id, body', async () => {
    const file = await upload('abc', 'a.txt', 'private', 'text/plain');
    await expectError(
      await signUrl(file.id, undefined, t.publishableKey, ALLOWED_ORIGIN),
      403,
      'secret_key_required',
    );
    await expectError(await signUrl(file.id, undefined, null), 401, 'missing_auth');
    const stranger = await t.otherProject();
    await expectError(await signUrl(file.id, undefined, stranger.secretKey), 404, 'not_found');
    await expectError(await signUrl('A'.repeat(22)), 404, 'not_found');
    // A deleted file: no new link, and a link made before answers 404 (not 403: it was ours).
    const gone = await upload('x', 'gone.txt', 'private');
    const earlier = await json<SignedUrlResponse>(await signUrl(gone.id));
    assert.equal((await fetch(earlier.url)).status, 200);
    assert.equal((await t.api(`/v1/files/${gone.id}`, { method: 'DELETE' })).status, 204);
    await expectError(await signUrl(gone.id), 404, 'not_found');
    await expectError(await fetch(earlier.url), 404, 'not_found');
    for (const body of [
      { expiresIn: 0 },
      { expiresIn: 604801 },
      { expiresIn: 1.5 },
      { expiresIn: '60' },
      { download: 'yes' },
      { transform: { w: 0 } },
      { transform: { w: 4097 } },
      { transform: { q: 101 } },
      { transform: { fit: 'stretch' } },
      { transform: { format: 'gif' } },
      { transform: { blur: 3 } },
      { transform: 'w=100' },
      // transform applies to images only
      { transform: { w: 100 } },
      [],
    ]) {
      await expectError(await signUrl(file.id, body), 400, 'invalid_request');
    }
    const bounds = await json<SignedUrlResponse>(await signUrl(file.id, { expiresIn: 1 }));
    assert.ok(bounds.expiresAt - Date.now() <= 2000 && bounds.expiresAt - Date.now() > 0);
    const week = await json<SignedUrlResponse>(await signUrl(file.id, { expiresIn: 604800 }));
    assert.ok(week.expiresAt - Date.now() > 604790_000);
  });
});
