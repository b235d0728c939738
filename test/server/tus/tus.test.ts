// @deployments embedded scale
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, UploadTokenResponse } from '../../../src/api/types.js';
import { patternBytes } from '../../helpers/bytes.js';
import { ALLOWED_ORIGIN, json, startTestService, type TestService } from '../../helpers/service.js';
import { rawRequest, tusUpload, tusUploadUntil } from '../../helpers/tus-client.js';

const MiB = 1024 * 1024;

const raw = rawRequest;

function errorCode(body: string | undefined): string {
  return (JSON.parse(body ?? '{}') as { error: { code: string } }).error.code;
}

describe('tus 1.0 on /v1/tus', () => {
  let svc: TestService;
  let endpoint: string;
  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

  before(async () => {
    svc = await startTestService({ FILEHOST_RATE_LIMIT: '100000' });
    endpoint = `${svc.apiUrl}/v1/tus`;
  });
  after(() => svc.close());

  async function fileBytes(id: string): Promise<Buffer> {
    const record = await json<FileRecord>(await svc.api(`/v1/files/${id}`));
    assert.equal(record.status, 'ready');
    const response = await fetch(record.url as string);
    assert.equal(response.status, 200);
    return Buffer.from(await response.arrayBuffer());
  }

  it('OPTIONS says what the server speaks', async () => {
    const answer = await raw(endpoint, 'OPTIONS', {});
    assert.equal(answer.status, 204);
    assert.equal(answer.headers['tus-version'], '1.0.0');
    assert.equal(answer.headers['tus-resumable'], '1.0.0');
    assert.equal(
      answer.headers['tus-extension'],
      'creation,creation-with-upload,expiration,checksum,termination',
    );
    assert.equal(answer.headers['tus-checksum-algorithm'], 'sha1,md5,sha256');
    assert.equal(answer.headers['tus-max-size'], String(5 * 1024 * MiB));
  });

  it('uploads with the secret key in 5 MiB chunks and ends as a ready file', async () => {
    const bytes = Buffer.from(patternBytes(12 * MiB + 123));
    const outcome = await tusUpload(bytes, {
      endpoint,
      chunkSize: 5 * MiB,
      headers: auth(svc.secretKey),
      metadata: {
        filename: 'data.bin',
        filetype: 'application/octet-stream',
        metadata: '{"user":"u1"}',
      },
    });
    assert.equal(outcome.status, undefined, outcome.body);
    assert.ok(outcome.fileId);
    const record = await json<FileRecord>(await svc.api(`/v1/files/${outcome.fileId}`));
    assert.equal(record.name, 'data.bin');
    assert.deepEqual(record.metadata, { user: 'u1' });
    assert.equal(outcome.fileUrl, record.url);
    assert.ok((await fileBytes(outcome.fileId)).equals(bytes));
  });

  it('uploads in one PATCH of uneven size, and in chunks that do not meet parts', async () => {
    for (const chunkSize of [Number.POSITIVE_INFINITY, 3 * MiB + 7]) {
      const bytes = Buffer.from(patternBytes(11 * MiB + 5));
      const outcome = await tusUpload(bytes, {
        endpoint,
        chunkSize,
        headers: auth(svc.secretKey),
        metadata: { filename: 'uneven.bin' },
      });
      assert.ok(outcome.fileId, outcome.body);
      assert.ok((await fileBytes(outcome.fileId)).equals(bytes), `chunkSize ${chunkSize}`);
    }
  });

  it('uploads with the publishable key from an allowed origin, and refuses it without one', async () => {
    const bytes = Buffer.from(patternBytes(64 * 1024));
    const ok = await tusUpload(bytes, {
      endpoint,
      headers: { ...auth(svc.publishableKey), Origin: ALLOWED_ORIGIN },
      metadata: { filename: 'anon.bin' },
    });
    assert.ok(ok.fileId, ok.body);
    const refused = await tusUpload(bytes, {
      endpoint,
      headers: auth(svc.publishableKey),
      metadata: { filename: 'anon.bin' },
    });
    assert.equal(refused.status, 403);
    assert.equal(errorCode(refused.body), 'origin_not_allowed');
  });

  it('holds an upload token to its limits, with the errors a sign gives', async () => {
    const token = await json<UploadTokenResponse>(
      await svc.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ maxFileSize: 100_000, types: ['text/plain'] }),
      }),
      201,
    );
    const small = Buffer.from('hello tus\n');
    const ok = await tusUpload(small, {
      endpoint,
      headers: auth(token.token),
      metadata: { filename: 'a.txt', filetype: 'text/plain' },
    });
    assert.ok(ok.fileId, ok.body);
    const tooLarge = await tusUpload(Buffer.alloc(100_001, 1), {
      endpoint,
      headers: auth(token.token),
      metadata: { filename: 'b.txt', filetype: 'text/plain' },
    });
    assert.equal(tooLarge.status, 413, tooLarge.body);
    assert.equal(errorCode(tooLarge.body), 'too_large');
    const wrongType = await tusUpload(small, {
      endpoint,
      headers: auth(token.token),
      metadata: { filename: 'c.png', filetype: 'image/png' },
    });
    assert.equal(wrongType.status, 415, wrongType.body);
    assert.equal(errorCode(wrongType.body), 'unsupported_type');
  });

  it('refuses a file over the plan and a creation without Upload-Length or Tus-Resumable', async () => {
    const overPlan = await raw(endpoint, 'POST', {
      ...auth(svc.secretKey),
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(101_000_000),
    });
    assert.equal(overPlan.status, 413);
    assert.equal(errorCode(overPlan.body), 'too_large');
    assert.equal(overPlan.headers['tus-resumable'], '1.0.0');
    const deferred = await raw(endpoint, 'POST', {
      ...auth(svc.secretKey),
      'Tus-Resumable': '1.0.0',
      'Upload-Defer-Length': '1',
    });
    assert.equal(deferred.status, 400);
    const oldVersion = await raw(endpoint, 'POST', {
      ...auth(svc.secretKey),
      'Tus-Resumable': '0.2.2',
      'Upload-Length': '10',
    });
    assert.equal(oldVersion.status, 412);
    assert.equal(oldVersion.headers['tus-version'], '1.0.0');
  });

  /** A creation by hand: the upload URL. */
  async function create(size: number, key = svc.secretKey): Promise<string> {
    const answer = await raw(endpoint, 'POST', {
      ...auth(key),
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(size),
      'Upload-Metadata': `filename ${Buffer.from('x.bin').toString('base64')}`,
    });
    assert.equal(answer.status, 201, answer.body);
    return answer.headers.location as string;
  }

  function patch(url: string, offset: number, body: Buffer, extra: Record<string, string> = {}) {
    return raw(
      url,
      'PATCH',
      {
        ...auth(svc.secretKey),
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
        ...extra,
      },
      body,
    );
  }

  async function offsetOf(url: string): Promise<number> {
    const answer = await raw(url, 'HEAD', { ...auth(svc.secretKey), 'Tus-Resumable': '1.0.0' });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['cache-control'], 'no-store');
    return Number(answer.headers['upload-offset']);
  }

  it('checks Upload-Checksum per PATCH: 460 keeps nothing, the right digest is taken', async () => {
    const bytes = Buffer.from(patternBytes(300_000));
    const url = await create(bytes.length);
    const first = bytes.subarray(0, 100_000);
    const sha1 = (data: Buffer) => `sha1 ${createHash('sha1').update(data).digest('base64')}`;
    const wrong = await patch(url, 0, first, { 'Upload-Checksum': sha1(Buffer.from('other')) });
    assert.equal(wrong.status, 460, wrong.body);
    assert.equal(errorCode(wrong.body), 'checksum_mismatch');
    assert.equal(await offsetOf(url), 0);
    const right = await patch(url, 0, first, { 'Upload-Checksum': sha1(first) });
    assert.equal(right.status, 204, right.body);
    assert.equal(await offsetOf(url), 100_000);
    const last = await patch(url, 100_000, bytes.subarray(100_000), {
      'Upload-Checksum': `sha256 ${createHash('sha256').update(bytes.subarray(100_000)).digest('base64')}`,
    });
    assert.equal(last.status, 204, last.body);
    const id = last.headers['filehost-file-id'] as string;
    assert.ok((await fileBytes(id)).equals(bytes));
  });

  it('answers 409 to a PATCH at the wrong offset', async () => {
    const url = await create(1000);
    const wrong = await patch(url, 10, Buffer.alloc(10));
    assert.equal(wrong.status, 409);
    assert.equal(await offsetOf(url), 0);
  });

  it('lets one of two overlapping PATCHes write; the other is 409 and nothing mixes', async () => {
    const bytes = Buffer.from(patternBytes(2 * MiB));
    const url = await create(bytes.length);
    // The first PATCH sends its headers and half its body, then waits.
    const first = httpRequest(url, {
      method: 'PATCH',
      headers: {
        ...auth(svc.secretKey),
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': '0',
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(bytes.length),
      },
    });
    const firstAnswer = new Promise<{ status: number; headers: Record<string, unknown> }>(
      (resolve, reject) => {
        first.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        });
        first.on('error', reject);
      },
    );
    first.write(bytes.subarray(0, MiB));
    // Until the first holds the lease (its bytes are being read), a second PATCH may race it.
    let second: Awaited<ReturnType<typeof patch>> | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      second = await patch(url, 0, Buffer.alloc(bytes.length, 0xee));
      if (second.status === 409) break;
    }
    assert.equal(second?.status, 409, second?.body);
    assert.equal(errorCode(second?.body), 'upload_conflict');
    first.end(bytes.subarray(MiB));
    const answer = await firstAnswer;
    assert.equal(answer.status, 204);
    assert.ok((await fileBytes(answer.headers['filehost-file-id'] as string)).equals(bytes));
  });

  it('resumes after abort() from HEAD’s offset with the right bytes', async () => {
    const bytes = Buffer.from(patternBytes(16 * MiB + 1));
    const { url } = await tusUploadUntil(
      bytes,
      {
        endpoint,
        chunkSize: 5 * MiB,
        headers: auth(svc.secretKey),
        metadata: { filename: 'resumed.bin' },
      },
      5 * MiB,
      (upload) => upload.abort(),
    );
    assert.ok(url);
    const held = await offsetOf(url);
    assert.ok(held >= 5 * MiB && held < bytes.length, `offset ${held}`);
    const outcome = await tusUpload(bytes, {
      uploadUrl: url,
      chunkSize: 5 * MiB,
      headers: auth(svc.secretKey),
    });
    assert.ok(outcome.fileId, outcome.body);
    assert.ok((await fileBytes(outcome.fileId)).equals(bytes));
  });

  it('treats the URL as a capability: a wrong secret, another key kind or project is 404', async () => {
    const url = await create(100);
    const head = (target: string, headers: Record<string, string>) =>
      raw(target, 'HEAD', { ...headers, 'Tus-Resumable': '1.0.0' });
    const forged = `${url.slice(0, url.lastIndexOf('/'))}/AAAAAAAAAAAAAAAAAAAAAA`;
    assert.equal((await head(forged, auth(svc.secretKey))).status, 404);
    assert.equal(
      (await head(url, { ...auth(svc.publishableKey), Origin: ALLOWED_ORIGIN })).status,
      404,
    );
    const other = await svc.otherProject();
    assert.equal((await head(url, auth(other.secretKey))).status, 404);
    assert.equal((await head(url, auth(svc.secretKey))).status, 200);
  });

  it('forgets its tus state when the upload finishes or /v1/files deletes it', async () => {
    const db = svc.service.context.db;
    const finished = await create(10);
    const id = finished.split('/').at(-2) as string;
    assert.ok(await db.getTusUpload(id));
    assert.equal((await patch(finished, 0, Buffer.alloc(10, 1))).status, 204);
    assert.equal(await db.getTusUpload(id), null);
    const cancelled = await create(10);
    const other = cancelled.split('/').at(-2) as string;
    assert.equal((await svc.api(`/v1/files/${other}`, { method: 'DELETE' })).status, 204);
    assert.equal(await db.getTusUpload(other), null);
  });

  it('takes PATCH and DELETE sent as POST with X-HTTP-Method-Override', async () => {
    const bytes = Buffer.from(patternBytes(7 * MiB + 3));
    const outcome = await tusUpload(bytes, {
      endpoint,
      chunkSize: 5 * MiB,
      overridePatchMethod: true,
      headers: auth(svc.secretKey),
      metadata: { filename: 'overridden.bin' },
    });
    assert.ok(outcome.fileId, outcome.body);
    assert.ok((await fileBytes(outcome.fileId)).equals(bytes));
    const url = await create(100);
    const post = (override?: string) =>
      raw(url, 'POST', {
        ...auth(svc.secretKey),
        'Tus-Resumable': '1.0.0',
        ...(override ? { 'X-HTTP-Method-Override': override } : {}),
      });
    for (const wrong of [undefined, 'GET', 'PUT']) {
      const answer = await post(wrong);
      assert.equal(answer.status, 400, `${wrong}: ${answer.body}`);
      assert.equal(errorCode(answer.body), 'invalid_request');
      assert.equal(answer.headers['tus-resumable'], '1.0.0');
    }
    assert.equal((await post('delete')).status, 204);
    const head = await raw(url, 'HEAD', { ...auth(svc.secretKey), 'Tus-Resumable': '1.0.0' });
    assert.equal(head.status, 404);
  });

  it('terminates: 204, then the upload and its bytes are gone', async () => {
    const url = await create(6 * MiB);
    assert.equal((await patch(url, 0, Buffer.from(patternBytes(5 * MiB + 10)))).status, 204);
    const id = url.split('/').at(-2) as string;
    const gone = await raw(url, 'DELETE', { ...auth(svc.secretKey), 'Tus-Resumable': '1.0.0' });
    assert.equal(gone.status, 204);
    const head = await raw(url, 'HEAD', { ...auth(svc.secretKey), 'Tus-Resumable': '1.0.0' });
    assert.equal(head.status, 404);
    assert.equal(await svc.service.context.db.getTusUpload(id), null);
    assert.deepEqual(
      (await svc.stored()).filter((path) => path.includes(id)),
      [],
    );
  });
});
