// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CHECKSUM_HEADER, checksumHeaderValue } from '../../src/api/checksum.js';
import type {
  FileRecord,
  SignBatchResponse,
  SignResponse,
  UploadState,
} from '../../src/api/types.js';
import type { LocalDiskBlobStore } from '../../src/server/storage/local-disk/local-disk-store.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { LOCAL_ONLY, SCALE } from '../helpers/scale-mode.js';
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
const PART = 5 * MiB;
type Part = SignResponse['parts'][number];

/** A single sign by the secret key, answered 201. */
async function signWith(t: TestService, body: Record<string, unknown>): Promise<SignResponse> {
  return json<SignResponse>(await t.sign(body), 201);
}

/** Issue #19, point 2: a part whose bytes were damaged on the way is refused, never stored. */
describe('part checksums: uploads signed with checksum: true', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  const sign = (body: Record<string, unknown>) => signWith(t, body);
  /** The header carrying the digest of `bytes` that `signed` asks for. */
  const digestHeader = (signed: SignResponse, bytes: Uint8Array): Record<string, string> => {
    assert.ok(signed.checksum, 'the upload asks for a digest');
    const digest = createHash(signed.checksum).update(bytes).digest('base64');
    return { [CHECKSUM_HEADER[signed.checksum]]: checksumHeaderValue(signed.checksum, digest) };
  };
  const put = (part: Part, body: Uint8Array<ArrayBuffer>, headers: Record<string, string>) =>
    fetch(part.url, { method: 'PUT', headers: { ...part.headers, ...headers }, body });
  const state = async (id: string) => json<UploadState>(await t.state(id));
  const slice = (bytes: Uint8Array<ArrayBuffer>, part: Part) =>
    bytes.subarray((part.partNumber - 1) * PART, (part.partNumber - 1) * PART + part.size);
  /** Refused as damaged: our JSON error on the local disk; S3's own `BadDigest` (XML). */
  const expectDamaged = async (response: Response) => {
    if (!SCALE) {
      await expectError(response, 400, 'checksum_mismatch');
      return;
    }
    const text = await response.text();
    assert.equal(response.status, 400, text);
    assert.match(text, /<Code>BadDigest<\/Code>/);
  };
  /** `bytes` with one bit of byte `at` flipped: what a faulty link or proxy delivers. */
  const damaged = (bytes: Uint8Array<ArrayBuffer>, at: number) => {
    const copy = bytes.slice();
    copy[at] = (copy[at] as number) ^ 0x10;
    return copy;
  };

  it('names the digest every part must carry: sha256 on the local disk, md5 on S3', async () => {
    const expected = SCALE ? 'md5' : 'sha256';
    const signed = await sign({ name: 'a.bin', size: 10, checksum: true });
    assert.equal(signed.checksum, expected);
    assert.equal((await state(signed.id)).checksum, expected);
    const batch = await json<SignBatchResponse>(
      await t.sign({
        files: [
          { name: 'b', size: 1, checksum: true },
          { name: 'c', size: 1 },
        ],
      }),
      201,
    );
    assert.deepEqual(
      batch.uploads.map((upload) => upload.checksum),
      [expected, null],
    );
    // Without it nothing changes: no digest is asked for, and the part is signed as before.
    const plain = await sign({ name: 'plain.bin', size: 10 });
    assert.equal(plain.checksum, null);
    assert.equal((await state(plain.id)).checksum, null);
    const unsigned = batch.uploads[1] as SignResponse;
    assert.ok(!('X-Filehost-Checksum' in (unsigned.parts[0] as Part).headers));
    await expectError(
      await t.sign({ name: 'x', size: 1, checksum: 'sha256' }),
      400,
      'invalid_request',
    );
  });

  it('takes parts whose digest matches, and serves the exact bytes', async () => {
    const bytes = patternBytes(PART + 4321, 7);
    const signed = await sign({ name: 'ok.bin', size: bytes.length, checksum: true });
    const parts = await Promise.all(
      signed.parts.map(async (part) => {
        const body = slice(bytes, part);
        return partAccepted(await put(part, body, digestHeader(signed, body)), part);
      }),
    );
    assert.equal(parts.length, 2);
    const record = await json<FileRecord>(await t.complete(signed.id));
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('refuses a part whose bytes were damaged, keeps nothing of it, takes it sent again', async () => {
    const bytes = patternBytes(PART + 999, 8);
    const signed = await sign({ name: 'flip.bin', size: bytes.length, checksum: true });
    const [first, second] = signed.parts as [Part, Part];
    const good = slice(bytes, first);
    // The digest of the bytes as they left, the bytes as they arrived.
    const refused = await put(first, damaged(good, 123_456), digestHeader(signed, good));
    await expectDamaged(refused);
    await partAccepted(
      await put(second, slice(bytes, second), digestHeader(signed, slice(bytes, second))),
      second,
    );
    assert.deepEqual(
      (await state(signed.id)).parts.map((part) => part.etag === null),
      [true, false],
      'the damaged part is not held',
    );
    await expectError(await t.complete(signed.id), 409, 'upload_incomplete');
    await partAccepted(await put(first, good, digestHeader(signed, good)), first);
    const record = await json<FileRecord>(await t.complete(signed.id));
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('refuses a short last part whose single damaged byte is its last one', async () => {
    const bytes = patternBytes(777, 9);
    const signed = await sign({ name: 'tail.bin', size: bytes.length, checksum: true });
    const part = signed.parts[0] as Part;
    const refused = await put(part, damaged(bytes, bytes.length - 1), digestHeader(signed, bytes));
    await expectDamaged(refused);
    assert.equal((await state(signed.id)).parts[0]?.etag, null);
  });

  it('lets the page send the digest header cross-origin (preflight)', async () => {
    const signed = await sign({ name: 'cors.bin', size: 10, checksum: true });
    const part = signed.parts[0] as Part;
    const header = CHECKSUM_HEADER[signed.checksum ?? 'sha256'];
    const requested = [...Object.keys(part.headers), header].map((name) => name.toLowerCase());
    const preflight = await fetch(part.url, {
      method: 'OPTIONS',
      headers: {
        Origin: ALLOWED_ORIGIN,
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': requested.join(','),
      },
    });
    assert.ok(preflight.status === 200 || preflight.status === 204, String(preflight.status));
    assert.equal(preflight.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase());
    for (const name of requested) assert.ok(allowed.includes(name), `${name} in ${allowed}`);
  });
});

describe('part checksums on the local-disk store: the requirement is signed', {
  skip: LOCAL_ONLY,
}, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  const sign = (body: Record<string, unknown>) => signWith(t, body);
  const sha256 = (bytes: Uint8Array) =>
    `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;
  const put = (
    part: Part,
    body: Uint8Array<ArrayBuffer>,
    headers: Record<string, string>,
    url = part.url,
  ) => fetch(url, { method: 'PUT', headers, body });
  /** The part at a URL of its own, signed as the shared one is (with its requirement). */
  const perPartUrl = (signed: SignResponse, checksum: 'sha256' | null) => {
    const part = signed.parts[0] as Part;
    return (t.service.context.blobs as LocalDiskBlobStore).signer.signedPartUrl({
      uploadId: signed.id,
      partNumber: 1,
      size: part.size,
      type: part.headers['Content-Type'] as string,
      expiresAt: signed.expiresAt,
      checksum,
    });
  };

  it('lists the signed requirement among the part headers, and the preflight allows it', async () => {
    const signed = await sign({ name: 'h.bin', size: 10, checksum: true });
    assert.equal((signed.parts[0] as Part).headers['X-Filehost-Checksum'], 'sha256');
    // URLs signed afresh for a resume require it as well.
    const resumed = await json<UploadState>(await t.state(signed.id));
    assert.equal(resumed.parts[0]?.headers?.['X-Filehost-Checksum'], 'sha256');
    const plain = await sign({ name: 'p.bin', size: 10 });
    const plainResumed = await json<UploadState>(await t.state(plain.id));
    assert.ok(!('X-Filehost-Checksum' in (plainResumed.parts[0]?.headers ?? {})));
    const preflight = await fetch(`${t.apiUrl}/v1/parts`, { method: 'OPTIONS' });
    const allowed = preflight.headers.get('access-control-allow-headers') ?? '';
    assert.match(allowed, /\bX-Filehost-Checksum\b/);
    assert.match(allowed, /\bContent-Digest\b/);
  });

  it('refuses a part without its digest (checksum_missing), or with a malformed one', async () => {
    const bytes = patternBytes(100, 3);
    const signed = await sign({ name: 'm.bin', size: bytes.length, checksum: true });
    const part = signed.parts[0] as Part;
    await expectError(await put(part, bytes, part.headers), 400, 'checksum_missing');
    // Another algorithm alone is not the one asked for.
    const sha512 = createHash('sha512').update(bytes).digest('base64');
    await expectError(
      await put(part, bytes, { ...part.headers, 'Content-Digest': `sha-512=:${sha512}:` }),
      400,
      'checksum_missing',
    );
    const right = sha256(bytes);
    const value = right.slice('sha-256=:'.length, -1);
    for (const malformed of [
      'sha-256=abc',
      `sha-256=:${value}`,
      `sha-256=:${value.slice(1)}:`,
      `sha-256=:${value.replace(/=$/, '')}:`,
      `sha-256=:${Buffer.from(patternBytes(31)).toString('base64')}:`,
      `sha-256=:${value}:, sha-256=:${sha512.slice(0, 43)}=:`,
      `SHA-256=:${value}:`,
      'md5',
      `${right};`,
    ]) {
      await expectError(
        await put(part, bytes, { ...part.headers, 'Content-Digest': malformed }),
        400,
        'invalid_request',
      );
    }
    assert.equal((await json<UploadState>(await t.state(signed.id))).parts[0]?.etag, null);
    // RFC 9530 allows several digests, and a digest's parameters: the sha-256 one counts.
    await partAccepted(
      await put(part, bytes, {
        ...part.headers,
        'Content-Digest': `sha-512=:${sha512}:, ${right}`,
      }),
      part,
    );
    await partAccepted(await put(part, bytes, { ...part.headers, 'Content-Digest': right }), part);
  });

  it('refuses a credential whose requirement was stripped, changed or added: 403', async () => {
    const bytes = patternBytes(100, 4);
    const [checked, plain] = (
      await json<SignBatchResponse>(
        await t.sign({
          files: [
            { name: 'c', size: 100, checksum: true },
            { name: 'p', size: 100 },
          ],
        }),
        201,
      )
    ).uploads as [SignResponse, SignResponse];
    const part = checked.parts[0] as Part;
    const digest = { 'Content-Digest': sha256(bytes) };
    const { 'X-Filehost-Checksum': _, ...stripped } = part.headers;
    for (const headers of [
      stripped,
      { ...part.headers, 'X-Filehost-Checksum': 'md5' },
      { ...part.headers, 'X-Filehost-Checksum': 'SHA256' },
      { ...part.headers, 'X-Filehost-Checksum': '' },
      { ...(plain.parts[0] as Part).headers, 'X-Filehost-Checksum': 'sha256' },
    ]) {
      await expectError(
        await put(part, bytes, { ...headers, ...digest }),
        403,
        'invalid_signature',
      );
    }
    const twice = await rawHttp(t.apiUrl, {
      method: 'PUT',
      path: '/v1/parts',
      headers: {
        ...part.headers,
        ...digest,
        'X-Filehost-Checksum': ['sha256', 'sha256'] as unknown as string,
        'Content-Length': '100',
      },
      body: Buffer.from(bytes),
    });
    assert.equal(twice.status, 400, twice.body);
    assert.equal(JSON.parse(twice.body).error.code, 'invalid_request');

    // The per-part URL form carries the requirement in its query, signed likewise.
    const own = perPartUrl(checked, 'sha256');
    assert.match(own.url, /\?expires=\d+&checksum=sha256&signature=[\w-]{43}$/);
    for (const url of [
      own.url.replace('&checksum=sha256', ''),
      own.url.replace('checksum=sha256', 'checksum=md5'),
      own.url.replace('&checksum=sha256', '&checksum=sha256&checksum=sha256'),
      perPartUrl(checked, null).url.replace('&signature', '&checksum=sha256&signature'),
    ]) {
      await expectError(
        await put(part, bytes, { ...own.headers, ...digest }, url),
        403,
        'invalid_signature',
      );
    }
    await expectError(await put(part, bytes, own.headers, own.url), 400, 'checksum_missing');
    await expectError(
      await put(part, patternBytes(100, 5), { ...own.headers, ...digest }, own.url),
      400,
      'checksum_mismatch',
    );
    await partAccepted(await put(part, bytes, { ...own.headers, ...digest }, own.url), part);
    await partAccepted(await put(part, bytes, { ...part.headers, ...digest }), part);
  });

  it('leaves an upload signed without checksums exactly as before: digests are not read', async () => {
    const bytes = patternBytes(100, 6);
    const signed = await sign({ name: 'plain.bin', size: 100 });
    const part = signed.parts[0] as Part;
    await partAccepted(await put(part, bytes, part.headers), part);
    // A wrong or malformed digest on a part that requires none is not looked at, as before.
    await partAccepted(
      await put(part, bytes, { ...part.headers, 'Content-Digest': sha256(patternBytes(100, 1)) }),
      part,
    );
    await partAccepted(await put(part, bytes, { ...part.headers, 'Content-Digest': 'x' }), part);
    const record = await json<FileRecord>(await t.complete(signed.id));
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('a damaged re-send of a whole part leaves it not whole, as any failed write does', async () => {
    const bytes = patternBytes(100, 10);
    const signed = await sign({ name: 'again.bin', size: 100, checksum: true });
    const part = signed.parts[0] as Part;
    const digest = { 'Content-Digest': sha256(bytes) };
    await partAccepted(await put(part, bytes, { ...part.headers, ...digest }), part);
    await expectError(
      await put(part, patternBytes(100, 11), { ...part.headers, ...digest }),
      400,
      'checksum_mismatch',
    );
    assert.equal((await json<UploadState>(await t.state(signed.id))).parts[0]?.etag, null);
    await expectError(await t.complete(signed.id), 409, 'upload_incomplete');
  });
});
