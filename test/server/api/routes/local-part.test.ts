// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type {
  FileRecord,
  SignBatchResponse,
  SignResponse,
  UploadState,
} from '../../../../src/api/types.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import { LOCAL_ONLY, SCALE } from '../../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  expectError,
  expectPartRefused,
  json,
  partAccepted,
  patternBytes,
  rawHttp,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';
import { perPartUrl } from '../../../helpers/signed-parts.js';

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

const PART = 5 * MiB;

describe('part URLs that browsers can reuse (local-disk store)', { skip: LOCAL_ONLY }, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
  });
  after(() => t.close());

  const sign = async (files: { name: string; size: number; type?: string }[]) =>
    (await json<SignBatchResponse>(await t.sign({ files }), 201)).uploads;
  const put = (part: Part, body: Uint8Array<ArrayBuffer>, headers = part.headers, url = part.url) =>
    fetch(url, { method: 'PUT', headers, body });

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
      const record = await json<FileRecord>(await t.complete(signed.id));
      assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
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
      await t.complete(one.id, { parts: [{ partNumber: 1, etag: first }] }),
      409,
      'upload_incomplete',
      { missingParts: [], mismatchedParts: [1] },
    );
    const record = await json<FileRecord>(await t.complete(one.id));
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), patternBytes(100, 2));
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
      const signed = await json<SignResponse>(await short.sign({ name: 'late', size: 10 }), 201);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await expectError(await put(signed.parts[0] as Part, patternBytes(10)), 403, 'url_expired');
    } finally {
      await short.close();
    }
  });
});

describe('part PUTs at their signed URLs, on either store', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('refuses forged, altered and expired per-part URLs (issued before parts shared one URL), and wrong headers', {
    skip: LOCAL_ONLY,
  }, async () => {
    const signed = await json<SignResponse>(
      await t.sign({ name: 'a.png', size: 100, type: 'image/png' }),
      201,
    );
    const part = perPartUrl(t, signed, 1);
    await partAccepted(await t.putPart(part, patternBytes(100)), part);
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
      await t.putPart(part, bytes, { 'Content-Type': 'text/html' }),
      403,
      'invalid_signature',
    );
    await expectError(await t.putPart(part, bytes, {}), 403, 'invalid_signature');
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

    const short = await json<SignResponse>(await t.sign({ name: 'b', size: 10 }), 201);
    const expiring = await startTestService({ FILEHOST_UPLOAD_URL_TTL: '1' });
    try {
      const soon = await json<SignResponse>(await expiring.sign({ name: 'c', size: 10 }), 201);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const late = soon.parts[0] as SignResponse['parts'][number];
      await expectError(await t.putPart(late, patternBytes(10)), 403, 'url_expired');
      await expectError(
        await t.putPart(perPartUrl(expiring, soon, 1), patternBytes(10)),
        403,
        'url_expired',
      );
      // A fresh signature from the upload's state works again.
      const state = await json<UploadState>(await expiring.state(soon.id));
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
    const signed = await json<SignResponse>(await t.sign({ name: 'a', size: 1000 }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    // S3 refuses another length because the length is signed into its part URLs.
    await expectPartRefused(
      await t.putPart(part, patternBytes(999)),
      { local: 400, s3: 403 },
      'size_mismatch',
      {
        expected: 1000,
      },
    );
    await expectPartRefused(
      await t.putPart(part, patternBytes(1001)),
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
    await expectError(await t.complete(signed.id), 409, 'upload_incomplete', {
      missingParts: [1],
      mismatchedParts: [],
    });
  });
});
