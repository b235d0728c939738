// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type {
  FileRecord,
  SignBatchResponse,
  SignResponse,
  UploadResponse,
} from '../../../src/api/types.js';
import { parseTypeList } from '../../../src/server/ground/type-list.js';
import { storedType, typeAllowed } from '../../../src/server/rules/stored-type.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { spyOnS3Commands } from '../../helpers/s3-spy.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  expectError,
  json,
  partAccepted,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2215bc60000000049454e44ae426082',
  'hex',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const HTML = Buffer.from(
  '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>',
);
const CSV = Buffer.from('name,size\na.png,10\n');

describe('the stored type, from the first bytes', () => {
  it('is the recognised type, whatever was declared', async () => {
    assert.equal(await storedType('application/octet-stream', PNG), 'image/png');
    assert.equal(await storedType('image/jpeg', PNG), 'image/png');
    assert.equal(await storedType('text/plain', PDF), 'application/pdf');
  });

  it('keeps a declared type that bytes cannot tell, and refuses one they would have', async () => {
    assert.equal(await storedType('text/csv', CSV), 'text/csv');
    assert.equal(await storedType('text/html; charset=utf-8', HTML), 'text/html; charset=utf-8');
    assert.equal(await storedType('application/json', Buffer.from('{"a":1}')), 'application/json');
    assert.equal(await storedType('image/svg+xml', Buffer.from('<svg/>')), 'image/svg+xml');
    // An HTML page declared as a PNG, or bytes that are no PDF: what they claim is false.
    assert.equal(await storedType('image/png', HTML), 'application/octet-stream');
    assert.equal(await storedType('application/pdf', CSV), 'application/octet-stream');
  });

  it('never answers a type the recogniser would know unless the bytes are it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'image/png',
          'image/jpeg',
          'application/pdf',
          'application/zip',
          'video/mp4',
        ),
        fc
          .uint8Array({ maxLength: 64 })
          .map((bytes) => Buffer.concat([Buffer.from('text '), bytes])),
        async (declared, bytes) => {
          assert.notEqual(await storedType(declared, bytes), declared);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('admits by exact type or family, and every type without a list', () => {
    const list = parseTypeList('image/*, application/PDF');
    assert.deepEqual(list, ['image/*', 'application/pdf']);
    assert.equal(typeAllowed(list, 'image/png'), true);
    assert.equal(typeAllowed(list, 'application/pdf; x=y'), true);
    assert.equal(typeAllowed(list, 'text/html'), false);
    assert.equal(typeAllowed(list, 'application/octet-stream'), false);
    assert.equal(typeAllowed(null, 'text/html'), true);
    // A wildcard admits only types the recogniser knows from bytes; an exact entry any.
    assert.equal(typeAllowed(list, 'image/x-foo'), false);
    assert.equal(typeAllowed(['*/*'], 'image/x-foo'), false);
    assert.equal(typeAllowed(parseTypeList('image/x-foo'), 'image/x-foo'), true);
    assert.equal(parseTypeList('*'), null);
    assert.throws(() => parseTypeList('image'), /not a media type/);
  });
});

describe('types known from the bytes, and a project that takes only some', () => {
  let t: TestService;
  let anyType: { secretKey: string };
  before(async () => {
    // Location stripping reads a whole photo at complete (test/server/ingest covers it):
    // off here, where what is read to recognise a type is counted.
    t = await startTestService({
      FILEHOST_ALLOWED_TYPES: 'image/*,text/csv',
      FILEHOST_STRIP_METADATA: 'none',
    });
    anyType = await t.otherProject();
  });
  after(() => t.close());

  const oneRequest = (key: string, body: Buffer, type: string, name: string) =>
    t.api('/v1/upload', {
      method: 'POST',
      key,
      headers: { 'Content-Type': type, 'X-Filename': name },
      body: new Uint8Array(body),
    });

  /** Sign, PUT and complete; answers complete's response. */
  async function multiStep(key: string, body: Buffer, type: string, name: string) {
    const signed = await json<SignResponse>(
      await t.sign({ name, size: body.length, type }, { key }),
      201,
    );
    const part = signed.parts[0] as SignResponse['parts'][number];
    await partAccepted(
      await fetch(part.url, { method: 'PUT', headers: part.headers, body: new Uint8Array(body) }),
      part,
    );
    const complete = () => t.complete(signed.id, undefined, { key });
    return { signed, complete };
  }

  it('refuses an HTML page named cat.png and declared image/png, on both paths, keeping nothing', async () => {
    const before = await t.stored();
    await expectError(
      await oneRequest(t.secretKey, HTML, 'image/png', 'cat.png'),
      415,
      'unsupported_type',
      {
        type: 'application/octet-stream',
      },
    );
    const { signed, complete } = await multiStep(t.secretKey, HTML, 'image/png', 'cat.png');
    await expectError(await complete(), 415, 'unsupported_type');
    // Gone: not completed again, not listed, not served; its bytes removed.
    await expectError(await complete(), 404, 'not_found');
    await expectError(await t.api(`/v1/files/${signed.id}`), 404, 'not_found');
    assert.equal((await fetch(`${t.cdnUrl}/${signed.id}`)).status, 404);
    assert.deepEqual(await t.stored(), before);
  });

  it('refuses HTML declared as image/x-foo under image/* on both paths; without a list it is served only as a sandboxed attachment', async () => {
    const before = await t.stored();
    await expectError(
      await t.sign({ name: 'x.foo', size: HTML.length, type: 'image/x-foo' }),
      415,
      'unsupported_type',
    );
    await expectError(
      await oneRequest(t.secretKey, HTML, 'image/x-foo', 'x.foo'),
      415,
      'unsupported_type',
    );
    assert.deepEqual(await t.stored(), before);
    const kept = await json<UploadResponse>(
      await oneRequest(anyType.secretKey, HTML, 'image/x-foo', 'x.foo'),
      201,
    );
    assert.equal(kept.type, 'image/x-foo');
    const served = await fetch(publicUrlOf(kept));
    await served.arrayBuffer();
    assert.match(served.headers.get('content-disposition') ?? '', /^attachment/);
    assert.equal(served.headers.get('content-security-policy'), 'sandbox');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
  });

  it('stores a PNG declared as anything as image/png, and the CDN serves it so', async () => {
    const single = await json<UploadResponse>(
      await oneRequest(anyType.secretKey, PNG, 'application/octet-stream', 'pixel'),
      201,
    );
    assert.equal(single.type, 'image/png');
    const { complete } = await multiStep(
      anyType.secretKey,
      PNG,
      'application/octet-stream',
      'pixel',
    );
    const record = await json<FileRecord>(await complete());
    assert.equal(record.mime, 'image/png');
    for (const url of [publicUrlOf(single), publicUrlOf(record)]) {
      const served = await fetch(url);
      assert.equal(served.headers.get('content-type'), 'image/png');
      await served.arrayBuffer();
    }
  });

  it('keeps text/csv, and stores bytes that are not the PDF they claim as application/octet-stream', async () => {
    const csv = await json<UploadResponse>(
      await oneRequest(anyType.secretKey, CSV, 'text/csv', 'a.csv'),
      201,
    );
    assert.equal(csv.type, 'text/csv');
    const { complete } = await multiStep(anyType.secretKey, CSV, 'application/pdf', 'report.pdf');
    assert.equal((await json<FileRecord>(await complete())).mime, 'application/octet-stream');
  });

  it('refuses a declared type outside the list at sign and before a one-request body is stored', async () => {
    const before = await t.stored();
    const listed = await json<{ files: unknown[] }>(await t.api('/v1/files'));
    await expectError(
      await t.sign({ name: 'a.pdf', size: 10, type: 'application/pdf' }),
      415,
      'unsupported_type',
    );
    await expectError(
      await t.sign({
        files: [
          { name: 'a.png', size: 10, type: 'image/png' },
          { name: 'b.exe', size: 10, type: 'application/x-msdownload' },
        ],
      }),
      415,
      'unsupported_type',
      { index: 1 },
    );
    await expectError(
      await oneRequest(t.secretKey, PDF, 'application/pdf', 'a.pdf'),
      415,
      'unsupported_type',
    );
    assert.deepEqual(await t.stored(), before);
    assert.equal(
      (await json<{ files: unknown[] }>(await t.api('/v1/files'))).files.length,
      listed.files.length,
    );
    // The allowed kinds go through.
    const ok = await json<SignBatchResponse>(
      await t.sign({ files: [{ name: 'a.png', size: 10, type: 'image/png' }] }),
      201,
    );
    assert.equal(ok.uploads.length, 1);
  });

  it('reads the first 4,100 bytes of a completed file, at scale by one ranged GET', {
    skip: !SCALE && 'S3 at scale',
  }, async () => {
    const size = 6 * 1024 * 1024;
    const body = Buffer.alloc(size, 1);
    PNG.copy(body);
    const { complete } = await multiStep(
      anyType.secretKey,
      body,
      'application/octet-stream',
      'big.png',
    );
    const spy = spyOnS3Commands();
    let record: FileRecord;
    try {
      record = await json<FileRecord>(await complete());
    } finally {
      spy.restore();
    }
    assert.equal(record.mime, 'image/png');
    const gets = spy.seen.filter((command) => command.name === 'GetObjectCommand');
    // The type is read from one ranged GET; an image's placeholder (#58) then needs its
    // whole object once (a local copy), and nothing else reads it.
    assert.deepEqual(
      gets.map(({ input, contentLength }) => ({ range: input.Range, contentLength })),
      [
        { range: 'bytes=0-4099', contentLength: 4100 },
        { range: undefined, contentLength: size },
      ],
    );
  });
});
