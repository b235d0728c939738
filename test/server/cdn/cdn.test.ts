// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import { bytesOfType } from '../../helpers/bytes.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import {
  assertSameBytes,
  json,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

describe('CDN', () => {
  let t: TestService;
  let file: UploadResponse;
  const bytes = bytesOfType('image/png', 10_000, 11);

  const upload = async (body: Uint8Array<ArrayBuffer> | string, type: string, name: string) =>
    json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        body,
        headers: { 'Content-Type': type, 'X-Filename': encodeURIComponent(name) },
      }),
      201,
    );

  before(async () => {
    t = await startTestService();
    file = await upload(bytes, 'image/png', 'photo café.png');
  });
  after(() => t.close());

  it('serves a ready file at /<id>/<name> and /<id> with the documented headers', async () => {
    for (const url of [
      publicUrlOf(file),
      `${t.cdnUrl}/${file.id}`,
      `${t.cdnUrl}/${file.id}/any/thing.txt`,
    ]) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assertSameBytes(await response.arrayBuffer(), bytes);
      const h = response.headers;
      assert.equal(h.get('content-type'), 'image/png');
      assert.equal(h.get('content-length'), String(bytes.length));
      assert.equal(h.get('etag'), `"${file.id}"`);
      assert.ok(Date.parse(h.get('last-modified') ?? '') > 0);
      assert.equal(h.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(h.get('accept-ranges'), 'bytes');
      assert.equal(h.get('x-content-type-options'), 'nosniff');
      assert.equal(h.get('access-control-allow-origin'), '*');
      assert.equal(h.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(
        h.get('content-disposition'),
        `inline; filename="photo caf?.png"; filename*=UTF-8''photo%20caf%C3%A9.png`,
      );
      assert.equal(h.get('content-security-policy'), null);
    }
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await fetch(publicUrlOf(file), { method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-length'), String(bytes.length));
    assert.equal(response.headers.get('etag'), `"${file.id}"`);
    assert.equal((await response.arrayBuffer()).byteLength, 0);
  });

  it('serves single byte ranges with 206 and refuses unsatisfiable ones with 416', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=9990-', 9990, 9999],
      ['bytes=-10', 9990, 9999],
      ['bytes=5000-999999', 5000, 9999],
    ];
    for (const [range, start, end] of cases) {
      const response = await fetch(publicUrlOf(file), { headers: { Range: range } });
      assert.equal(response.status, 206, range);
      assert.equal(response.headers.get('content-range'), `bytes ${start}-${end}/${bytes.length}`);
      assert.equal(response.headers.get('content-length'), String(end - start + 1));
      assertSameBytes(await response.arrayBuffer(), bytes.subarray(start, end + 1));
    }
    // RFC 9110: a suffix longer than the file is all of it; an end past the file is cut.
    const suffix = await fetch(publicUrlOf(file), {
      headers: { Range: `bytes=-${bytes.length + 5}` },
    });
    assert.equal(suffix.status, 206);
    assert.equal(
      suffix.headers.get('content-range'),
      `bytes 0-${bytes.length - 1}/${bytes.length}`,
    );
    assert.equal((await suffix.arrayBuffer()).byteLength, bytes.length);
    const past = await fetch(publicUrlOf(file), {
      headers: { Range: `bytes=10-${bytes.length + 99}` },
    });
    assert.equal(past.status, 206);
    assert.equal(past.headers.get('content-range'), `bytes 10-${bytes.length - 1}/${bytes.length}`);
    await past.arrayBuffer();
    const bad = await fetch(publicUrlOf(file), { headers: { Range: 'bytes=20000-30000' } });
    assert.equal(bad.status, 416);
    assert.equal(bad.headers.get('content-range'), `bytes */${bytes.length}`);
    // Malformed or multiple ranges: the whole file.
    for (const range of ['bytes=abc', 'items=0-1', 'bytes=0-1,5-6']) {
      const whole = await fetch(publicUrlOf(file), { headers: { Range: range } });
      assert.equal(whole.status, 200, range);
      assert.equal((await whole.arrayBuffer()).byteLength, bytes.length);
    }
    // If-Range with a stale validator: the whole file; with the current one: the range.
    const stale = await fetch(publicUrlOf(file), {
      headers: { Range: 'bytes=0-1', 'If-Range': '"old"' },
    });
    assert.equal(stale.status, 200);
    await stale.arrayBuffer();
    const current = await fetch(publicUrlOf(file), {
      headers: { Range: 'bytes=0-1', 'If-Range': `"${file.id}"` },
    });
    assert.equal(current.status, 206);
    await current.arrayBuffer();
  });

  it('answers a matching If-None-Match with 304', async () => {
    const response = await fetch(publicUrlOf(file), {
      headers: { 'If-None-Match': `"${file.id}"` },
    });
    assert.equal(response.status, 304);
    assert.equal(response.headers.get('etag'), `"${file.id}"`);
    const other = await fetch(publicUrlOf(file), { headers: { 'If-None-Match': '"other"' } });
    assert.equal(other.status, 200);
    await other.arrayBuffer();
  });

  it('serves types that could run script as sandboxed attachments', async () => {
    const hostile: [string, string][] = [
      ['text/html', 'page.html'],
      ['image/svg+xml', 'logo.svg'],
      ['application/xml', 'feed.xml'],
      ['text/javascript', 'app.js'],
      ['application/x-unknown-thing', 'blob.bin'],
      ['application/octet-stream', 'data'],
      ['application/xhtml+xml', 'x.xhtml'],
    ];
    for (const [type, name] of hostile) {
      const stored = await upload('<script>alert(document.domain)</script>', type, name);
      const response = await fetch(publicUrlOf(stored));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), type);
      assert.match(response.headers.get('content-disposition') ?? '', /^attachment;/, type);
      assert.equal(response.headers.get('content-security-policy'), 'sandbox', type);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      await response.arrayBuffer();
    }
    for (const [type, name] of [
      ['text/plain', 'a.txt'],
      ['application/pdf', 'a.pdf'],
      ['video/mp4', 'a.mp4'],
      ['audio/mpeg', 'a.mp3'],
    ]) {
      // Bytes that are what they claim: the service stores the type it recognises.
      const bytes = type === 'text/plain' ? 'x' : bytesOfType(type as string, 64);
      const stored = await upload(bytes, type as string, name as string);
      const response = await fetch(publicUrlOf(stored));
      assert.match(response.headers.get('content-disposition') ?? '', /^inline;/, type);
      await response.arrayBuffer();
    }
  });

  it('serves text inline only without a charset or in UTF-8 or US-ASCII', async () => {
    // In UTF-7 these bytes are `<script>alert(1)</script>`: a browser that honours the
    // declared charset would run what no check of the bytes saw.
    const script = '+ADw-script+AD4-alert(1)+ADw-/script+AD4-';
    for (const type of ['text/plain; charset=utf-7', 'text/plain; charset=ISO-8859-1']) {
      const stored = await upload(script, type, 'note.txt');
      const response = await fetch(publicUrlOf(stored));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), type);
      assert.match(response.headers.get('content-disposition') ?? '', /^attachment;/, type);
      assert.equal(response.headers.get('content-security-policy'), 'sandbox', type);
      await response.arrayBuffer();
    }
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'text/plain; charset=UTF-8',
      'text/plain; charset="us-ascii"',
    ]) {
      const stored = await upload('plain words', type, 'note.txt');
      const response = await fetch(publicUrlOf(stored));
      assert.match(response.headers.get('content-disposition') ?? '', /^inline;/, type);
      assert.equal(response.headers.get('content-security-policy'), null, type);
      await response.arrayBuffer();
    }
  });

  it('answers unknown, pending and deleted ids with an uncacheable 404', async () => {
    const signed = await json<{ id: string }>(await t.sign({ name: 'p', size: 10 }), 201);
    const gone = await upload('bye', 'text/plain', 'bye.txt');
    await t.api(`/v1/files/${gone.id}`, { method: 'DELETE' });
    for (const path of [
      '/nope',
      `/${signed.id}`,
      `/${gone.id}`,
      `/${gone.id}/bye.txt`,
      '/',
      '/%ZZ',
    ]) {
      const response = await fetch(`${t.cdnUrl}${path}`);
      assert.equal(response.status, path === '/%ZZ' ? 400 : 404, path);
      if (response.status === 404) assert.equal(response.headers.get('cache-control'), 'no-store');
      await response.arrayBuffer();
    }
  });

  it('does not answer API routes: the CDN is its own origin', async () => {
    const response = await fetch(`${t.cdnUrl}/v1/files`);
    assert.equal(response.status, 404);
    await response.arrayBuffer();
  });
});
