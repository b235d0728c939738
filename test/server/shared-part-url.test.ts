// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, SignBatchResponse, SignResponse } from '../../src/api/types.js';
import { LOCAL_ONLY } from '../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  json,
  partAccepted,
  patternBytes,
  rawHttp,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const MiB = 1024 * 1024;

/** A PUT written byte for byte on a socket (fetch and node:http respell some paths); its status. */
function rawPut(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<string> {
  const { hostname, port } = new URL(base);
  const head = [
    `PUT ${path} HTTP/1.1`,
    'Host: localhost',
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(answer.split(' ')[1] ?? ''));
    socket.end(Buffer.concat([Buffer.from(head), body]));
  });
}
type Part = SignResponse['parts'][number];

// decisions.md, "Part URLs that browsers can reuse": the embedded store's parts all go to
// one URL, the credential in the listed headers. S3's presigned URLs are S3's own.
describe('part URLs that browsers can reuse (local-disk store)', { skip: LOCAL_ONLY }, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
  });
  after(() => t.close());

  const sign = async (files: { name: string; size: number; type?: string }[]) =>
    (
      await json<SignBatchResponse>(
        await t.api('/v1/uploads/sign', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ files }),
        }),
        201,
      )
    ).uploads;
  const put = (part: Part, body: Uint8Array<ArrayBuffer>, headers = part.headers, url = part.url) =>
    fetch(url, { method: 'PUT', headers, body });
  const complete = (id: string) => t.api(`/v1/uploads/${id}/complete`, { method: 'POST' });

  it('gives every part of every upload the same URL, and each lands in its own upload', async () => {
    const big = patternBytes(5 * MiB + 7, 1);
    const small = patternBytes(300, 2);
    const [a, b] = (await sign([
      { name: 'big.bin', size: big.length },
      { name: 'small.txt', size: small.length, type: 'text/plain' },
    ])) as [SignResponse, SignResponse];
    const parts = [...a.parts, ...b.parts];
    assert.equal(parts.length, 3);
    assert.deepEqual(new Set(parts.map((part) => part.url)), new Set([`${t.apiUrl}/v1/parts`]));
    await partAccepted(await put(b.parts[0] as Part, small), b.parts[0] as Part);
    await partAccepted(await put(a.parts[1] as Part, big.slice(5 * MiB)), a.parts[1] as Part);
    await partAccepted(await put(a.parts[0] as Part, big.slice(0, 5 * MiB)), a.parts[0] as Part);
    for (const [signed, bytes] of [
      [a, big],
      [b, small],
    ] as const) {
      const record = await json<FileRecord>(await complete(signed.id));
      assertSameBytes(await (await fetch(record.url)).arrayBuffer(), bytes);
    }
  });

  it('refuses any change to a listed header or to the URL: 403 invalid_signature', async () => {
    const [one, two] = (await sign([
      { name: 'one.png', size: 100, type: 'image/png' },
      { name: 'two.bin', size: 5 * MiB + 1 },
    ])) as [SignResponse, SignResponse];
    const part = one.parts[0] as Part;
    const bytes = patternBytes(100);
    const changed = (name: string, value: string | undefined) => {
      const headers = { ...part.headers };
      if (value === undefined) delete headers[name];
      else headers[name] = value;
      return put(part, bytes, headers);
    };
    const signature = part.headers['X-Filehost-Signature'] as string;
    const expires = part.headers['X-Filehost-Expires'] as string;
    for (const [name, value] of [
      ['X-Filehost-Upload', two.id],
      ['X-Filehost-Upload', undefined],
      ['X-Filehost-Upload', `${one.id}!`],
      ['X-Filehost-Part', '01'],
      ['X-Filehost-Part', '+1'],
      ['X-Filehost-Part', '1.0'],
      ['X-Filehost-Part', undefined],
      ['X-Filehost-Expires', String(Number(expires) + 1000)],
      ['X-Filehost-Expires', `0${expires}`],
      ['X-Filehost-Expires', 'soon'],
      ['X-Filehost-Expires', undefined],
      ['X-Filehost-Signature', signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))],
      ['X-Filehost-Signature', `${signature}=`],
      ['X-Filehost-Signature', undefined],
      ['Content-Type', 'text/html'],
      ['Content-Type', undefined],
    ] as const) {
      await expectError(await changed(name, value), 403, 'invalid_signature');
    }
    // Part 2 of another upload, with this part's credential.
    await expectError(
      await put(part, patternBytes(1), {
        ...(two.parts[1] as Part).headers,
        'X-Filehost-Signature': signature,
      }),
      403,
      'invalid_signature',
    );
    // A credential of the URL-per-part form is not one of this form.
    for (const url of [
      `${t.apiUrl}/v1/parts?x=1`,
      `${t.apiUrl}/v1/parts?expires=${expires}&signature=${signature}`,
    ]) {
      await expectError(await put(part, bytes, part.headers, url), 403, 'invalid_signature');
    }
    // A bare '?' (fetch drops it, so written by hand), a doubled slash, another case.
    assert.equal(await rawPut(t.apiUrl, '/v1/parts?', part.headers, Buffer.from(bytes)), '403');
    // Spellings that reach no route at all.
    for (const path of ['/v1//parts', '/V1/parts', '/v1/parts/']) {
      const status = await rawPut(t.apiUrl, path, part.headers, Buffer.from(bytes));
      assert.ok(['403', '404'].includes(status), `${path}: ${status}`);
    }
    // A header sent twice is refused before any route runs, as for every singleton header.
    const twice = await rawHttp(t.apiUrl, {
      method: 'PUT',
      path: '/v1/parts',
      headers: {
        ...part.headers,
        'X-Filehost-Part': ['1', '1'] as unknown as string,
        'Content-Length': '100',
      },
      body: Buffer.from(bytes),
    });
    assert.equal(twice.status, 400, twice.body);
    assert.equal(JSON.parse(twice.body).error.code, 'invalid_request');
    // The signature is checked before the upload is looked up: another upload's id (or
    // one naming nothing) is forged, and says nothing of what exists.
    await expectError(
      await changed('X-Filehost-Upload', 'unknownUnknownUnknown'),
      403,
      'invalid_signature',
    );
    // Unchanged, it still works.
    await partAccepted(await put(part, bytes), part);
  });

  it('checks the part as the per-part URLs do: size, replaced part, completed, cancelled', async () => {
    const [one, gone] = (await sign([
      { name: 'one', size: 100 },
      { name: 'gone', size: 50 },
    ])) as [SignResponse, SignResponse];
    const part = one.parts[0] as Part;
    await expectError(await put(part, patternBytes(99)), 400, 'size_mismatch', { expected: 100 });
    const first = await partAccepted(await put(part, patternBytes(100, 1)), part);
    const second = await partAccepted(await put(part, patternBytes(100, 2)), part);
    assert.notEqual(first, second);
    await expectError(
      await t.api(`/v1/uploads/${one.id}/complete`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ parts: [{ partNumber: 1, etag: first }] }),
      }),
      409,
      'upload_incomplete',
      { missingParts: [], mismatchedParts: [1] },
    );
    const record = await json<FileRecord>(await complete(one.id));
    assertSameBytes(await (await fetch(record.url)).arrayBuffer(), patternBytes(100, 2));
    await expectError(await put(part, patternBytes(100)), 409, 'upload_not_pending');

    assert.equal((await t.api(`/v1/files/${gone.id}`, { method: 'DELETE' })).status, 204);
    await expectError(await put(gone.parts[0] as Part, patternBytes(50)), 404, 'not_found');
  });

  it('answers its preflight with its headers allowed for two hours, and CORS on the PUT', async () => {
    const preflight = await fetch(`${t.apiUrl}/v1/parts`, {
      method: 'OPTIONS',
      headers: {
        Origin: ALLOWED_ORIGIN,
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers':
          'content-type,x-filehost-expires,x-filehost-part,x-filehost-signature,x-filehost-upload',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'PUT');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase());
    for (const name of [
      'content-type',
      'x-filehost-upload',
      'x-filehost-part',
      'x-filehost-expires',
      'x-filehost-signature',
    ]) {
      assert.ok(allowed.includes(name), `${name} allowed`);
    }
    assert.ok(Number(preflight.headers.get('access-control-max-age')) >= 7200);

    const [signed] = (await sign([{ name: 'x', size: 10 }])) as [SignResponse];
    const part = signed.parts[0] as Part;
    const answer = await put(part, patternBytes(10), { ...part.headers, Origin: ALLOWED_ORIGIN });
    assert.equal(answer.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.match(answer.headers.get('access-control-expose-headers') ?? '', /ETag/);
    await partAccepted(answer, part);
  });

  it('refuses an expired part: 403 url_expired', async () => {
    const short = await startTestService({ FILEHOST_UPLOAD_URL_TTL: '1' });
    try {
      const signed = await json<SignResponse>(
        await short.api('/v1/uploads/sign', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'late', size: 10 }),
        }),
        201,
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await expectError(await put(signed.parts[0] as Part, patternBytes(10)), 403, 'url_expired');
    } finally {
      await short.close();
    }
  });
});
